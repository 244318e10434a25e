/**
 * The ZIP writer reads segments of at most 64 KiB with
 * `fs.readSync` instead of the file handle. A failing synchronous read (EIO) or a source that
 * cannot be read at an offset (a FIFO: ESPIPE) must still end as a typed `OCTX_IO_ERROR`, and
 * closing the assembler must leave no descriptor open.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const io = vi.hoisted(() => ({ failReads: false, syncReads: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  return {
    ...real,
    readSync: (...args: Parameters<typeof real.readSync>): number => {
      io.syncReads++;
      if (io.failReads) throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' });
      return (real.readSync as (...a: Parameters<typeof real.readSync>) => number)(...args);
    },
  };
});
const { ZipAssembler } = await import('../../src/package/zip-assembler.js');

const openDescriptors = (): number => fs.readdirSync('/proc/self/fd').length;

describe.runIf(process.platform === 'linux')('ZipAssembler synchronous segment reads', () => {
  it('turns an EIO of a synchronous read into OCTX_IO_ERROR and closes every descriptor', async () => {
    const dir = tempDir();
    const source = join(dir, 'segment');
    fs.writeFileSync(source, Buffer.alloc(1000, 7));
    const before = openDescriptors();
    const zip = await ZipAssembler.create(join(dir, 'out.zip'));
    io.failReads = true;
    io.syncReads = 0;
    try {
      await expect(
        zip.add({ name: 'a', method: 'store', crc32: 0, size: 1000, compressedSize: 1000, segments: [{ file: source, offset: 0, length: 1000 }] }),
      ).rejects.toMatchObject({ code: 'OCTX_IO_ERROR', message: expect.stringMatching(/EIO/) });
      expect(io.syncReads).toBe(1);
    } finally {
      io.failReads = false;
      await zip.close();
    }
    expect(openDescriptors()).toBe(before);
  });

  it('refuses a FIFO as a segment source with OCTX_IO_ERROR', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    // A writer, so that opening the FIFO for reading does not wait forever.
    const writer = spawn('sh', ['-c', `head -c 2000 /dev/zero > "$1"`, 'sh', fifo], { stdio: 'ignore' });
    const zip = await ZipAssembler.create(join(dir, 'out.zip'));
    try {
      await expect(zip.add({ name: 'f', method: 'store', crc32: 0, size: 1000, compressedSize: 1000, segments: [{ file: fifo, offset: 0, length: 1000 }] })).rejects.toMatchObject({
        code: 'OCTX_IO_ERROR',
      });
    } finally {
      await zip.close();
      writer.kill();
    }
  });
});
