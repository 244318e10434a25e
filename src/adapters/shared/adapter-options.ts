/**
 * Checking an adapter's options object: every adapter refuses an unknown key (with the key it
 * probably meant) and a value of the wrong type in one `OCTX_OPTIONS_INVALID` error, from one
 * zod object that lists its keys. The options every adapter may offer share their schema here.
 */
import { z } from 'zod';
import { OctxError, issue } from '../../model/errors.js';
import { assertKnownKeys } from '../../model/option-keys.js';
import { zodProblems } from './input-issues.js';

/**
 * The schema of the options adapters have in common, to spread into an adapter's own
 * `z.object({...})` in the place its key should take in the list of known keys.
 * - `documentType`: frontmatter `type` for documents that have none;
 * - `documentPath`: the caller's package path for a source document (its arguments are the adapter's);
 * - `locate`: where input object `index` came from, for issues (see `locatorOf` in `json-input.ts`);
 * - `documentsOnly`: read only what becomes documents (the export is documents-only anyway);
 * - `requireStructure`: refuse input that cannot become a complete structure, instead of
 *   reporting it and leaving the export to omit the structure layer.
 */
export const ADAPTER_OPTION_SHAPES = {
  documentType: z.string().min(1).optional(),
  documentPath: z.function().optional(),
  locate: z.function().optional(),
  documentsOnly: z.boolean().optional(),
  requireStructure: z.boolean().optional(),
} as const;

/** The TypeScript side of the common options whose type does not depend on the adapter (see {@link ADAPTER_OPTION_SHAPES}). */
export interface CommonAdapterOptions {
  /** Frontmatter `type` for documents that have none (default `Document`). */
  readonly documentType?: string;
  /** Read only what becomes documents; no structure. */
  readonly documentsOnly?: boolean;
  /** Refuse input that cannot become a complete structure (`OCTX_ADAPTER_INPUT_INVALID`) instead of reporting it. */
  readonly requireStructure?: boolean;
}

/**
 * Checks an adapter's options against its schema: unknown keys first (each named, with the key
 * probably meant), then every value that does not match (`<field> <message>`).
 * @param what the options' name for messages: `fromRag options`
 * @returns `options`, unchanged (functions and byte arrays the caller gave are kept as given)
 * @throws OctxError `OCTX_OPTIONS_INVALID`
 */
export function checkAdapterOptions<T>(options: T, schema: z.ZodObject, what: string): T {
  assertKnownKeys(options, Object.keys(schema.shape), what);
  const parsed = schema.safeParse(options);
  if (!parsed.success) {
    throw OctxError.aggregate(
      'OCTX_OPTIONS_INVALID',
      `${what} are invalid:`,
      zodProblems(parsed.error).map((d) => issue({ code: 'OCTX_OPTIONS_INVALID', field: d.field, message: `${d.field} ${d.message}` })),
    );
  }
  return options;
}
