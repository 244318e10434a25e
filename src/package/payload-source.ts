import type { SpilledEntry } from './payload-spill.js';

/**
 * A DEFLATE stream copied as it is from an entry of another archive (a shard's document, at a
 * merge): where its bytes are, and the CRC-32 and size of what they inflate to. Whoever hands one
 * to the writer has checked those bytes (inflated, hashed against the manifest digest and CRC-32);
 * the writer copies them without inflating them again, and the export's verification re-reads
 * the result like every other entry.
 */
export interface CopiedDeflate {
  /** The archive holding the stream. */
  readonly file: string;
  /** Offset of the stream's first byte in `file`. */
  readonly offset: number;
  readonly compressedSize: number;
  /** Size and CRC-32 of the inflated bytes. */
  readonly size: number;
  readonly crc32: number;
}

/** An entry of another archive to write as it is: its DEFLATE stream and the SHA-256 of its inflated bytes. */
export interface CopiedFile {
  readonly stream: CopiedDeflate;
  readonly sha256: string;
}

/**
 * Where a payload file's bytes are, as the planner hands them to the writer:
 * - `bytes`: small files made at export time (e.g. `vectors/config.json`);
 * - `file` with its CRC-32: a finished file stored as it is (an Arrow target);
 * - `spilled`: bytes collected into a {@link PayloadSpill}, already hashed, cut into blocks and
 *   (mostly) compressed;
 * - `copied`: an already-compressed entry of another archive, written as it is (always deflated).
 */
export type PayloadSource =
  { readonly bytes: Buffer } | { readonly file: string; readonly crc32: number } | { readonly spilled: SpilledEntry } | { readonly copied: CopiedDeflate };
