/**
 * Python built-ins SAG's import code applies to values it reads from JSON records: `str(v)` (a
 * chunk `heading` that is not a string is stored as its `str()`), truthiness (`v or ""`), and
 * `dict(v or {})` (what `_extra` makes of a record's `extra_data`). Values are JSON values as
 * `JSON.parse` gives them; a number that is an integer is taken as a JSON integer.
 */
import { codePointLength } from '../../model/casefold.js';
import { isUnassignedInPython } from '../../model/python-unicode.js';

/** Python's truthiness of a JSON value: `None`, `False`, `0`, `0.0`, `""`, `[]` and `{}` are false. */
export function pythonTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** `repr(float)` (Python's shortest repr: exponent form below 1e-4 and from 1e16, two exponent digits at least). */
export function pythonFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 16) {
    const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
    return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const fraction = digits.slice(exp + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}

// What str.isprintable() refuses: categories C* and Z* except the space (and, below, what Python's
// Unicode does not have at all).
const NON_PRINTABLE = /[\p{C}\p{Z}]/u;

/** `repr(s)` of a Python `str`. */
export function pythonStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    if (c === '\\' || c === quote) out += `\\${c}`;
    else if (c === '\t') out += '\\t';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c !== ' ' && (NON_PRINTABLE.test(c) || isUnassignedInPython(cp))) {
      out += cp < 0x100 ? `\\x${cp.toString(16).padStart(2, '0')}` : cp < 0x10000 ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += c;
  }
  return out + quote;
}

/** `repr(v)` of a JSON value as Python's `json` loads it. */
function pythonRepr(v: unknown): string {
  if (typeof v === 'string') return pythonStrRepr(v);
  return pythonStr(v);
}

/** `str(v)` of a JSON value as Python's `json` loads it (`None`, `True`, `[1, 'a']`, `{'k': 2.5}`). */
export function pythonStr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : pythonFloatRepr(v);
  if (Array.isArray(v)) return `[${v.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${pythonStrRepr(k)}: ${pythonRepr(x)}`)
    .join(', ')}}`;
}

/**
 * What `dict(v or {})` does with a JSON value: the resulting mapping's `octx` entry (`undefined`
 * when it has none), or `failed` with Python's exception. A non-empty string, a non-zero number,
 * `true`, and a list whose items are not pairs (a 2-character string, a list of 2 whose first item
 * is hashable, an object of 2 keys) raise.
 */
export function pythonDict(v: unknown): { readonly failed: string } | { readonly octx: unknown } {
  if (!pythonTruthy(v)) return { octx: undefined };
  if (typeof v === 'string') return { failed: 'ValueError: dictionary update sequence element #0 has length 1; 2 is required' };
  if (typeof v !== 'object' || v === null) return { failed: `TypeError: '${typeof v === 'boolean' ? 'bool' : Number.isSafeInteger(v) ? 'int' : 'float'}' object is not iterable` };
  if (!Array.isArray(v)) return { octx: (v as Record<string, unknown>).octx };
  let octx: unknown;
  for (const [i, item] of (v as readonly unknown[]).entries()) {
    let pair: readonly unknown[];
    if (typeof item === 'string') pair = [...item];
    else if (Array.isArray(item)) pair = item as readonly unknown[];
    else if (item !== null && typeof item === 'object') pair = Object.keys(item);
    else return { failed: `TypeError: cannot convert dictionary update sequence element #${i} to a sequence` };
    if (pair.length !== 2)
      return { failed: `ValueError: dictionary update sequence element #${i} has length ${typeof item === 'string' ? codePointLength(item) : pair.length}; 2 is required` };
    const key = pair[0];
    if (key !== null && typeof key === 'object') return { failed: `TypeError: unhashable type: '${Array.isArray(key) ? 'list' : 'dict'}'` };
    if (key === 'octx') octx = pair[1];
  }
  return { octx };
}

/** Why SAG's `_extra(record)` raises on this `extra_data` (`dict(extra_data or {})`, then the same for its `octx`), or undefined. */
export function sagExtraProblem(extra: unknown): string | undefined {
  const outer = pythonDict(extra);
  if ('failed' in outer) return `dict(extra_data) raises ${outer.failed}`;
  const inner = pythonDict(outer.octx);
  return 'failed' in inner ? `dict(extra_data["octx"]) raises ${inner.failed}` : undefined;
}
