/**
 * The parts of Python's Unicode database that JavaScript lacks, decoded (once, on first use) from
 * the tables `scripts/gen-python-unicode.py` wrote from Python itself (`python-unicode-data.ts`):
 * full case folding, `str.isspace()`, and which code points Python's Unicode version leaves
 * unassigned (Node's is newer).
 */
import { CASEFOLD_DATA, PYTHON_UNICODE_VERSION, UNASSIGNED_DATA, WHITESPACE_DATA } from './python-unicode-data.js';

export { PYTHON_UNICODE_VERSION };

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

let unassigned: Uint32Array | undefined;

function unassignedRanges(): Uint32Array {
  if (unassigned) return unassigned;
  const pairs = UNASSIGNED_DATA.split(',');
  unassigned = new Uint32Array(pairs.length * 2);
  let end = 0;
  pairs.forEach((pair, i) => {
    const [gap, length] = pair.split('+') as [string, string];
    const start = end + parseInt(gap, 36);
    end = start + parseInt(length, 36);
    unassigned![2 * i] = start;
    unassigned![2 * i + 1] = end;
  });
  return unassigned;
}

/** True when Python's `unicodedata` has no character at `cp` (category Cn in its Unicode version). */
export function isUnassignedInPython(cp: number): boolean {
  const r = unassignedRanges();
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
