/**
 * Python's `str.casefold()` (Unicode full case folding), which JavaScript lacks, and the
 * `NFC + casefold` key SAG uses to tell entity names apart.
 *
 * Folding one code point at a time with `toLowerCase().toUpperCase().toLowerCase()` agrees with
 * CPython's table for every code point but two groups (checked over all of Unicode against
 * Python 3.11): dotless `ı` folds to itself, and Cherokee folds to its capital letters. Folding
 * code point by code point also keeps the final-sigma context rule of `toLowerCase` out (Python
 * folds every sigma to `σ`).
 */

function foldCodePoint(c: string, cp: number): string {
  if (cp === 0x131) return c;
  // Cherokee small letters fold to the capitals (U+AB70–ABBF → U+13A0–13EF, U+13F8–13FD → U+13F0–13F5); capitals stay.
  if (cp >= 0xab70 && cp <= 0xabbf) return String.fromCodePoint(cp - 0xab70 + 0x13a0);
  if (cp >= 0x13f8 && cp <= 0x13fd) return String.fromCodePoint(cp - 8);
  if (cp >= 0x13a0 && cp <= 0x13f5) return c;
  return c.toLowerCase().toUpperCase().toLowerCase();
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** `s.casefold()` as Python computes it. */
export function casefold(s: string): string {
  if (ASCII.test(s)) return s.toLowerCase();
  let out = '';
  for (const c of s) out += foldCodePoint(c, c.codePointAt(0)!);
  return out;
}

/** `unicodedata.normalize('NFC', s).casefold()`: how SAG compares entity names. */
export function nfcCasefold(s: string): string {
  return casefold(s.normalize('NFC'));
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
