/**
 * Per-row input digests: the optional `input_sha256` column of a vector target proves which text
 * a vector was computed from. The digest is SHA-256 over the UTF-8 bytes of the record's input
 * text — the config's `input_template` rendered for the record, then normalised: CRLF and lone
 * CR become LF, then Unicode NFC. Nothing is trimmed. The same normalised text is what
 * `PackageBuilder.embed` hands to the embedder, so the digest is of the exact text embedded.
 *
 * The recipe is declared in `vectors/config.json` as `input_hash` (see
 * {@link INPUT_HASH_DECLARATION}), so it takes part in the fingerprint; the template itself is
 * not repeated there: `input_template` stays its one source.
 */
import { hash } from 'node:crypto';
import { OctxError } from '../model/errors.js';
import { VECTOR_TARGET_PATHS } from '../model/paths.js';
import { INPUT_SHA256_PATTERN, VECTOR_COLUMNS } from '../model/vector-format.js';
import type { VectorConfigInput } from './config.js';
import type { VectorTarget } from './targets.js';
import { compileInputTemplate, templateForTarget, type InputTemplateRenderer } from './template.js';

/** Name of the optional Arrow column (utf8, non-null, 64 lower-case hex digits; `VECTOR_COLUMNS` in `model/vector-format.ts`). */
export const INPUT_SHA256_COLUMN = VECTOR_COLUMNS.inputSha256.name;

/** Shape of one `input_sha256` value (from `model/vector-format.ts`). */
export { INPUT_SHA256_PATTERN };

/**
 * The `input_hash` config value this library writes and understands. Its keys avoid every
 * forbidden token of the config rules (`normalization`/`normalize` are refused there, hence
 * `unicode_form`).
 */
export const INPUT_HASH_DECLARATION: Readonly<{ algorithm: 'sha256'; unicode_form: 'NFC'; newline: 'LF' }> = Object.freeze({
  algorithm: 'sha256',
  unicode_form: 'NFC',
  newline: 'LF',
});

/** Config key holding {@link INPUT_HASH_DECLARATION}. */
export const INPUT_HASH_KEY = 'input_hash';

const CR = /\r\n?/g;

/** The input text as embedded and hashed: CRLF/CR → LF, then Unicode NFC (no trimming). */
export function normalizeEmbeddingInput(text: string): string {
  return (text.includes('\r') ? text.replace(CR, '\n') : text).normalize('NFC');
}

/**
 * Lower-case hex SHA-256 of the UTF-8 bytes of an already normalised text. One-shot
 * `crypto.hash`: two to three times faster than a `createHash` object per record.
 */
export function sha256OfNormalized(normalized: string): string {
  return hash('sha256', normalized, 'hex');
}

/** The `input_sha256` of `text`: SHA-256 of its {@link normalizeEmbeddingInput} form. */
export function inputSha256(text: string): string {
  return sha256OfNormalized(normalizeEmbeddingInput(text));
}

/**
 * How `config` declares input digests: `'supported'` when `input_hash` equals
 * {@link INPUT_HASH_DECLARATION} exactly, `'absent'` when there is no `input_hash`, and
 * `'unknown'` for any other value (another recipe this library cannot recompute).
 */
export function inputHashDeclaration(config: object): 'supported' | 'absent' | 'unknown' {
  if (!Object.hasOwn(config, INPUT_HASH_KEY)) return 'absent';
  const v = (config as Record<string, unknown>)[INPUT_HASH_KEY];
  if (v === undefined) return 'absent';
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'unknown';
  const keys = Object.keys(v);
  const want = Object.keys(INPUT_HASH_DECLARATION) as (keyof typeof INPUT_HASH_DECLARATION)[];
  if (keys.length !== want.length) return 'unknown';
  return want.every((k) => (v as Record<string, unknown>)[k] === INPUT_HASH_DECLARATION[k]) ? 'supported' : 'unknown';
}

/**
 * How a target's input digests are recomputed: `{ render }` with the renderer, or `{ invalid }`
 * with why the config's `input_template` is unusable for `target` (a syntax error, a wrong shape,
 * no template for the target); `undefined` when the digests can only be checked for form (no
 * `input_template`, or not the `input_hash` recipe this library knows, see
 * {@link inputHashDeclaration}). The one condition shared by the validator and the export, so
 * the SDK never writes a digest the validator would recompute differently. An unusable template
 * under the known recipe is not "form only": the config claims digests that nobody can check.
 *
 * @param maxRenderedBytes largest rendered input of one record (`limits.maxRenderedInputBytes`)
 */
export function inputDigestRecipe(
  config: object | undefined,
  target: VectorTarget,
  maxRenderedBytes?: number,
): { readonly render: InputTemplateRenderer } | { readonly invalid: OctxError } | undefined {
  if (config === undefined || !Object.hasOwn(config, 'input_template') || inputHashDeclaration(config) !== 'supported') return undefined;
  try {
    return { render: compileInputTemplate(templateForTarget(config, target), maxRenderedBytes) };
  } catch (e) {
    if (e instanceof OctxError) return { invalid: e };
    throw e;
  }
}

/**
 * `config` with `input_hash` set to {@link INPUT_HASH_DECLARATION} (a copy; unchanged when it
 * already declares it).
 * @throws OctxError `OCTX_VECTOR_CONFIG_INVALID` (field `input_hash`) when it declares another recipe
 */
export function withInputHash(config: VectorConfigInput): VectorConfigInput {
  const how = inputHashDeclaration(config);
  if (how === 'supported') return config;
  if (how === 'unknown') {
    throw OctxError.of({
      code: 'OCTX_VECTOR_CONFIG_INVALID',
      field: INPUT_HASH_KEY,
      message: `input_hash must be ${JSON.stringify(INPUT_HASH_DECLARATION)} (the only recipe this library computes), or absent`,
    });
  }
  return { ...config, [INPUT_HASH_KEY]: { ...INPUT_HASH_DECLARATION } };
}

/**
 * A caller's precomputed digest, checked for form.
 * @throws OctxError `OCTX_VECTOR_INPUT_SHA256_INVALID` with the record id and field `input_sha256`
 */
export function checkInputSha256(value: unknown, target: VectorTarget, recordId: string): string {
  if (typeof value !== 'string' || !INPUT_SHA256_PATTERN.test(value)) {
    throw OctxError.of({
      code: 'OCTX_VECTOR_INPUT_SHA256_INVALID',
      path: VECTOR_TARGET_PATHS[target],
      recordId,
      field: INPUT_SHA256_COLUMN,
      message: 'inputSha256 must be 64 lower-case hex digits (the SHA-256 of the normalised input text)',
    });
  }
  return value;
}
