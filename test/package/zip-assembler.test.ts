import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import yauzl from 'yauzl';
import { ZipAssembler, type StreamTarget, type ZipEntryData } from '../../src/package/zip-assembler.js';
import { assembleZip } from '../helpers/assemble-zip.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';

/** Descriptors of this process open on `src-*` files of `dir` (Linux: /proc/self/fd). */
function openSources(dir: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(join(dir, 'src-'));
    } catch {
      return false;
    }
  }).length;
}

function stored(name: string, content: string | Buffer): ZipEntryData {
  const bytes = Buffer.from(content);
  return { name, method: 'store', crc32: crc32(bytes), size: bytes.length, compressedSize: bytes.length, segments: [{ bytes }] };
}

function deflated(name: string, content: string | Buffer): ZipEntryData {
  const bytes = Buffer.from(content);
  const d = deflateRawSync(bytes);
  return { name, method: 'deflate', crc32: crc32(bytes), size: bytes.length, compressedSize: d.length, segments: [{ bytes: d }] };
}

/** Reads every entry with yauzl (an independent reader), checking its CRC-32 against the data. */
async function readWithYauzl(path: string): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true }, (e, z) => (e ? reject(e) : resolve(z))),
  );
  const out = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const parts: Buffer[] = [];
        stream.on('data', (c: Buffer) => parts.push(c));
        stream.on('error', reject);
        stream.on('end', () => {
          const data = Buffer.concat(parts);
          if (crc32(data) >>> 0 !== entry.crc32) reject(new Error(`CRC mismatch in ${entry.fileName}`));
          out.set(entry.fileName, data);
          zip.readEntry();
        });
      });
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return out;
}

describe('assembleZip', () => {
  it('writes entries in order with fixed headers: 1980 timestamp, Unix 0644, UTF-8 flag only for non-ASCII names, no data descriptors', async () => {
    const out = join(tempDir(), 'a.zip');
    await assembleZip(out, [stored('manifest.json', '{}'), deflated('knowledge/赤壁.md', '# 赤壁\n'.repeat(50)), stored('empty.txt', '')]);
    const entries = inspectZip(out);
    expect(entries.map((e) => e.name)).toEqual(['manifest.json', 'knowledge/赤壁.md', 'empty.txt']);
    for (const e of entries) {
      expect(e.dosDate).toBe(0x21);
      expect(e.dosTime).toBe(0);
      expect(e.versionMadeBy >> 8).toBe(3);
      expect(e.externalAttributes >>> 16).toBe(0o100644);
      expect(e.flags & 0x8).toBe(0); // no data descriptor
      expect(e.localFlags).toBe(e.flags);
      expect(e.localMethod).toBe(e.method);
      expect(e.crc32 >>> 0).toBe(crc32(e.data) >>> 0);
    }
    expect(entries.map((e) => e.flags & 0x800)).toEqual([0, 0x800, 0]);
    expect(entries.map((e) => e.method)).toEqual([0, 8, 0]);
    expect(entries[1]!.data.toString()).toBe('# 赤壁\n'.repeat(50));
    const bytes = readFileSync(out);
    // The local header starts the file and carries the real sizes (no ZIP64 needed here).
    expect(bytes.readUInt32LE(0)).toBe(0x04034b50);
    expect(bytes.readUInt32LE(18)).toBe(2);
    expect(bytes.readUInt32LE(22)).toBe(2);
    expect([...(await readWithYauzl(out)).keys()]).toEqual(['manifest.json', 'knowledge/赤壁.md', 'empty.txt']);
  });

  it('copies file segments: ranges of spill files, in order', async () => {
    const dir = tempDir();
    const file = join(dir, 'spill');
    const content = Buffer.from('0123456789abcdefghij');
    writeFileSync(file, content);
    const data = Buffer.concat([content.subarray(3, 8), content.subarray(10, 20)]);
    const out = join(dir, 'b.zip');
    await assembleZip(out, [
      {
        name: 'x',
        method: 'store',
        crc32: crc32(data),
        size: data.length,
        compressedSize: data.length,
        segments: [
          { file, offset: 3, length: 5 },
          { file, offset: 10, length: 10 },
        ],
      },
    ]);
    expect(inspectZip(out)[0]!.data.equals(data)).toBe(true);
  });

  it('writes ZIP64 extra fields on every entry when forced, readable by yauzl', async () => {
    const out = join(tempDir(), 'z64.zip');
    await assembleZip(out, [stored('manifest.json', '{"a":1}'), deflated('b.md', 'hello '.repeat(100))], { forceZip64: true });
    const bytes = readFileSync(out);
    // Local header: sizes saturated, ZIP64 extra (id 1, 16 bytes) holds both.
    expect(bytes.readUInt32LE(18)).toBe(0xffffffff);
    expect(bytes.readUInt32LE(22)).toBe(0xffffffff);
    expect(bytes.readUInt16LE(4)).toBe(45);
    const nameLength = bytes.readUInt16LE(26);
    expect(bytes.readUInt16LE(30 + nameLength)).toBe(1);
    expect(bytes.readUInt16LE(32 + nameLength)).toBe(16);
    expect(Number(bytes.readBigUInt64LE(34 + nameLength))).toBe(7);
    const read = await readWithYauzl(out);
    expect(read.get('b.md')!.toString()).toBe('hello '.repeat(100));
    expect(inspectZip(out).map((e) => [e.size, e.localHeaderOffset])).toEqual([
      [7, 0],
      [600, 30 + 13 + 20 + 7],
    ]);
  });

  it('switches to ZIP64 end records when the entry count needs it', async () => {
    const out = join(tempDir(), 'many.zip');
    const n = 65_600;
    await assembleZip(
      out,
      Array.from({ length: n }, (_, i) => stored(`knowledge/e${i}.md`, `# ${i}\n`)),
    );
    const bytes = readFileSync(out);
    const eocd = bytes.length - 22;
    expect(bytes.readUInt32LE(eocd)).toBe(0x06054b50);
    expect(bytes.readUInt16LE(eocd + 10)).toBe(0xffff); // legacy count saturated …
    expect(bytes.readUInt32LE(eocd - 20)).toBe(0x07064b50); // … and a ZIP64 locator precedes the EOCD
    const z64 = Number(bytes.readBigUInt64LE(eocd - 20 + 8));
    expect(bytes.readUInt32LE(z64)).toBe(0x06064b50);
    expect(Number(bytes.readBigUInt64LE(z64 + 32))).toBe(n);
    // Legacy fields that fit keep their real values (consistent with the ZIP64 record).
    expect(bytes.readUInt32LE(eocd + 16)).toBe(Number(bytes.readBigUInt64LE(z64 + 48)));
    const read = inspectZip(bytes);
    expect(read).toHaveLength(n);
    expect(read[n - 1]!.data.toString()).toBe(`# ${n - 1}\n`);
  }, 120_000);

  it('never replaces an existing file', async () => {
    const out = join(tempDir(), 'exists.zip');
    writeFileSync(out, 'keep me');
    await expect(assembleZip(out, [stored('a', 'x')])).rejects.toMatchObject({ code: 'OCTX_IO_ERROR', cause: { code: 'EEXIST' } });
    expect(readFileSync(out, 'utf8')).toBe('keep me');
  });

  it('reports a source that is shorter than declared, and a missing one', async () => {
    const dir = tempDir();
    const file = join(dir, 'short');
    writeFileSync(file, 'abc');
    await expect(
      assembleZip(join(dir, 'x.zip'), [{ name: 'a', method: 'store', crc32: 0, size: 10, compressedSize: 10, segments: [{ file, offset: 0, length: 10 }] }]),
    ).rejects.toMatchObject({
      code: 'OCTX_IO_ERROR',
      message: expect.stringMatching(/a changed while it was archived/),
    });
    // Segments over 64 KiB are read asynchronously, smaller ones synchronously: both notice.
    const longer = join(dir, 'longer');
    writeFileSync(longer, Buffer.alloc(100 * 1024, 1));
    await expect(
      assembleZip(join(dir, 'w.zip'), [
        { name: 'b', method: 'store', crc32: 0, size: 300 * 1024, compressedSize: 300 * 1024, segments: [{ file: longer, offset: 0, length: 300 * 1024 }] },
      ]),
    ).rejects.toMatchObject({
      code: 'OCTX_IO_ERROR',
      message: expect.stringMatching(/b changed while it was archived: its source ended 204800 bytes early/),
    });
    await expect(
      assembleZip(join(dir, 'y.zip'), [{ name: 'a', method: 'store', crc32: 0, size: 1, compressedSize: 1, segments: [{ file: join(dir, 'missing'), offset: 0, length: 1 }] }]),
    ).rejects.toMatchObject({
      code: 'OCTX_IO_ERROR',
      cause: { code: 'ENOENT' },
    });
    await expect(assembleZip(join(dir, 'z.zip'), [{ ...stored('a', 'abc'), compressedSize: 4 }])).rejects.toMatchObject({
      code: 'OCTX_IO_ERROR',
      message: expect.stringMatching(/declared compressed size of 4/),
    });
  });

  it('stops with OCTX_ABORTED when cancelled', async () => {
    await expect(assembleZip(join(tempDir(), 'c.zip'), [stored('a', 'x')], { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'OCTX_ABORTED' });
  });

  it('copies from more source files than it keeps open, interleaved, each byte from its own file', async () => {
    const dir = tempDir();
    // 40 sources, visited twice in an order that evicts each before it comes back (16 stay open).
    const files = Array.from({ length: 40 }, (_, i) => {
      const file = join(dir, `src-${i}`);
      writeFileSync(file, Buffer.from(`head-${i}|${'body of source '.repeat(i + 1)}${i}`));
      return file;
    });
    const entries: ZipEntryData[] = [];
    const expected: Buffer[] = [];
    for (const round of [0, 1]) {
      for (const [i, file] of files.entries()) {
        const all = readFileSync(file);
        const part = all.subarray(round === 0 ? 0 : 5, round === 0 ? 5 : all.length);
        expected.push(part);
        entries.push({
          name: `e-${round}-${i}`,
          method: 'store',
          crc32: crc32(part),
          size: part.length,
          compressedSize: part.length,
          segments: [{ file, offset: round === 0 ? 0 : 5, length: part.length }],
        });
      }
    }
    const out = join(dir, 'many.zip');
    const zip = await ZipAssembler.create(out);
    let mostOpen = 0;
    for (const e of entries) {
      await zip.add(e);
      mostOpen = Math.max(mostOpen, openSources(dir));
    }
    await zip.finish();
    await zip.close();
    expect(mostOpen).toBe(16);
    expect(openSources(dir)).toBe(0);
    const read = await readWithYauzl(out);
    expect(entries.map((e) => read.get(e.name)!.toString())).toEqual(expected.map((b) => b.toString()));
  });

  it('produces DEFLATE data any inflater reads', async () => {
    const out = join(tempDir(), 'd.zip');
    const text = '曹操 and 刘备 at the river. '.repeat(1000);
    await assembleZip(out, [deflated('t.md', text)]);
    const e = inspectZip(out)[0]!;
    expect(e.compressedSize).toBeLessThan(e.size / 10);
    expect(inflateRawSync(readFileSync(out).subarray(30 + 4, 30 + 4 + e.compressedSize)).toString()).toBe(text);
  });
});

/** Python's zipfile (what the consumer reads packages with): every entry's CRC and its bytes as hex. */
function readWithPython(path: string): Record<string, string> {
  const script = [
    'import sys, zipfile, json',
    'z = zipfile.ZipFile(sys.argv[1])',
    'bad = z.testzip()',
    'assert bad is None, bad',
    'print(json.dumps({i.filename: z.read(i).hex() for i in z.infolist()}))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script, path], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 zipfile: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, string>;
}

/** A streamed writer: writes `bytes` at the target in pieces of 7 bytes, as a real producer would. */
function writeInPieces(bytes: Buffer): (target: StreamTarget) => Promise<{ size: number; crc32: number }> {
  return async ({ handle, position }) => {
    for (let off = 0; off < bytes.length; off += 7) {
      const piece = bytes.subarray(off, off + 7);
      await handle.write(piece, 0, piece.length, position + off);
    }
    return { size: bytes.length, crc32: crc32(bytes) };
  };
}

describe('ZipAssembler: entries streamed into the archive', () => {
  it('writes the bytes where it says, completes the local header afterwards, and lists the central directory in the order given', async () => {
    const out = join(tempDir(), 's.zip');
    const arrow = Buffer.from('ARROW1\0\0'.repeat(40));
    const zip = await ZipAssembler.create(out);
    const streamed = await zip.addStreamed('vectors/chunks.arrow', 10_000, writeInPieces(arrow));
    expect(streamed).toMatchObject({ name: 'vectors/chunks.arrow', method: 'store', size: arrow.length, compressedSize: arrow.length, crc32: crc32(arrow) });
    await zip.add(deflated('knowledge/a.md', '# A\n'.repeat(30)));
    await zip.add(stored('manifest.json', '{"m":1}'));
    await zip.finish(['manifest.json', 'knowledge/a.md', 'vectors/chunks.arrow']);

    const entries = inspectZip(out);
    expect(entries.map((e) => e.name)).toEqual(['manifest.json', 'knowledge/a.md', 'vectors/chunks.arrow']);
    // Physically: the streamed entry first (offset 0), then the others in the order added.
    expect(entries.map((e) => e.localHeaderOffset)).toEqual([entries[2]!.compressedSize + 30 + 20 + entries[1]!.compressedSize + 30 + 14, 30 + 20 + arrow.length, 0]);
    const bytes = readFileSync(out);
    // The streamed entry's local header carries its real CRC and sizes (no data descriptor).
    expect(bytes.readUInt16LE(6) & 0x8).toBe(0);
    expect(bytes.readUInt32LE(14)).toBe(crc32(arrow) >>> 0);
    expect(bytes.readUInt32LE(18)).toBe(arrow.length);
    expect(bytes.readUInt32LE(22)).toBe(arrow.length);
    expect(bytes.subarray(50, 50 + arrow.length).equals(arrow)).toBe(true);
    expect(entries[2]!.data.equals(arrow)).toBe(true);
    const read = await readWithYauzl(out);
    expect(read.get('vectors/chunks.arrow')!.equals(arrow)).toBe(true);
    expect(readWithPython(out)).toEqual({
      'manifest.json': Buffer.from('{"m":1}').toString('hex'),
      'knowledge/a.md': Buffer.from('# A\n'.repeat(30)).toString('hex'),
      'vectors/chunks.arrow': arrow.toString('hex'),
    });
  });

  it('reserves ZIP64 fields before the bytes exist when the bound may reach 4 GiB, and fills them in', async () => {
    const out = join(tempDir(), 's64.zip');
    const arrow = Buffer.from('0123456789'.repeat(9));
    const zip = await ZipAssembler.create(out);
    await zip.addStreamed('vectors/events.arrow', 2 ** 32, writeInPieces(arrow));
    await zip.add(stored('manifest.json', '{}'));
    await zip.finish(['manifest.json', 'vectors/events.arrow']);
    const bytes = readFileSync(out);
    expect(bytes.readUInt16LE(4)).toBe(45);
    expect(bytes.readUInt32LE(18)).toBe(0xffffffff);
    expect(bytes.readUInt32LE(22)).toBe(0xffffffff);
    const nameLength = bytes.readUInt16LE(26);
    expect(bytes.readUInt16LE(30 + nameLength)).toBe(1);
    expect(Number(bytes.readBigUInt64LE(34 + nameLength))).toBe(arrow.length);
    expect(Number(bytes.readBigUInt64LE(42 + nameLength))).toBe(arrow.length);
    // The central directory agrees (ZIP64 sizes there too), and independent readers accept it.
    expect(
      inspectZip(out)
        .find((e) => e.name === 'vectors/events.arrow')!
        .data.equals(arrow),
    ).toBe(true);
    expect((await readWithYauzl(out)).get('vectors/events.arrow')!.equals(arrow)).toBe(true);
    expect(readWithPython(out)['vectors/events.arrow']).toBe(arrow.toString('hex'));
  });

  it("passes the streamed writer's exception through unchanged", async () => {
    const boom = new Error('the producer failed');
    const zip = await ZipAssembler.create(join(tempDir(), 'f.zip'));
    await expect(
      zip.addStreamed('vectors/chunks.arrow', 100, () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    await zip.close();
  });

  it('refuses a central directory order that does not list every entry once', async () => {
    const zip = await ZipAssembler.create(join(tempDir(), 'o.zip'));
    await zip.add(stored('a', 'x'));
    await zip.add(stored('b', 'y'));
    await expect(zip.finish(['a'])).rejects.toThrow(/every written entry once/);
    await zip.close();
  });

  it('reports a failed write of one buffer while the next one fills as OCTX_IO_ERROR (no unhandled rejection)', async () => {
    const probe = await open(join(tempDir(), 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const real = proto.write;
    let calls = 0;
    const eio = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', syscall: 'write' });
    vi.spyOn(proto, 'write').mockImplementation(function (this: unknown, ...args: unknown[]) {
      calls += 1;
      return calls === 1 ? Promise.reject(eio) : real.apply(this, args);
    });
    const dir = tempDir();
    const out = join(dir, 'eio.zip');
    const source = join(dir, 'source');
    writeFileSync(source, Buffer.alloc(3 << 20, 1));
    const entry: ZipEntryData = { name: 'big.bin', method: 'store', crc32: 0, size: 3 << 20, compressedSize: 3 << 20, segments: [{ file: source, offset: 0, length: 3 << 20 }] };
    let error: unknown;
    try {
      // 3 MiB copied from a file: the first buffer's write fails while the next one is read into.
      await assembleZip(out, [entry]);
    } catch (e) {
      error = e;
    } finally {
      vi.restoreAllMocks();
    }
    expect(error).toMatchObject({ code: 'OCTX_IO_ERROR', cause: { code: 'EIO' } });
    expect((error as Error).message).toContain(out);
  });
});
