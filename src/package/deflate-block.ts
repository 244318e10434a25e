import { constants, deflateRaw, type ZlibOptions } from 'node:zlib';

/**
 * Entries are compressed in independent blocks, the way pigz does it, so several blocks of one
 * entry can be deflated at once on the libuv pool while the caller is still adding records:
 * - every block is raw DEFLATE ended with a sync flush (an empty stored block, not final), so
 *   blocks concatenate into one valid stream;
 * - every block but an entry's first is primed with the last 32 KiB of the raw bytes before it
 *   (its dictionary), so back-references across the boundary still work and the ratio stays
 *   within a fraction of a percent of one-shot deflate;
 * - {@link DEFLATE_END} closes the stream.
 * Block boundaries depend only on the bytes written, never on timing, so output is reproducible.
 */

/** Raw bytes per block (the last block of an entry may be shorter). */
export const BLOCK_BYTES = 1 << 20;

/** DEFLATE's window: the most history a block can refer back to. */
export const DICTIONARY_BYTES = 32 * 1024;

/** A final, empty fixed-Huffman block (BFINAL=1, BTYPE=01, end-of-block): ends a block stream. */
export const DEFLATE_END: Buffer = Buffer.from([0x03, 0x00]);

function optionsFor(raw: Buffer, level: number, dictionary: Buffer | undefined): ZlibOptions {
  return { level, finishFlush: constants.Z_SYNC_FLUSH, chunkSize: outputChunkBytes(raw.length), ...(dictionary && dictionary.length > 0 ? { dictionary } : {}) };
}

/**
 * zlib's output buffer for a block of `rawBytes`: room for its whole deflated form (zlib's worst
 * case, stored blocks, adds 5 bytes per 16 KiB, plus the sync flush), so a block is one pool job.
 * With the default 16 KiB chunk every 16 KiB of output went back to the main thread for a new
 * buffer before the pool thread could go on.
 */
export function outputChunkBytes(rawBytes: number): number {
  return Math.max(64, rawBytes + 5 * Math.ceil(rawBytes / 16384) + 64);
}

/** Deflates one block on the libuv thread pool. */
export function deflateBlock(raw: Buffer, dictionary: Buffer | undefined, level: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    deflateRaw(raw, optionsFor(raw, level, dictionary), (err, out) => (err ? reject(err) : resolve(out)));
  });
}
