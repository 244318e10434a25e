/**
 * How the folder loader reads a file it listed: a small one with synchronous calls, a large one
 * with `readFile`.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/**
 * Files up to this size (by the listing) are read synchronously. `readFile` is four round trips
 * through the libuv pool (open, stat, read, close), each paid on the caller's thread too: for a
 * page of a few hundred bytes that is most of its cost, where the system calls themselves take
 * microseconds (figures in BENCHMARKS.md).
 */
export const SYNC_READ_BYTES = 64 * 1024;

/**
 * The bytes of the file at `path`, whose size was `listedSize` when the folder was listed (the
 * file may have changed since: what is read is what it holds now).
 */
export async function readListedFile(path: string, listedSize: number | undefined): Promise<Uint8Array> {
  if (listedSize === undefined || listedSize > SYNC_READ_BYTES) return readFile(path);
  // (An error of the synchronous read rejects the promise, as readFile's would.)
  return readRegularFileSync(path) ?? readFile(path);
}

/**
 * The whole file, read synchronously, or `undefined` when `path` is no longer a regular file.
 * Opened non-blocking, so a FIFO put in a page's place since the listing does not block the
 * thread at open (it is then left to `readFile`, as any file was before).
 */
function readRegularFileSync(path: string): Uint8Array | undefined {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    let buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    for (;;) {
      // A file that grew since its stat: read on until the end, as readFile does.
      if (n === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(Math.max(4096, buf.length))]);
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) return buf.subarray(0, n);
      n += got;
    }
  } finally {
    closeSync(fd);
  }
}
