/**
 * `unicodedata.normalize('NFC', s)` as Python 3.11 computes it (Unicode 14.0), on Node, whose
 * `String.prototype.normalize` knows a newer Unicode (17.0 on Node 20.20).
 *
 * Why this is exact: Unicode's normalization stability policy guarantees that a string of
 * characters assigned in 14.0 normalizes the same under every later version. A character Python
 * does not know has no decomposition and combining class 0 for it: a starter that nothing composes
 * with, so it splits the string into pieces that normalize independently. Node would instead apply
 * its newer data to it (reorder a new combining mark, compose a new letter), so each piece between
 * such characters is normalized on its own and they are kept as written.
 */
import { isUnassignedInPython, PYTHON_UNICODE_VERSION, type PythonUnicode } from './python-unicode.js';

/** Every code point below U+0378 (the first unassigned one) is assigned in every Unicode version. */
// eslint-disable-next-line no-control-regex
const ALWAYS_ASSIGNED = /^[\u0000-\u0377]*$/;

/** `unicodedata.normalize('NFC', s)` of Python 3.11 (Unicode 14.0), or of 3.12 with `unicode` 15.0.0. */
export function pythonNfc(s: string, unicode: PythonUnicode = PYTHON_UNICODE_VERSION): string {
  if (ALWAYS_ASSIGNED.test(s)) return s.normalize('NFC');
  let out = '';
  let start = 0;
  let i = 0;
  let split = false;
  for (const c of s) {
    if (isUnassignedInPython(c.codePointAt(0)!, unicode)) {
      out += s.slice(start, i).normalize('NFC') + c;
      start = i + c.length;
      split = true;
    }
    i += c.length;
  }
  return split ? out + s.slice(start).normalize('NFC') : s.normalize('NFC');
}
