/**
 * Whole reads and writes on a file descriptor at a position. `readSync`/`writeSync` may move fewer
 * bytes than asked (a signal, a pipe, a file system's own limit); the SDK's spill and stage files
 * need all of them or an error. Callers wrap the error in their own typed issue (which file, which
 * action).
 */
import { readSync, writeSync } from 'node:fs';

/** Writes `length` bytes of `buf` from `offset` at file position `position`, however many calls it takes. */
export function writeFullySync(fd: number, buf: Uint8Array, offset: number, length: number, position: number): void {
  let done = 0;
  while (done < length) done += writeSync(fd, buf, offset + done, length - done, position + done);
}

/**
 * Reads exactly `length` bytes at `position` into `buf` from `offset`, in reads of at most `chunk`
 * bytes; a file that ends first is an error naming the byte where it ended.
 */
export function readFullySync(fd: number, buf: Uint8Array, offset: number, length: number, position: number, chunk = length): void {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, offset + done, Math.min(chunk, length - done), position + done);
    if (n === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
    done += n;
  }
}
