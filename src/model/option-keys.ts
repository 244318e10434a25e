import { editDistance } from './edit-distance.js';
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
    // Capped at 2: a key further from every known one gets no suggestion anyway.
    const d = editDistance(lower, k.toLowerCase(), 2);
    if (d < bestDistance) {
      bestDistance = d;
      best = k;
    }
  }
  const allowed = key.length <= 4 ? 1 : 2;
  return bestDistance <= allowed ? best : undefined;
}

/**
 * The keys of an options type, checked by the compiler: the object must name every key of `T`
 * and nothing else, so an option added to the type without being added here (and then refused
 * at run time as a misspelling) does not compile. `keysOf<EmbedOptions>({ batchSize: true, … })`.
 */
export function keysOf<T>(keys: { readonly [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(keys);
}
