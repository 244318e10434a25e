import type { SpilledEntry } from './payload-spill.js';

/**
 * Where a payload file's bytes are, as the planner hands them to the writer:
 * - `bytes`: small files made at export time (e.g. `vectors/config.json`);
 * - `file` with its CRC-32: a finished file stored as it is (an Arrow target);
 * - `spilled`: bytes collected into a {@link PayloadSpill}, already hashed, cut into blocks and
 *   (mostly) compressed.
 */
export type PayloadSource = { readonly bytes: Buffer } | { readonly file: string; readonly crc32: number } | { readonly spilled: SpilledEntry };
