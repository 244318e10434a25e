/**
 * Python's `str.casefold()` (Unicode full case folding, which JavaScript lacks) and the
 * `NFC + casefold` key SAG uses to tell entity names apart.
 *
 * The folding table is Python's own (`python-unicode-data.ts`, written by
 * `scripts/gen-python-unicode.py` from Python 3.11, Unicode 14.0): `casefold` folds each code point
 * by itself, with no context (every sigma folds to `σ`, `İ` to `i̇`), exactly as CPython does, and
 * leaves a character Python's Unicode does not know as it is.
 */
import { pythonNfc } from './python-nfc.js';
import { pythonCaseFolds, PYTHON_UNICODE_VERSION, type PythonUnicode } from './python-unicode.js';

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** `s.casefold()` as Python 3.11 computes it. */
export function casefold(s: string): string {
  if (ASCII.test(s)) return s.toLowerCase();
  const folds = pythonCaseFolds();
  let out = '';
  for (const c of s) out += folds.get(c.codePointAt(0)!) ?? c;
  return out;
}

/**
 * `unicodedata.normalize('NFC', s).casefold()`: how SAG's import plan compares entity names, under
 * Python 3.11's Unicode (14.0) or, with `unicode` 15.0.0, 3.12's (the case folding is the same).
 */
export function nfcCasefold(s: string, unicode: PythonUnicode = PYTHON_UNICODE_VERSION): string {
  return casefold(pythonNfc(s, unicode));
}

/** Length in code points, as Python's `len()` and SQL `VARCHAR(n)` count it (not UTF-16 units). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff && i + 1 < s.length) {
      const v = s.charCodeAt(i + 1);
      if (v >= 0xdc00 && v <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
