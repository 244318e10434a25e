import { OctxError, issue, type OctxIssue } from './errors.js';

/**
 * Unknown keys of a public options object. A misspelled option (`overwirte: true`, `tmpDir`) used
 * to be ignored silently, so the caller got the default it meant to change; every option object
 * of the SDK is now checked against its known keys, and each unknown key is an
 * `OCTX_OPTIONS_INVALID` issue naming the key and, when one is close, the key probably meant.
 *
 * `value` that is not a plain object yields no issues: the caller's schema reports its type.
 * @param prefix the field path of `value` (`asset`, `limits`), empty at the top level
 */
export function unknownKeyIssues(value: unknown, known: Iterable<string>, prefix = ''): OctxIssue[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const knownSet = known instanceof Set ? (known as Set<string>) : new Set(known);
  const issues: OctxIssue[] = [];
  for (const key of Object.keys(value)) {
    if (knownSet.has(key)) continue;
    const field = prefix === '' ? key : `${prefix}.${key}`;
    const guess = suggestKey(key, knownSet);
    issues.push(
      issue({
        code: 'OCTX_OPTIONS_INVALID',
        field,
        message: `unknown option ${JSON.stringify(field)}${guess === undefined ? '' : `; did you mean ${JSON.stringify(prefix === '' ? guess : `${prefix}.${guess}`)}?`} (known: ${[...knownSet].join(', ')})`,
      }),
    );
  }
  return issues;
}

/**
 * Throws `OCTX_OPTIONS_INVALID` listing every unknown key of `value` (see {@link unknownKeyIssues}),
 * or when `value` is neither undefined nor an object.
 * @param what the options' name for the headline, e.g. `export options`
 */
export function assertKnownKeys(value: unknown, known: Iterable<string>, what: string, prefix = ''): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw OctxError.of({
      code: 'OCTX_OPTIONS_INVALID',
      ...(prefix === '' ? {} : { field: prefix }),
      message: `${what} must be an object (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`,
    });
  }
  const issues = unknownKeyIssues(value, known, prefix);
  if (issues.length === 1) throw new OctxError('OCTX_OPTIONS_INVALID', `${what}: ${issues[0]!.message}`, { issues });
  if (issues.length > 1) throw OctxError.aggregate('OCTX_OPTIONS_INVALID', `${what} are invalid:`, issues);
}

/**
 * The known key `key` most likely stands for: the same key in another case, or the closest one
 * within an edit distance of 2 (1 for keys of up to 4 characters); `undefined` when none is close.
 */
export function suggestKey(key: string, known: Iterable<string>): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    if (k.toLowerCase() === lower) return k;
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = k;
    }
  }
  const allowed = key.length <= 4 ? 1 : 2;
  return bestDistance <= allowed ? best : undefined;
}

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
function editDistance(a: string, b: string): number {
  // Keys are short; a key far longer than every known one is no typo of them.
  if (Math.abs(a.length - b.length) > 2) return Math.abs(a.length - b.length);
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The keys of an options type, checked by the compiler: the object must name every key of `T`
 * and nothing else, so an option added to the type without being added here (and then refused
 * at run time as a misspelling) does not compile. `keysOf<EmbedOptions>({ batchSize: true, … })`.
 */
export function keysOf<T>(keys: { readonly [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(keys);
}
