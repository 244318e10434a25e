import { OctxError } from '../model/errors.js';

/**
 * The zlib level of text entries: one definition for the builder, `export()`, `repackPackage` and
 * the CLI. 0 stores every entry; 1–9 deflate (each entry is still stored when deflate would not
 * shrink it, see the archive writer).
 */

/** zlib level used for text entries unless the caller chooses one. */
export const DEFAULT_COMPRESSION_LEVEL = 6;

/** The lowest and highest zlib level. */
export const MIN_COMPRESSION_LEVEL = 0;
export const MAX_COMPRESSION_LEVEL = 9;

/**
 * True when `value` is an integer from 0 to 9. Checked by hand, not with zod: the CLI loads this
 * file for every command, and zod costs ~10 MiB of RSS (its schema: compression-level-schema.ts).
 */
export function isCompressionLevel(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= MIN_COMPRESSION_LEVEL && value <= MAX_COMPRESSION_LEVEL;
}

/**
 * `value`, or the default when it is `undefined`.
 * @throws OctxError `OCTX_OPTIONS_INVALID` naming `field` when it is not an integer from 0 to 9
 */
export function resolveCompressionLevel(value: unknown, field = 'compressionLevel'): number {
  const level = value ?? DEFAULT_COMPRESSION_LEVEL;
  if (!isCompressionLevel(level)) {
    // Any caller value: String() shows 12, 1.5, NaN, Infinity, x as written (JSON.stringify would not).
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    const got = String(level);
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field, message: `${field} must be an integer from ${MIN_COMPRESSION_LEVEL} to ${MAX_COMPRESSION_LEVEL} (got ${got})` });
  }
  return level;
}
