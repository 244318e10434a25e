import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { StreamedPayload } from '../../src/export/archive-writer.js';

/**
 * A streamed payload (an Arrow file, for `writeArchive`) of `bytes`, written once `gate` resolves:
 * lets a test hold the Arrow writing while it watches what runs beside it.
 */
export function gatedStreamed(path: string, bytes: Buffer, gate: () => Promise<void> = async () => undefined): StreamedPayload {
  return {
    path,
    sizeBound: bytes.length,
    write: async ({ handle, position }) => {
      await gate();
      if (bytes.length > 0) await handle.write(bytes, 0, bytes.length, position);
      return { size: bytes.length, crc32: crc32(bytes), sha256: createHash('sha256').update(bytes).digest('hex') };
    },
  };
}
