import type { FileHandle } from 'node:fs/promises';

/**
 * Writes all of `bytes` at `position`, continuing after short writes (a positional write may
 * take fewer bytes than asked, e.g. near a quota or on some file systems).
 */
export async function writeFully(out: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let written = 0;
  while (written < bytes.byteLength) {
    const { bytesWritten } = await out.write(bytes, written, bytes.byteLength - written, position + written);
    written += bytesWritten;
  }
}
