import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** A JSON value as OCTX allows it: finite numbers, well-formed strings, plain objects and arrays. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Where a value breaks strict I-JSON, as a dotted path (`a.b[2]`) and the reason. */
export interface JsonProblem {
  readonly at: string;
  readonly reason: string;
}

/**
 * Finds the first place where `value` is not strict JSON as OCTX needs it: a non-finite number,
 * `undefined`, a function/symbol/bigint, a non-plain object, a lone UTF-16 surrogate in a string
 * or key, or nesting deeper than `maxDepth`. Returns `undefined` when the value is clean.
 */
export function findJsonProblem(value: unknown, at = '', maxDepth = 100, depth = 0): JsonProblem | undefined {
  if (depth > maxDepth) return { at, reason: `nesting deeper than ${maxDepth}` };
  if (value === null || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { at, reason: `non-finite number ${value}` };
  if (typeof value === 'string') return value.isWellFormed() ? undefined : { at, reason: 'string with a lone UTF-16 surrogate' };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = findJsonProblem(value[i], `${at}[${i}]`, maxDepth, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof value === 'object') {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return { at, reason: 'not a plain object' };
    for (const [k, v] of Object.entries(value)) {
      const here = at === '' ? k : `${at}.${k}`;
      if (!k.isWellFormed()) return { at: here, reason: 'key with a lone UTF-16 surrogate' };
      if (v === undefined) return { at: here, reason: 'undefined value' };
      const p = findJsonProblem(v, here, maxDepth, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  return { at, reason: `${typeof value} is not JSON` };
}

/** RFC 8785 (JCS) canonical UTF-8 bytes of a JSON value. */
export function jcsBytes(value: unknown): Buffer {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalised');
  return Buffer.from(text, 'utf8');
}

/** Lowercase hex SHA-256 of raw bytes. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `sha256:<hex>` of the JCS form of a JSON value (the OCTX digest and fingerprint form). */
export function jcsDigest(value: unknown): string {
  return `sha256:${sha256Hex(jcsBytes(value))}`;
}
