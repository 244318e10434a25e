/**
 * Renames found by content between two packages (`diffPackages(a, b, { findRenames })`), as
 * `git diff -M` finds them between two trees: two builds of a docs folder without a producer
 * state mint different document ids, so a renamed page is a removed document and an added one
 * until their contents are compared.
 *
 * What is compared: each Concept Document's bytes with its own `octx.document_id` taken out (the
 * one thing two builds of the same page are sure to differ in). OKF `index.md`/`log.md` files are
 * never paired: their path is what they are.
 *
 * A removed and an added document at the same path are first taken as one document, as git
 * compares a path with itself before it looks for renames: changed when their contents differ,
 * unchanged otherwise. Only the rest are rename candidates.
 *
 * How, as git does (`diffcore-rename.c`): first the exact pass — documents whose contents are
 * identical pair up, whatever their number; then, when at most {@link RENAME_LIMIT} ×
 * {@link RENAME_LIMIT} candidate pairs are left (git's `diff.renameLimit` default), the inexact
 * pass scores every remaining pair with git's measure (`knowledge/rename-similarity.ts`) and takes
 * those at or above the threshold. In each pass pairs are taken best first — higher score, then
 * the same file name, then the old path, then the new path in UTF-8 order — each document once,
 * so the same two packages always pair the same way.
 */
import { createHash } from 'node:crypto';
import { MAX_SIMILARITY, pairRenames, similaritySignature, type RenamePair, type SimilaritySignature } from '../../knowledge/rename-similarity.js';
import { RESERVED_DOCUMENT_NAMES } from '../../model/paths.js';
import type { OctxPackage } from '../open-package.js';
import type { DocumentChanges, DocumentMove, DocumentRef, RenameDetection } from './diff-result.js';

/** git's default `diff.renameLimit`: above this many × this many candidate pairs only identical contents are paired. */
export const RENAME_LIMIT = 1000;

/** One document as the rename passes see it. */
interface Candidate {
  readonly ref: DocumentRef;
  readonly signature: SimilaritySignature;
  /** SHA-256 of the content without the document id: equal digests are an exact rename. */
  readonly digest: string;
}

const isConcept = (path: string): boolean => !RESERVED_DOCUMENT_NAMES.has(path.slice(path.lastIndexOf('/') + 1));

/** A document's content with its own id taken out, as bytes (the id occurs in its frontmatter). */
async function candidateOf(pkg: OctxPackage, ref: DocumentRef): Promise<Candidate> {
  const bytes = await pkg.readFile(ref.path);
  const content = ref.id === null ? bytes : Buffer.from(bytes.toString('utf8').replaceAll(ref.id, ''), 'utf8');
  return { ref, signature: similaritySignature(content), digest: createHash('sha256').update(content).digest('hex') };
}

/** The exact pass: pairs of identical contents, by the same order as the inexact pass (each score is 100%). */
function exactPairs(gone: ReadonlyMap<string, Candidate>, added: ReadonlyMap<string, Candidate>): RenamePair[] {
  const byDigest = new Map<string, { gone: Map<string, SimilaritySignature>; added: Map<string, SimilaritySignature> }>();
  const group = (digest: string) => {
    let g = byDigest.get(digest);
    if (!g) byDigest.set(digest, (g = { gone: new Map(), added: new Map() }));
    return g;
  };
  for (const [path, c] of gone) group(c.digest).gone.set(path, c.signature);
  for (const [path, c] of added) group(c.digest).added.set(path, c.signature);
  const out: RenamePair[] = [];
  // Groups are disjoint, so pairing each on its own is pairing them all (empty contents never pair).
  for (const g of byDigest.values()) if (g.gone.size > 0 && g.added.size > 0) out.push(...pairRenames(g.gone, g.added, MAX_SIMILARITY));
  return out;
}

/**
 * Pairs the removed documents of `changes` with its added ones by content and returns the
 * changes with each pair moved (and changed, when the contents differ other than the id).
 * @param threshold the least similarity of a rename, in git's units
 * @param newOrder each path's position in the new package's manifest (the lists' order)
 * @param limit the inexact pass runs on at most `limit` × `limit` candidate pairs (git's `diff.renameLimit`)
 */
export async function findDocumentRenames(
  changes: DocumentChanges,
  a: OctxPackage,
  b: OctxPackage,
  threshold: number,
  newOrder: ReadonlyMap<string, number>,
  limit = RENAME_LIMIT,
): Promise<DocumentChanges> {
  const gone = new Map<string, Candidate>();
  const added = new Map<string, Candidate>();
  for (const ref of changes.removed) if (isConcept(ref.path)) gone.set(ref.path, await candidateOf(a, ref));
  // A move names the document by its new id: an added document without one (an invalid package) is not paired.
  for (const ref of changes.added) if (ref.id !== null && isConcept(ref.path)) added.set(ref.path, await candidateOf(b, ref));
  // First, as git compares a path with itself: a removed and an added document at one path are one
  // document (two builds without state gave it two ids), changed when the contents differ.
  const samePath: { ref: DocumentRef; same: boolean }[] = [];
  for (const [path, c] of added) {
    const was = gone.get(path);
    if (was === undefined) continue;
    samePath.push({ ref: c.ref, same: was.digest === c.digest });
    gone.delete(path);
    added.delete(path);
  }
  const candidates = { removed: gone.size, added: added.size };
  const exact = exactPairs(gone, added);
  for (const p of exact) {
    gone.delete(p.from);
    added.delete(p.to);
  }
  const skipped = gone.size * added.size > limit * limit;
  const similar = skipped || gone.size === 0 || added.size === 0 ? [] : inexactPairs(gone, added, threshold);
  // After the exact pass no identical pair is left: every inexact pair's contents differ.
  const pairs = [...exact.map((p) => ({ p, same: true })), ...similar.map((p) => ({ p, same: false }))];
  const fromPaths = new Set([...pairs.map(({ p }) => p.from), ...samePath.map((s) => s.ref.path)]);
  const toPaths = new Set([...pairs.map(({ p }) => p.to), ...samePath.map((s) => s.ref.path)]);
  const refOf = new Map([...changes.added].map((r) => [r.path, r]));
  const oldRefOf = new Map([...changes.removed].map((r) => [r.path, r]));
  const byNewOrder = (x: { to?: string; path?: string }, y: { to?: string; path?: string }): number =>
    (newOrder.get((x.to ?? x.path)!) ?? 0) - (newOrder.get((y.to ?? y.path)!) ?? 0);
  const moved: DocumentMove[] = [...changes.moved];
  const changed: DocumentRef[] = [...changes.changed, ...samePath.filter((s) => !s.same).map((s) => s.ref)];
  for (const { p, same } of pairs) {
    const to = refOf.get(p.to)!;
    moved.push({ id: to.id!, from: p.from, to: p.to, fromId: oldRefOf.get(p.from)!.id, similarity: Math.floor((p.score * 1000) / MAX_SIMILARITY) / 10 });
    if (!same) changed.push(to);
  }
  const renames: RenameDetection = {
    threshold: Math.floor((threshold * 1000) / MAX_SIMILARITY) / 10,
    samePath: samePath.length,
    exact: exact.length,
    similar: similar.length,
    skipped,
    candidates,
    limit,
  };
  return {
    added: changes.added.filter((r) => !toPaths.has(r.path)),
    removed: changes.removed.filter((r) => !fromPaths.has(r.path)),
    changed: changed.sort(byNewOrder),
    moved: moved.sort(byNewOrder),
    unchanged: changes.unchanged + samePath.filter((s) => s.same).length,
    renames,
  };
}

function inexactPairs(gone: ReadonlyMap<string, Candidate>, added: ReadonlyMap<string, Candidate>, threshold: number): RenamePair[] {
  const sigs = (m: ReadonlyMap<string, Candidate>): Map<string, SimilaritySignature> => new Map([...m].map(([path, c]) => [path, c.signature]));
  return pairRenames(sigs(gone), sigs(added), threshold);
}
