import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkdir, PackageBuilder, validatePackage } from 'octx-export';
import { ROOT, tempDir } from '../helpers/temp.js';
import { failureAsync } from '../helpers/errors.js';
import { jsonOf, runCli } from './run-cli.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');
const ASSET = '019c2222-2222-7222-8222-222222222222';
const DERIVED = '019c3333-3333-7333-8333-333333333333';

/** A working folder with `n` small documents, the last of which has broken frontmatter. */
function manyDocuments(n: number, broken = true): string {
  const dir = join(tempDir('octx-many-'), 'kb');
  mkdirSync(join(dir, 'knowledge'), { recursive: true });
  for (let i = 0; i < n; i++) writeFileSync(join(dir, 'knowledge', `d${String(i).padStart(5, '0')}.md`), `# D${i}\n\nText ${i}.\n`);
  // Reading this file fails (OCTX_DOCUMENT_FRONTMATTER): an error about it proves contents were read.
  if (broken) writeFileSync(join(dir, 'knowledge/zz-broken.md'), '---\ntype: [unclosed\n---\n# Broken\n');
  return dir;
}

describe('derive plus one new unlinked note (issue 15, problem 1)', () => {
  let source: string;
  let additions: string;
  // Not tempDir(): that folder is removed after each test, and these files serve all of them.
  const dir = mkdtempSync(join(tmpdir(), 'octx-derive-source-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(async () => {
    source = join(dir, 'source.octx');
    const b = new PackageBuilder({ asset: { id: ASSET, name: 'Three Kingdoms' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });
    await loadWorkdir(b, FIXTURE);
    await b.export({ output: source, structure: 'require' });
    additions = join(dir, 'additions');
    mkdirSync(join(additions, 'knowledge/notes'), { recursive: true });
    writeFileSync(join(additions, 'knowledge/notes/new-note.md'), '# A new note\n\nNot linked to any chunk yet.\n');
  });

  it('exits 0 but prints the degradation notice: what was dropped, the orphans, the first ids, --strict', async () => {
    const tmp = tempDir();
    const r = await runCli(['derive', source, additions, '-o', join(tmp, 'd.octx'), '--name', 'Notes', '--asset-id', DERIVED]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('capabilities  none — documents only');
    expect(r.stdout).toContain('degraded      yes: structure layer left out');
    const notice = r.stderr.slice(r.stderr.indexOf('notice:'));
    expect(notice.split('\n')[0]).toBe('notice: the package was written WITHOUT part of what was added (degraded):');
    expect(notice).toMatch(
      /^ {2}- the structure layer is left out \(\d+ record\(s\) and link\(s\)\): coverage is incomplete \(1 document\(s\) without chunks\) \[OCTX_STRUCTURE_INCOMPLETE\]$/m,
    );
    expect(notice).toMatch(/^ {6}1 record\(s\) cause it; first: [0-9a-f]{8}-[0-9a-f-]{27} \(knowledge\/notes\/new-note\.md\) document without chunks$/m);
    expect(notice).toContain('pass --strict to make this an error');
  });

  it('--json: degraded and the degradations at the top level', async () => {
    const r = await runCli(['derive', source, additions, '-o', join(tempDir(), 'd.octx'), '--name', 'Notes', '--asset-id', DERIVED, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const doc = jsonOf(r);
    expect(doc.degraded).toBe(true);
    expect(doc.degradations).toEqual([expect.objectContaining({ code: 'OCTX_STRUCTURE_INCOMPLETE', layer: 'structure', orphans: 1 })]);
    expect((doc.report as { degraded: boolean }).degraded).toBe(true);
  });

  it('--strict: exit 1 with OCTX_STRICT_VIOLATION, and nothing is written', async () => {
    const tmp = tempDir();
    const out = join(tmp, 'd.octx');
    const r = await runCli(['derive', source, additions, '-o', out, '--name', 'Notes', '--asset-id', DERIVED, '--strict']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('error[OCTX_STRICT_VIOLATION]: strict: the export would leave out the structure layer and report 1 warning(s); nothing was written');
    expect(r.stderr).toMatch(/^error\[OCTX_SAG_DOCUMENT_WITHOUT_CHUNK\]: .*\n {2}--> knowledge\/notes\/new-note\.md\n {2}record [0-9a-f]{8}-/m);
    expect(lines.at(-1)).toMatch(/^hint: with --strict nothing may be left out/);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('asset identity up front (issue 15, problem 5)', () => {
  it('without --state or --asset-id: a warning that the build mints a new asset id (stderr and report)', async () => {
    const tmp = tempDir();
    const [plain, json] = await Promise.all([
      runCli(['build', FIXTURE, '-o', join(tmp, 'a.octx'), '--name', 'TK']),
      runCli(['build', FIXTURE, '-o', join(tmp, 'b.octx'), '--name', 'TK', '--json']),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toMatch(/^warning\[OCTX_ASSET_ID_EPHEMERAL\]: neither --state nor --asset-id was given, so this build mints a new asset id/);
    expect(plain.stderr).toMatch(/\n {2}field asset-id\n/);
    // The advice names the id this package got, so the next build can keep it.
    const minted = /^ {2}asset {9}([0-9a-f-]{36}) /m.exec(plain.stdout)?.[1];
    expect(minted).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(plain.stderr).toContain(`pass --asset-id ${minted} (this package's id) to the next builds or --state <file>`);
    const doc = jsonOf(json);
    expect((doc.report as { warnings: { code: string }[] }).warnings.map((w) => w.code)).toEqual(['OCTX_ASSET_ID_EPHEMERAL']);
  });

  it('--asset-id keeps the asset across builds, silently', async () => {
    const tmp = tempDir();
    const [a, b] = await Promise.all([
      runCli(['build', FIXTURE, '-o', join(tmp, 'a.octx'), '--name', 'TK', '--asset-id', ASSET, '--json']),
      runCli(['build', FIXTURE, '-o', join(tmp, 'b.octx'), '--name', 'TK', '--asset-id', ASSET, '--json']),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect([jsonOf(a).assetId, jsonOf(b).assetId]).toEqual([ASSET, ASSET]);
    expect((jsonOf(a).report as { warnings: unknown[] }).warnings).toEqual([]);
  });

  it('a malformed --asset-id is a usage error; --strict without an identity is refused before reading', async () => {
    const tmp = tempDir();
    const [bad, strict] = await Promise.all([
      runCli(['build', FIXTURE, '-o', join(tmp, 'a.octx'), '--name', 'TK', '--asset-id', 'not-a-uuid']),
      runCli(['build', manyDocuments(1), '-o', join(tmp, 'b.octx'), '--name', 'TK', '--strict']),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: --asset-id must be a canonical lower-case UUIDv7.*\n {2}field asset-id\n/);
    expect(strict.code).toBe(1);
    // The broken document was never read: the identity check came first.
    expect(strict.stderr).not.toContain('OCTX_DOCUMENT_FRONTMATTER');
    expect(strict.stderr.split('\n').slice(0, 3)).toEqual([
      'error[OCTX_STRICT_VIOLATION]: --strict: the build would mint a new asset id; nothing was read or written',
      expect.stringMatching(/^error\[OCTX_ASSET_ID_EPHEMERAL\]: neither --state nor --asset-id was given.*pass --asset-id <uuidv7> or --state <file>$/),
      '  field asset-id',
    ]);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('limits up front (issue 15, problem 5)', () => {
  it('10,000 documents: refused from the folder listing before any file is read, with the CLI flags as the hint', async () => {
    const dir = manyDocuments(9_999); // + the broken one = 10,000 documents, + manifest = 10,001 entries
    const tmp = tempDir();
    const started = performance.now();
    const r = await runCli(['build', dir, '-o', join(tmp, 'x.octx'), '--name', 'Many', '--asset-id', ASSET]);
    const ms = performance.now() - started;
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('OCTX_DOCUMENT_FRONTMATTER'); // the broken document was never read
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'error[OCTX_RESOURCE_LIMIT]: the folder lists 10000 document and extension file(s), so the package would have at least 10001 entries (with its manifest), over maxEntries 10000: consumers with these limits would refuse the package; nothing was read',
    );
    expect(lines.at(-1)).toMatch(/^hint: .*--max-entries <n> or --limits <file\.json>/);
    expect(r.stderr).not.toContain('export({');
    expect(readdirSync(tmp)).toEqual([]);
    console.log(`10,000-document folder refused in ${Math.round(ms)} ms (CLI start included)`);
  });

  it('--max-entries and --limits set the limits (checked first), and are validated', async () => {
    const dir = manyDocuments(4);
    const clean = manyDocuments(4, false);
    const tmp = tempDir();
    const limits = join(tmp, 'limits.json');
    writeFileSync(limits, JSON.stringify({ maxEntries: 3, maxFileSize: 1_000_000 }));
    const typo = join(tmp, 'typo.json');
    writeFileSync(typo, JSON.stringify({ maxEntry: 3 }));
    const [low, fromFile, raised, badValue, badKey] = await Promise.all([
      runCli(['build', dir, '-o', join(tmp, 'a.octx'), '--name', 'T', '--asset-id', ASSET, '--max-entries', '4']),
      runCli(['build', dir, '-o', join(tmp, 'b.octx'), '--name', 'T', '--asset-id', ASSET, '--limits', limits, '--json']),
      runCli(['build', clean, '-o', join(tmp, 'c.octx'), '--name', 'T', '--asset-id', ASSET, '--limits', limits, '--max-entries', '20000', '--json']),
      runCli(['build', dir, '-o', join(tmp, 'd.octx'), '--name', 'T', '--max-entries', '0']),
      runCli(['build', dir, '-o', join(tmp, 'e.octx'), '--name', 'T', '--limits', typo]),
    ]);
    expect(low.code).toBe(1);
    expect(low.stderr).toMatch(/^error\[OCTX_RESOURCE_LIMIT\]: the folder lists 5 document .* over maxEntries 4/);
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toMatch(/over maxEntries 3/);
    // --json: the error's message is in CLI terms too (the CLI flags, not export({ limits })).
    const error = (jsonOf(fromFile) as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe('OCTX_RESOURCE_LIMIT');
    expect(error.message).toContain('pass --max-entries <n> or --limits <file.json>');
    expect(JSON.stringify(error)).not.toContain('export({');
    expect(raised.code).toBe(0); // --max-entries wins over the file's maxEntries
    expect((jsonOf(raised).report as { documents: { concepts: number } }).documents.concepts).toBe(4);
    expect(badValue.code).toBe(2);
    expect(badValue.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: --max-entries must be a positive integer \(got "0"\)\n {2}field max-entries\n/);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: --limits .*typo\.json: unknown limit "maxEntry"; known limits: maxEntries, /);
    expect(badKey.stderr).toMatch(/\n {2}field limits\n/);
    expect(existsSync(join(tmp, 'c.octx'))).toBe(true);
  });

  it('SDK: loadWorkdir(builder, dir, { limits }) refuses from the listing, naming the SDK options', async () => {
    const dir = manyDocuments(3);
    const b = new PackageBuilder({ asset: { name: 'T' } });
    const e = await failureAsync(loadWorkdir(b, dir, { limits: { maxEntries: 4 } }));
    expect(e.code).toBe('OCTX_RESOURCE_LIMIT');
    expect(e.message).toContain('pass export({ limits }) (and loadWorkdir(builder, dir, { limits }))');
    // Sizes come from the listing too: one file over maxFileSize is refused before it is read.
    writeFileSync(join(dir, 'knowledge/zz-broken.md'), `---\ntype: [unclosed\n---\n${'x'.repeat(2000)}\n`);
    const big = await failureAsync(loadWorkdir(b, dir, { limits: { maxFileSize: 1000 } }));
    expect(big.issues).toEqual([expect.objectContaining({ code: 'OCTX_RESOURCE_LIMIT', path: 'knowledge/zz-broken.md' })]);
    await b.dispose();
    // Within the limits, the broken file is read and refused for what it is.
    const c = new PackageBuilder({ asset: { name: 'T' } });
    expect((await failureAsync(loadWorkdir(c, dir))).code).toBe('OCTX_DOCUMENT_FRONTMATTER');
    await c.dispose();
    expect((await validatePackage(FIXTURE)).valid).toBe(false); // a working folder is no package (no manifest)
  });
});
