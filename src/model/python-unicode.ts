/**
 * The parts of Python's Unicode database that JavaScript lacks, decoded (once, on first use) from
 * the tables `scripts/gen-python-unicode.py` wrote from Python itself (`python-unicode-data.ts`,
 * Python 3.11; `python-unicode-15-data.ts`, Python 3.12): full case folding, `str.isspace()`, and
 * which code points Python's Unicode version leaves unassigned (Node's is newer). Case folding and
 * white space are the same in both versions (the generator checks it); only the unassigned code
 * points differ, which changes NFC.
 */
import { PYTHON_LATER_UNICODE_VERSION, UNASSIGNED_LATER_DATA } from './python-unicode-15-data.js';
import { CASEFOLD_DATA, PYTHON_UNICODE_VERSION, UNASSIGNED_DATA, WHITESPACE_DATA } from './python-unicode-data.js';

export { PYTHON_LATER_UNICODE_VERSION, PYTHON_UNICODE_VERSION };

/** A Unicode version a modelled Python runs: 14.0 (Python 3.11, SAG's desktop build) or 15.0 (3.12, its server image and CI). */
export type PythonUnicode = typeof PYTHON_UNICODE_VERSION | typeof PYTHON_LATER_UNICODE_VERSION;

let folds: Map<number, string> | undefined;

/** `chr(cp).casefold()` for every code point that folds to something else. */
export function pythonCaseFolds(): ReadonlyMap<number, string> {
  if (folds) return folds;
  folds = new Map();
  let cp = 0;
  for (const entry of CASEFOLD_DATA.split(',')) {
    const [delta, targets] = entry.split(':') as [string, string];
    cp += parseInt(delta, 36);
    const base = cp;
    folds.set(cp, String.fromCodePoint(...targets.split('.').map((t) => (t.startsWith('-') ? base - parseInt(t.slice(1), 36) : base + parseInt(t, 36)))));
  }
  return folds;
}

const WHITESPACE = new Set(WHITESPACE_DATA);

/** `chr(cp).isspace()`: the code points `str.strip()` removes. */
export function isPythonWhitespace(cp: number): boolean {
  return WHITESPACE.has(cp);
}

const unassigned = new Map<string, Uint32Array>();

function unassignedRanges(unicode: PythonUnicode): Uint32Array {
  const known = unassigned.get(unicode);
  if (known) return known;
  const pairs = (unicode === PYTHON_UNICODE_VERSION ? UNASSIGNED_DATA : UNASSIGNED_LATER_DATA).split(',');
  const ranges = new Uint32Array(pairs.length * 2);
  let end = 0;
  pairs.forEach((pair, i) => {
    const [gap, length] = pair.split('+') as [string, string];
    const start = end + parseInt(gap, 36);
    end = start + parseInt(length, 36);
    ranges[2 * i] = start;
    ranges[2 * i + 1] = end;
  });
  unassigned.set(unicode, ranges);
  return ranges;
}

/** True when Python's `unicodedata` has no character at `cp` (category Cn in its Unicode version, 14.0 by default). */
export function isUnassignedInPython(cp: number, unicode: PythonUnicode = PYTHON_UNICODE_VERSION): boolean {
  const r = unassignedRanges(unicode);
  let lo = 0;
  let hi = r.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < r[2 * mid]!) hi = mid - 1;
    else if (cp > r[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}
