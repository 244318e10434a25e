import { z } from 'zod';
import { MAX_COMPRESSION_LEVEL, MIN_COMPRESSION_LEVEL } from './compression-level.js';

/**
 * zod schema of a compression level (an integer from 0 to 9), for option schemas. Its own file so
 * that code which only checks a level (the CLI) does not load zod.
 */
export const compressionLevelSchema = z.number().int().min(MIN_COMPRESSION_LEVEL).max(MAX_COMPRESSION_LEVEL);
