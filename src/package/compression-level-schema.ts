import type { z as Z } from 'zod';
import { MAX_COMPRESSION_LEVEL, MIN_COMPRESSION_LEVEL } from './compression-level.js';

/**
 * zod schema of a compression level (an integer from 0 to 9), for option schemas, built with the
 * zod it is given (option schemas are built with zod loaded on demand, issue 23 item 5). Its own
 * file so that code which only checks a level (the CLI) does not need it.
 */
export function compressionLevelSchema(z: typeof Z): Z.ZodNumber {
  return z.number().int().min(MIN_COMPRESSION_LEVEL).max(MAX_COMPRESSION_LEVEL);
}
