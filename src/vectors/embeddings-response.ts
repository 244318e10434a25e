/**
 * The one reading of an OpenAI-compatible embeddings answer (`{ data: [{ index, embedding }] }`)
 * for a request of `expected` texts. It places each vector by its `index`, never by its position:
 * OpenAI's API reference lists `index` on every embedding object, and a server that answers out
 * of order (or an index that is a string, `null`, a fraction, repeated or out of range) would
 * otherwise give a record another record's vector while its `input_sha256` still matches its text,
 * a package the validator cannot tell from a correct one.
 */
import { MAX_VECTOR_DIMENSIONS } from './config.js';

/** Why an answer is unusable; `retry` says whether asking again may help (a truncated body may, a wrong index will not). */
export class EmbeddingsResponseError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** A JSON value, shortly, for a message. */
function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * The vectors of an answer, in request order.
 *
 * - the body is a JSON object whose `data` is an array of exactly `expected` objects;
 * - every object has an `index` that is a safe integer from 0 to `expected - 1`, each index
 *   exactly once (any order); an object without one is refused, not placed by position;
 * - every `embedding` is a non-empty array of finite numbers, all of one width, equal to
 *   `dimensions` when that is known and at most {@link MAX_VECTOR_DIMENSIONS}.
 *
 * Nothing is measured or kept from an answer that breaks a rule.
 * @throws EmbeddingsResponseError (`retry` only for a body that is not JSON: a truncated answer)
 */
export function parseEmbeddingsResponse(text: string, expected: number, dimensions: number | undefined): Float32Array[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new EmbeddingsResponseError(`malformed response body (not JSON, ${text.length} characters)`, true);
  }
  const data = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) throw new EmbeddingsResponseError(`the answer has no data array (got ${Array.isArray(parsed) ? 'an array' : typeof data})`, false);
  if (data.length !== expected) throw new EmbeddingsResponseError(`expected ${expected} embeddings, got ${data.length}`, false);
  const out = new Array<Float32Array | undefined>(expected);
  const from = new Array<number>(expected);
  let width = dimensions;
  for (let i = 0; i < data.length; i++) {
    const item: unknown = data[i];
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new EmbeddingsResponseError(`data[${i}] is not an object`, false);
    const { index, embedding } = item as { index?: unknown; embedding?: unknown };
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index >= expected) {
      throw new EmbeddingsResponseError(`data[${i}].index is ${shown(index)}; every embedding needs an integer index from 0 to ${expected - 1}`, false);
    }
    if (out[index] !== undefined) throw new EmbeddingsResponseError(`index ${index} appears twice (data[${from[index]}] and data[${i}])`, false);
    if (!Array.isArray(embedding) || embedding.length === 0) throw new EmbeddingsResponseError(`data[${i}].embedding is not a non-empty array of numbers`, false);
    width ??= embedding.length;
    if (embedding.length !== width) throw new EmbeddingsResponseError(`embedding ${index} has ${embedding.length} dimensions; expected ${width}`, false);
    if (width > MAX_VECTOR_DIMENSIONS) throw new EmbeddingsResponseError(`embedding ${index} has ${width} dimensions; at most ${MAX_VECTOR_DIMENSIONS} are allowed`, false);
    const vector = new Float32Array(width);
    for (let k = 0; k < width; k++) {
      const v: unknown = embedding[k];
      // Checked after the conversion too: 1e300 is finite, but not as a float32.
      if (typeof v === 'number') vector[k] = v;
      if (typeof v !== 'number' || !Number.isFinite(vector[k]!))
        throw new EmbeddingsResponseError(`embedding ${index} holds a value that is not a finite float32 (${shown(v)})`, false);
    }
    out[index] = vector;
    from[index] = i;
  }
  // `expected` distinct in-range indices over `expected` items: every slot is filled.
  return out as Float32Array[];
}
