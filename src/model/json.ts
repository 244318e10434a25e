import { createHash } from 'node:crypto';

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

/**
 * RFC 8785 (JCS) canonical text of a JSON value: object keys sorted by UTF-16 code units, no
 * whitespace, numbers and strings as ECMAScript's `JSON.stringify` writes them (which is what JCS
 * specifies). The same algorithm, checks and messages as the `canonicalize` package (4.0.0), which
 * was the dependency until it became ESM-only and could not be `require`d by the CommonJS build:
 * `toJSON` is honoured, `undefined`/symbol members are skipped (`null` in arrays), and NaN,
 * Infinity, lone surrogates and cycles throw. Returns `undefined` for a top-level `undefined`.
 */
export function canonicalJson(value: unknown, seen: Set<object> = new Set()): string | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(Number.isNaN(value) ? 'NaN is not allowed' : 'Infinity is not allowed');
  if (typeof value === 'string' && !value.isWellFormed()) throw new Error('Lone surrogate is not allowed');
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (seen.has(value)) throw new Error('Circular reference detected');
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  seen.add(value);
  let result: string | undefined;
  if (typeof toJSON === 'function') {
    result = canonicalJson((toJSON as () => unknown).call(value), seen);
  } else if (Array.isArray(value)) {
    result = `[${value.map((v: unknown) => canonicalJson(v === undefined || typeof v === 'symbol' ? null : v, seen)).join(',')}]`;
  } else {
    const parts: string[] = [];
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record).sort()) {
      const v = record[key];
      if (v === undefined || typeof v === 'symbol') continue;
      parts.push(`${canonicalJson(key)}:${canonicalJson(v, seen)}`);
    }
    result = `{${parts.join(',')}}`;
  }
  seen.delete(value);
  return result;
}

/** RFC 8785 (JCS) canonical UTF-8 bytes of a JSON value. */
export function jcsBytes(value: unknown): Buffer {
  const text = canonicalJson(value);
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
