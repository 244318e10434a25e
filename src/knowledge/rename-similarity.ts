/**
 * Rename detection as git does it (`diffcore-rename.c`, `diffcore-delta.c`), so a page that
 * `git log -M` calls renamed is the same page here.
 *
 * The measure: each text is cut into spans that end at a line feed or after 64 bytes (a CR
 * before an LF is skipped); each span is hashed (git's rolling hash, modulo 107927) and the bytes
 * are counted per hash. The bytes two texts share are, per hash, the smaller of the two counts,
 * summed; the similarity is that sum over the larger text's size, in git's units
 * (`MAX_SCORE` = 60000 is 100%). A pair whose sizes differ so much that it could not reach the
 * threshold is not scored (git's size filter). Empty texts are never renames (nothing to compare;
 * git's `--no-rename-empty`).
 *
 * The pairing: every (gone, new) pair at or above the threshold, best first — higher score, then
 * the same file name, then the gone path, then the new path, in UTF-8 order — each path used
 * once. Git breaks the last ties by its internal order; here they are fixed, so the same trees
 * always pair the same way.
 */
import { OctxError } from '../model/errors.js';
import { compareUtf8 } from '../model/paths.js';

/** git's `MAX_SCORE`: a similarity of 100%. */
export const MAX_SIMILARITY = 60000;
/** git's default rename threshold (`-M`, `diff.renames`): 50%. */
export const DEFAULT_RENAME_THRESHOLD = 30000;
const HASHBASE = 107927;

/** What the measure needs of a text: its size and the bytes counted per span hash. */
export interface SimilaritySignature {
  readonly size: number;
  readonly spans: ReadonlyMap<number, number>;
}

/** The signature of a text's bytes (git's `hash_chars`, text mode). */
export function similaritySignature(bytes: Uint8Array): SimilaritySignature {
  const spans = new Map<number, number>();
  let accum1 = 0;
  let accum2 = 0;
  let n = 0;
  const add = (): void => {
    const hash = ((accum1 + Math.imul(accum2, 0x61)) >>> 0) % HASHBASE;
    spans.set(hash, (spans.get(hash) ?? 0) + n);
    n = 0;
    accum1 = 0;
    accum2 = 0;
  };
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 13 && i + 1 < bytes.length && bytes[i + 1] === 10) continue;
    const old1 = accum1;
    accum1 = ((accum1 << 7) ^ (accum2 >>> 25)) >>> 0;
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0;
    accum1 = (accum1 + c) >>> 0;
    if (++n < 64 && c !== 10) continue;
    add();
  }
  if (n > 0) add();
  return { size: bytes.length, spans };
}

/**
 * The similarity of two texts in git's units (0 to {@link MAX_SIMILARITY}); 0 when either is
 * empty, or when their sizes alone keep them below `threshold`.
 */
export function similarityScore(a: SimilaritySignature, b: SimilaritySignature, threshold = DEFAULT_RENAME_THRESHOLD): number {
  if (a.size === 0 || b.size === 0) return 0;
  const max = Math.max(a.size, b.size);
  const delta = max - Math.min(a.size, b.size);
  if (max * (MAX_SIMILARITY - threshold) < delta * MAX_SIMILARITY) return 0;
  let copied = 0;
  const [small, large] = a.spans.size <= b.spans.size ? [a.spans, b.spans] : [b.spans, a.spans];
  for (const [hash, count] of small) {
    const other = large.get(hash);
    if (other !== undefined) copied += Math.min(count, other);
  }
  return Math.floor((copied * MAX_SIMILARITY) / max);
}

/** A pair found by {@link pairRenames}. */
export interface RenamePair {
  readonly from: string;
  readonly to: string;
  /** In git's units (see {@link MAX_SIMILARITY}). */
  readonly score: number;
}

const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/**
 * Pairs gone paths with new ones whose texts are similar enough (see the module comment).
 * @param threshold the least score of a rename, in git's units (default 50%)
 */
export function pairRenames(gone: ReadonlyMap<string, SimilaritySignature>, added: ReadonlyMap<string, SimilaritySignature>, threshold = DEFAULT_RENAME_THRESHOLD): RenamePair[] {
  const candidates: RenamePair[] = [];
  for (const [to, b] of added) {
    for (const [from, a] of gone) {
      const score = similarityScore(a, b, threshold);
      if (score >= threshold && score > 0) candidates.push({ from, to, score });
    }
  }
  candidates.sort(
    (x, y) =>
      y.score - x.score || Number(baseName(y.from) === baseName(y.to)) - Number(baseName(x.from) === baseName(x.to)) || compareUtf8(x.from, y.from) || compareUtf8(x.to, y.to),
  );
  const usedFrom = new Set<string>();
  const usedTo = new Set<string>();
  const out: RenamePair[] = [];
  for (const c of candidates) {
    if (usedFrom.has(c.from) || usedTo.has(c.to)) continue;
    usedFrom.add(c.from);
    usedTo.add(c.to);
    out.push(c);
  }
  return out.sort((x, y) => compareUtf8(x.to, y.to));
}

/**
 * A rename threshold written as git writes `-M<n>` (its `parse_rename_score`): digits are a
 * fraction of the next power of ten (`5` and `50` are 50%, `05` is 5%, `100` is 10%), a point
 * makes them a decimal (`0.5`, `.75`), a final `%` makes them a percentage (`50%`, `75.5%`); 100%
 * or more is 100%. Returns git's units, or `undefined` for an empty or malformed value.
 */
export function parseRenameThreshold(text: string): number | undefined {
  if (!/^(?:\d+\.?\d*|\.\d+)%?$/.test(text)) return undefined;
  let num = 0;
  let scale = 1;
  let dot = false;
  for (const ch of text) {
    if (!dot && ch === '.') {
      scale = 1;
      dot = true;
    } else if (ch === '%') {
      scale = dot ? scale * 100 : 100;
    } else if (scale < 100000) {
      scale *= 10;
      num = num * 10 + Number(ch);
    }
  }
  return num >= scale ? MAX_SIMILARITY : Math.floor((MAX_SIMILARITY * num) / scale);
}

/** A signature as text, for the producer state: `size` and `hash:count` pairs in base 36. */
export function encodeSignature(sig: SimilaritySignature): string {
  const pairs = [...sig.spans].sort((a, b) => a[0] - b[0]).map(([h, c]) => `${h.toString(36)}:${c.toString(36)}`);
  return `${sig.size.toString(36)};${pairs.join(',')}`;
}

/** The signature {@link encodeSignature} wrote, or `undefined` when the text is not one. */
export function decodeSignature(text: string): SimilaritySignature | undefined {
  const m = /^([0-9a-z]+);((?:[0-9a-z]+:[0-9a-z]+)(?:,[0-9a-z]+:[0-9a-z]+)*)?$/.exec(text);
  if (!m) return undefined;
  const spans = new Map<number, number>();
  for (const pair of (m[2] ?? '').split(',')) {
    if (pair === '') continue;
    const [h, c] = pair.split(':');
    spans.set(parseInt(h!, 36), parseInt(c!, 36));
  }
  return { size: parseInt(m[1]!, 36), spans };
}

/**
 * A `findRenames` option (`loadWorkdir`, `diffPackages`) as the least similarity of a rename in
 * git's units: `true` is git's 50%, a number from 0 to 1 that fraction, `false` none (`undefined`).
 * @param absent what an absent option means (`true`: on at 50%, `false`: off)
 * @throws OctxError `OCTX_OPTIONS_INVALID` on field `findRenames` for anything else
 */
export function renameThresholdOption(value: unknown, absent: boolean): number | undefined {
  const v = value === undefined ? absent : value;
  if (v === false) return undefined;
  if (v === true) return DEFAULT_RENAME_THRESHOLD;
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) {
    throw OctxError.of({
      code: 'OCTX_OPTIONS_INVALID',
      field: 'findRenames',
      message: `findRenames must be true, false or a similarity from 0 to 1 (got ${typeof v === 'number' ? String(v) : JSON.stringify(v)})`,
    });
  }
  return Math.floor(v * MAX_SIMILARITY);
}
