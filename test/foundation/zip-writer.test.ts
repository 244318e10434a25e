import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeZip } from '../../src/package/zip-writer.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';

describe('writeZip', () => {
  it('switches to ZIP64 records when the entry count needs it', async () => {
    const out = join(tempDir(), 'many.zip');
    const n = 65_600;
    const entries = Array.from({ length: n }, (_, i) => ({ name: `knowledge/e${i}.md`, source: { bytes: Buffer.from(`# ${i}\n`) }, size: `# ${i}\n`.length, store: true }));
    await writeZip(out, entries, { level: 6 });
    const bytes = readFileSync(out);
    const eocd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    expect(bytes.readUInt16LE(eocd + 10)).toBe(0xffff); // legacy count saturated …
    expect(bytes.readUInt32LE(eocd - 20)).toBe(0x07064b50); // … and a ZIP64 locator precedes the EOCD
    const read = inspectZip(bytes);
    expect(read).toHaveLength(n);
    expect(read[n - 1]!.data.toString()).toBe(`# ${n - 1}\n`);
  }, 120_000);

  it('reports a source that changed size while it was archived', async () => {
    const out = join(tempDir(), 'x.zip');
    await expect(writeZip(out, [{ name: 'a', source: { bytes: Buffer.from('abc') }, size: 4, store: false }], { level: 6 })).rejects.toMatchObject({ code: 'OCTX_IO_ERROR' });
  });

  it('passes a failing source stream to the caller instead of hanging', async () => {
    const out = join(tempDir(), 'y.zip');
    await expect(writeZip(out, [{ name: 'a', source: { file: join(tempDir(), 'missing') }, size: 1, store: false }], { level: 6 })).rejects.toMatchObject({ code: 'OCTX_IO_ERROR', cause: { code: 'ENOENT' } });
  });
});
