/**
 * Memory is bounded by the limits, not by the input's shape (issue 16, item 2). A 1.8 MiB package
 * whose Concept Document holds a 250 MiB double-quoted YAML scalar in its frontmatter is inside
 * every default limit (file size, total size, compression ratio ~139:1); before the frontmatter
 * limit it made the YAML parser need gigabytes and the process died with a V8 heap OOM. Here the
 * reader (and the builder, given the same scalar) runs in a child process with a 512 MiB heap and
 * must refuse the document with a typed code and exit normally.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDeflateRaw, crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/temp.js';
import { DOC_ID, entriesOf, rawZip, tempDir, type RawEntry } from './helpers.js';

const MiB = 1024 * 1024;

/**
 * The hostile document, generated and DEFLATE-compressed as a stream (never held whole): a
 * frontmatter whose `title` is one double-quoted scalar of `scalarBytes` letters. A random letter
 * every ~1500 bytes keeps the compression ratio under the default limit of 200.
 */
async function hugeScalarDocument(scalarBytes: number): Promise<{ entry: RawEntry; sha256: string }> {
  const head = Buffer.from('---\ntype: Reference\ntitle: "');
  const tail = Buffer.from(`"\noctx:\n  document_id: ${DOC_ID}\n---\n\n# Big\n`);
  const deflate = createDeflateRaw({ level: 1 });
  const compressed: Buffer[] = [];
  deflate.on('data', (c: Buffer) => compressed.push(c));
  const ended = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const hash = createHash('sha256');
  let crc = 0;
  let size = 0;
  const put = async (b: Buffer): Promise<void> => {
    hash.update(b);
    crc = crc32(b, crc);
    size += b.length;
    if (!deflate.write(b)) await new Promise((resolve) => deflate.once('drain', resolve));
  };
  let seed = 1;
  const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  await put(head);
  for (let left = scalarBytes; left > 0; left -= MiB) {
    const chunk = Buffer.alloc(Math.min(MiB, left), 'a');
    for (let i = random() % 1500; i < chunk.length; i += 1500) chunk[i] = 0x61 + (random() % 26);
    await put(chunk);
  }
  await put(tail);
  deflate.end();
  await ended;
  const payload = Buffer.concat(compressed);
  return {
    entry: { name: 'knowledge/big.md', method: 8, payload, crc, compressedSize: payload.length, uncompressedSize: size },
    sha256: hash.digest('hex'),
  };
}

/** Runs `script` (ESM, repository root) under `node --max-old-space-size=512`; its stdout, parsed. */
function runUnder512(script: string): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--max-old-space-size=512', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, timeout: 110_000, maxBuffer: 16 * MiB },
      (error, stdout, stderr) => {
        const e = error as { code?: number; signal?: string } | null;
        resolve({ code: e ? (e.code ?? null) : 0, signal: e?.signal ?? null, stdout, stderr });
      },
    );
  });
}

describe('memory bounded by the limits (child process, 512 MiB heap)', () => {
  it('a 250 MiB frontmatter scalar is refused with OCTX_FRONTMATTER_TOO_LARGE by validatePackage and openPackage, and the process exits normally', async () => {
    const { entry, sha256 } = await hugeScalarDocument(250 * MiB);
    expect(entry.uncompressedSize).toBeGreaterThan(250 * MiB);
    // Inside every default limit: the size, and the per-entry compression ratio (≤ 200).
    expect(entry.uncompressedSize! / entry.compressedSize!).toBeLessThan(200);
    const files = entriesOf({
      files: { 'knowledge/big.md': '' },
      edit: (m) => {
        m.files[0].sha256 = sha256;
      },
    });
    const manifest = { name: 'manifest.json', data: files['manifest.json']! };
    const path = join(await tempDir(), 'big-scalar.octx');
    await writeFile(path, rawZip([manifest, entry]));

    const script = `
      import { openPackage, validatePackage } from './src/index.ts';
      const report = await validatePackage(${JSON.stringify(path)});
      const pkg = await openPackage(${JSON.stringify(path)});
      const opened = [];
      for await (const d of pkg.documents()) opened.push(...d.issues.map((i) => i.code));
      await pkg.close();
      const rss = process.resourceUsage().maxRSS;
      console.log(JSON.stringify({ valid: report.valid, issues: report.issues.map((i) => [i.code, i.path, i.field]), opened, rss }));`;
    const run = await runUnder512(script);
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { valid: boolean; issues: [string, string, string][]; opened: string[]; rss: number };
    expect(out.valid).toBe(false);
    // The document's digest and CRC checked out (every byte was read and verified), and the only
    // problem is the frontmatter's size.
    expect(out.issues).toEqual([['OCTX_FRONTMATTER_TOO_LARGE', 'knowledge/big.md', 'frontmatter']]);
    expect(out.opened).toEqual(['OCTX_FRONTMATTER_TOO_LARGE']);
  }, 120_000);

  it('addDocument refuses the same 250 MiB scalar with OCTX_FRONTMATTER_TOO_LARGE without parsing it', async () => {
    const script = `
      import { PackageBuilder } from './src/index.ts';
      const b = new PackageBuilder({ asset: { name: 'A' } });
      const markdown = '---\\ntype: Reference\\ntitle: "' + 'a'.repeat(${250 * MiB}) + '"\\n---\\n# T\\n';
      let code = 'accepted';
      try { b.addDocument({ path: 'big.md', markdown }); } catch (e) { code = e.code; }
      await b.dispose();
      console.log(JSON.stringify({ code }));`;
    const run = await runUnder512(script);
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ code: 'OCTX_FRONTMATTER_TOO_LARGE' });
  }, 120_000);
});
