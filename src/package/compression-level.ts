import { z } from 'zod';
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

/** zod schema of a compression level, for option schemas. */
export const compressionLevelSchema = z.number().int().min(MIN_COMPRESSION_LEVEL).max(MAX_COMPRESSION_LEVEL);

/** True when `value` is an integer from 0 to 9. */
export function isCompressionLevel(value: unknown): value is number {
  return compressionLevelSchema.safeParse(value).success;
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
