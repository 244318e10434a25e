/**
 * Issue 24, item 7: frontmatter parsing is linear in its size and bounded in memory. Inside the
 * 1 MiB byte limit, one flow sequence `[1,1,1,…]` made the YAML library compose a million nodes
 * twice (YAML 1.2 and 1.1 readings): over 850 MiB, a fatal V8 OOM under a 512 MiB heap. And the
 * library's duplicate-key check compared each key with every earlier one (20,000 keys: 6 s to
 * validate, 10 s in addDocument). Now the YAML nodes are counted on the lexer's tokens before
 * anything is parsed (`limits.maxFrontmatterNodes`, `OCTX_FRONTMATTER_TOO_COMPLEX`), and
 * duplicate keys are found with a Set.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PackageBuilder, isOctxError } from '../../src/index.js';
import { lexCounted, parseFrontmatter } from '../../src/knowledge/frontmatter.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../../src/model/limits.js';
import { openPackage, validatePackage } from '../../src/read/index.js';
import { DOC_ID, cleanupTempDirs, entriesOf, writeDir, writeZip } from '../read/helpers.js';
import { ROOT, tempDir } from '../helpers/temp.js';

const MiB = 1024 * 1024;

afterAll(cleanupTempDirs);

/** A Concept Document whose frontmatter has `extra` after its required keys. */
const doc = (extra: string): string => `---\ntype: Reference\ntitle: Big\noctx:\n  document_id: ${DOC_ID}\n${extra}---\n\n# Big\n`;

/** `n` distinct keys, one a line. */
const manyKeys = (n: number, prefix = 'k'): string => Array.from({ length: n }, (_, i) => `${prefix}${i}: 1\n`).join('');

/** A flow sequence of `1`s filling about `bytes` bytes: the shape that exhausted the heap. */
const flowOfOnes = (bytes: number): string =>
  `list: [${Array(Math.floor(bytes / 2))
    .fill('1')
    .join(',')}]\n`;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isOctxError(e)) return `${e.code}:${e.issues[0]?.field ?? ''}`;
    throw e;
  }
  return undefined;
}

/** Runs `script` (ESM, repository root) under `node --max-old-space-size=512` with a time bound. */
function runUnder512(script: string): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--max-old-space-size=512', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, timeout: 60_000, maxBuffer: 16 * MiB },
      (error, stdout, stderr) => {
        const e = error as { code?: number; signal?: string } | null;
        resolve({ code: e ? (e.code ?? null) : 0, signal: e?.signal ?? null, stdout, stderr });
      },
    );
  });
}

describe('lexCounted (the YAML node count)', () => {
  it('counts every scalar and node indicator, and stops past the bound', () => {
    expect(lexCounted('a: 1\nb: "x"\n', 100).nodes).toBe(6);
    expect(lexCounted('a: [1, 2, 3]\n', 100).nodes).toBe(8);
    expect(lexCounted("a:\n  - x\n  - 'y'\n", 100).nodes).toBe(6);
    // Quoted text and comments hold no nodes, whatever their commas and colons.
    expect(lexCounted('a: "x, y: [z]" # b: [1, 2]\n', 100).nodes).toBe(3);
    expect(lexCounted(manyKeys(1000), 10).nodes).toBe(11);
  });
});

describe('frontmatter node limit (maxFrontmatterNodes)', () => {
  it('a 1 MiB flow sequence is refused with OCTX_FRONTMATTER_TOO_COMPLEX by validatePackage, openPackage and addDocument under a 512 MiB heap', async () => {
    const markdown = doc(flowOfOnes(MiB - 200));
    expect(Buffer.byteLength(markdown)).toBeLessThan(MiB);
    const dir = tempDir();
    const path = await writeZip(entriesOf({ files: { 'knowledge/big.md': markdown } }), { path: join(dir, 'flow.octx'), store: true });
    const mdPath = join(dir, 'flow.md');
    await writeFile(mdPath, markdown);
    const script = `
      import { PackageBuilder, openPackage, validatePackage } from './src/index.ts';
      import { readFileSync } from 'node:fs';
      const started = Date.now();
      const report = await validatePackage(${JSON.stringify(path)});
      const pkg = await openPackage(${JSON.stringify(path)});
      const opened = [];
      for await (const d of pkg.documents()) opened.push(...d.issues.map((i) => i.code));
      await pkg.close();
      const b = new PackageBuilder({ asset: { name: 'A' } });
      let added = 'accepted';
      try { b.addDocument({ path: 'big.md', markdown: readFileSync(${JSON.stringify(mdPath)}, 'utf8') }); } catch (e) { added = e.code + ':' + e.issues[0]?.field; }
      await b.dispose();
      console.log(JSON.stringify({ valid: report.valid, issues: report.issues.map((i) => [i.code, i.path, i.field]), opened, added, ms: Date.now() - started }));`;
    const run = await runUnder512(script);
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { valid: boolean; issues: unknown[]; opened: string[]; added: string; ms: number };
    expect(out.valid).toBe(false);
    expect(out.issues).toEqual([['OCTX_FRONTMATTER_TOO_COMPLEX', 'knowledge/big.md', 'frontmatter']]);
    expect(out.opened).toEqual(['OCTX_FRONTMATTER_TOO_COMPLEX']);
    expect(out.added).toBe('OCTX_FRONTMATTER_TOO_COMPLEX:frontmatter');
  }, 90_000);

  it('20,000 keys are refused by default and accepted with raised limits; the block sequence form too', async () => {
    expect(DEFAULT_ARCHIVE_LIMITS.maxFrontmatterNodes).toBe(50_000);
    const markdown = doc(manyKeys(20_000));
    const dir = await writeDir(entriesOf({ files: { 'knowledge/keys.md': markdown } }));
    const report = await validatePackage(dir);
    expect(report.issues.map((i) => [i.code, i.path, i.field])).toEqual([['OCTX_FRONTMATTER_TOO_COMPLEX', 'knowledge/keys.md', 'frontmatter']]);
    const raised = await validatePackage(dir, { limits: { maxFrontmatterNodes: 100_000 } });
    expect(raised.issues).toEqual([]);
    expect(raised.valid).toBe(true);

    const b = new PackageBuilder({ asset: { name: 'A' } });
    expect(codeOf(() => b.addDocument({ path: 'keys.md', markdown }))).toBe('OCTX_FRONTMATTER_TOO_COMPLEX:frontmatter');
    expect(codeOf(() => b.addDocument({ path: 'seq.md', markdown: doc(`list:\n${'  - a\n'.repeat(30_000)}`) }))).toBe('OCTX_FRONTMATTER_TOO_COMPLEX:frontmatter');
    // A block the builder completes (type, title, id added) is counted after completion too.
    expect(codeOf(() => b.addDocument({ path: 'edge.md', markdown: `---\n${manyKeys(16_666)}---\n# E\n` }))).toBe('OCTX_FRONTMATTER_TOO_COMPLEX:frontmatter');
    await b.dispose();

    const pkg = await openPackage(dir, { limits: { maxFrontmatterNodes: 1_000 } });
    try {
      const codes: string[] = [];
      for await (const d of pkg.documents()) codes.push(...d.issues.map((i) => i.code));
      expect(codes).toEqual(['OCTX_FRONTMATTER_TOO_COMPLEX']);
    } finally {
      await pkg.close();
    }
  });

  it("a block the builder's raised maxFrontmatterNodes accepted is refused at export unless the limits allow it", async () => {
    const b = new PackageBuilder({ asset: { name: 'A' }, maxFrontmatterNodes: 100_000 });
    b.addDocument({ path: 'keys.md', markdown: doc(manyKeys(20_000)) });
    const out = join(tempDir(), 'keys.octx');
    let refused: unknown;
    try {
      await b.export({ output: out });
    } catch (e) {
      refused = e;
    }
    expect(isOctxError(refused) && refused.issues.map((i) => [i.code, i.path, i.field])).toEqual([['OCTX_RESOURCE_LIMIT', 'knowledge/keys.md', 'frontmatter']]);
    const result = await b.export({ output: out, limits: { maxFrontmatterNodes: 100_000 } });
    expect(result.packageDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await validatePackage(out, { limits: { maxFrontmatterNodes: 100_000 } })).valid).toBe(true);
  }, 60_000);

  it('parsing is linear in the key count: 60,000 keys parse in seconds (quadratic before: about a minute)', () => {
    const keys = manyKeys(60_000);
    const started = performance.now();
    const parsed = parseFrontmatter(keys, { maxBytes: 2 * MiB, maxNodes: 200_000 });
    const ms = performance.now() - started;
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && Object.keys(parsed.value.data).length).toBe(60_000);
    expect(ms).toBeLessThan(15_000);
    // The Set still finds a duplicate, at the end of a long map and in a nested one.
    const dup = parseFrontmatter(`${keys}k7: 2\n`, { maxBytes: 2 * MiB, maxNodes: 200_000 });
    expect(dup.ok ? 'accepted' : dup.reason).toMatch(/Map keys must be unique.*"k7"/);
    const nested = parseFrontmatter('a:\n  b: 1\n  c: 2\n  b: 3\n');
    expect(nested.ok ? 'accepted' : nested.reason).toMatch(/"b" appears twice/);
    const flow = parseFrontmatter('a: {x: 1, y: 2, x: 3}\n');
    expect(flow.ok ? 'accepted' : flow.reason).toMatch(/"x" appears twice/);
  }, 60_000);
});
