/**
 * Strict JSON for untrusted input (OCTX-REFERENCE §4): the text must be accepted by
 * `JSON.parse` (so no BOM, NaN, Infinity, comments or trailing commas), must not repeat a key in
 * any object, and must not nest deeper than a limit. Numbers that overflow to ±Infinity
 * (`1e999`) are reported separately, because their code depends on the field.
 *
 * Why not a hand-written parser: `JSON.parse` is native and several times faster than any JS
 * parser, and JSONL validation parses millions of lines. Duplicate keys are the one thing it
 * hides, and they can be detected cheaply afterwards: a parsed object holds one property per
 * *distinct* key, so the text has a duplicate exactly when it contains more key tokens than the
 * parsed value has properties. Without backslashes in the text every `"` delimits a string, so
 * key tokens = quotes / 2 − string values (counted by the walk); with backslashes, string
 * boundaries are found one by one. Only when the counts differ does a slower scanner run to
 * name the repeated key.
 */

/**
 * Why a text is not strict JSON. `surrogate`: a string or key holds a lone UTF-16 surrogate
 * (`"\ud800"` escaped): `JSON.parse` accepts it, but it is no Unicode text, cannot be written as
 * UTF-8, and the builder refuses it in every value.
 */
export type StrictJsonProblemKind = 'syntax' | 'duplicate-key' | 'depth' | 'surrogate';

/** Result of {@link parseStrictJson}. */
export type StrictJsonResult =
  | {
      readonly ok: true;
      readonly value: unknown;
      /** Dotted path (`a.b[2]`, `''` for the root) of the first number that overflowed to ±Infinity. */
      readonly nonFinite?: string;
    }
  | {
      readonly ok: false;
      readonly kind: StrictJsonProblemKind;
      readonly message: string;
      /** For `duplicate-key`: the repeated key. */
      readonly key?: string;
      /** For `surrogate`: dotted path of the value (`a.b[2]`, `''` for the root) or of the object holding the key. */
      readonly at?: string;
    };

/** Options of {@link parseStrictJson}. */
export interface StrictJsonOptions {
  /** Deepest allowed nesting of arrays/objects (the root container is depth 1). Default 100. */
  readonly maxDepth?: number;
  /**
   * Accept lone surrogate escapes (default: refused as `surrogate`). The manifest sets it: there
   * the reference reports such a string through its digest rule (`OCTX_PACKAGE_DIGEST_INVALID`).
   */
  readonly allowLoneSurrogates?: boolean;
}

/**
 * Parses `text` as strict JSON: syntax as `JSON.parse`, no duplicate keys (after unescaping, so
 * `"a"` and `"\u0061"` collide), nesting at most `maxDepth`, no lone surrogate escapes (unless
 * allowed). Never throws.
 */
export function parseStrictJson(text: string, options: StrictJsonOptions = {}): StrictJsonResult {
  const maxDepth = options.maxDepth ?? 100;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, kind: 'syntax', message: (e as Error).message };
  }
  // A lone surrogate can only come from a \uD800–\uDFFF escape (the text itself is decoded from
  // strict UTF-8 or is a well-formed string): only texts with such an escape are walked for it.
  if (options.allowLoneSurrogates !== true && SURROGATE_ESCAPE.test(text)) {
    const at = loneSurrogateAt(value, '');
    if (at !== undefined) {
      return { ok: false, kind: 'surrogate', at, message: `${at === '' ? 'the value' : at} holds a lone UTF-16 surrogate escape (not Unicode text; it has no UTF-8 form)` };
    }
  }
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return { ok: true, value, nonFinite: '' };
    return { ok: true, value };
  }
  const walk: WalkState = { keys: 0, strings: 0, tooDeep: false, nonFinite: undefined };
  walkValue(value, 1, maxDepth, walk, '');
  if (walk.tooDeep) return { ok: false, kind: 'depth', message: `JSON nesting is deeper than ${maxDepth}` };
  if (walk.keys > 0) {
    // Fast path: without any backslash every '"' delimits a string, so the text holds
    // quotes / 2 strings: the keys it spells plus the string values the walk counted.
    const tokens = text.includes('\\') ? countKeyTokens(text) : countQuotes(text) / 2 - walk.strings;
    if (tokens !== walk.keys) {
      const key = findDuplicateKey(text);
      return {
        ok: false,
        kind: 'duplicate-key',
        message: key === undefined ? 'an object repeats a key' : `an object repeats the key ${JSON.stringify(key)}`,
        ...(key === undefined ? {} : { key }),
      };
    }
  }
  return walk.nonFinite === undefined ? { ok: true, value } : { ok: true, value, nonFinite: walk.nonFinite };
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Path of the first string (or object holding a key) with a lone surrogate, or `undefined`. */
function loneSurrogateAt(value: unknown, at: string): string | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : at;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateAt(value[i], `${at}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const here = at === '' ? k : `${at}.${k}`;
    if (!k.isWellFormed()) return here;
    const found = loneSurrogateAt(v, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

interface WalkState {
  keys: number;
  /** String values (not keys) inside containers. */
  strings: number;
  tooDeep: boolean;
  nonFinite: string | undefined;
}

// Counts own keys of every object, checks depth, and notes the first overflowed number. The
// path string is only built when something is found, so the common path allocates nothing.
function walkValue(value: object, depth: number, maxDepth: number, st: WalkState, at: string): void {
  if (depth > maxDepth) {
    st.tooDeep = true;
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'object' && v !== null) {
        walkValue(v, depth + 1, maxDepth, st, `${at}[${i}]`);
        if (st.tooDeep) return;
      } else if (typeof v === 'string') st.strings += 1;
      else if (typeof v === 'number' && st.nonFinite === undefined && !Number.isFinite(v)) st.nonFinite = `${at}[${i}]`;
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  st.keys += keys.length;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = obj[k];
    if (typeof v === 'object' && v !== null) {
      walkValue(v, depth + 1, maxDepth, st, at === '' ? k : `${at}.${k}`);
      if (st.tooDeep) return;
    } else if (typeof v === 'string') st.strings += 1;
    else if (typeof v === 'number' && st.nonFinite === undefined && !Number.isFinite(v)) st.nonFinite = at === '' ? k : `${at}.${k}`;
  }
}

function countQuotes(text: string): number {
  let n = 0;
  for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1)) n++;
  return n;
}

/** Index of the quote closing the string that opens at `start` (text is valid JSON). */
function closingQuote(text: string, start: number): number {
  let end = start + 1;
  for (;;) {
    end = text.indexOf('"', end);
    if (end < 0) return text.length;
    let k = end - 1;
    while (text.charCodeAt(k) === 92 /* \ */) k--;
    if (((end - 1 - k) & 1) === 0) return end;
    end++;
  }
}

function nextNonWhitespace(text: string, pos: number): number {
  let c = text.charCodeAt(pos);
  while (c === 32 || c === 9 || c === 10 || c === 13) c = text.charCodeAt(++pos);
  return pos;
}

/** Number of object keys in a valid JSON text: strings followed by `:`. */
function countKeyTokens(text: string): number {
  let count = 0;
  let pos = 0;
  for (;;) {
    const start = text.indexOf('"', pos);
    if (start < 0) return count;
    const end = closingQuote(text, start);
    const next = nextNonWhitespace(text, end + 1);
    if (text.charCodeAt(next) === 58 /* : */) count++;
    pos = end + 1;
  }
}

/**
 * The first key repeated within one object of a valid JSON text, compared after unescaping.
 * Slow path: only called when {@link countKeyTokens} proved that a duplicate exists.
 */
export function findDuplicateKey(text: string): string | undefined {
  const stack: (Set<string> | null)[] = [];
  let pos = 0;
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c === 123 /* { */) stack.push(new Set());
    else if (c === 91 /* [ */) stack.push(null);
    else if (c === 125 /* } */ || c === 93 /* ] */) stack.pop();
    else if (c === 34 /* " */) {
      const end = closingQuote(text, pos);
      const next = nextNonWhitespace(text, end + 1);
      if (text.charCodeAt(next) === 58) {
        const key = JSON.parse(text.slice(pos, end + 1)) as string;
        const top = stack[stack.length - 1];
        if (top) {
          if (top.has(key)) return key;
          top.add(key);
        }
      }
      pos = end + 1;
      continue;
    }
    pos++;
  }
  return undefined;
}

/**
 * The first integer literal (no fraction, no exponent) outside strings whose magnitude exceeds
 * 2^53 − 1. The reference validator's JCS library refuses such integers, so a manifest holding
 * one has no computable package digest (§7) even though JavaScript parses it as a double.
 */
export function findUnsafeIntegerLiteral(text: string): string | undefined {
  // A scan, not a regular expression: a backtracking pattern over one string of ~8 M characters
  // overflows V8's regexp stack (an untyped RangeError, where callers expect a typed error).
  const n = text.length;
  let pos = 0;
  while (pos < n) {
    const c = text.charCodeAt(pos);
    if (c === 34 /* " */) {
      pos = closingQuote(text, pos) + 1;
      continue;
    }
    if (c !== 45 /* - */ && !isDigit(c)) {
      pos++;
      continue;
    }
    const start = pos;
    if (c === 45) pos++;
    const digitsStart = pos;
    while (pos < n && isDigit(text.charCodeAt(pos))) pos++;
    const digitsEnd = pos;
    const next = text.charCodeAt(pos);
    // A fraction or an exponent makes it a float: skip the rest of the number.
    if (next === 46 /* . */ || next === 101 /* e */ || next === 69 /* E */) {
      pos++;
      while (pos < n && /* digits, sign, exponent */ isNumberChar(text.charCodeAt(pos))) pos++;
      continue;
    }
    if (digitsEnd - digitsStart < 16) continue;
    if (BigInt(text.slice(digitsStart, digitsEnd)) > BigInt(Number.MAX_SAFE_INTEGER)) return text.slice(start, digitsEnd);
  }
  return undefined;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isNumberChar(c: number): boolean {
  return isDigit(c) || c === 43 || c === 45 || c === 46 || c === 101 || c === 69;
}
