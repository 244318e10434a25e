/**
 * Renamed pages keep their document id across builds with a producer state: the pages that are
 * gone since the last release (their similarity signatures are in the state) are paired with the
 * new pages (no id recorded for their path) by git's rename detection
 * (`knowledge/rename-similarity.ts`), and each pair's id moves to the new path, so the next
 * release's `diff` says the page *moved* (and *changed* when its bytes changed too).
 */
import { decodeSignature, MAX_SIMILARITY, pairRenames, similaritySignature, type SimilaritySignature } from '../../knowledge/rename-similarity.js';
import type { PackageBuilder } from '../package-builder.js';
import type { PagePaths } from './page-text.js';
import type { CarriedId } from './types.js';

/**
 * Carries ids over renames into the builder's producer state (nothing without one).
 * @param finalPath each page's final path in the tree, by its path in the tree
 * @param threshold the least similarity, in git's units; `undefined` carries nothing
 * @param bodyOf a new page's final body, or `undefined` when it cannot take a carried id
 */
export async function carryRenamedIds(
  builder: PackageBuilder,
  finalPath: ReadonlyMap<string, string>,
  paths: PagePaths,
  threshold: number | undefined,
  bodyOf: (original: string) => Promise<string | undefined>,
): Promise<CarriedId[]> {
  const state = builder.state;
  if (state === undefined || threshold === undefined) return [];
  const current = new Set<string>();
  for (const [original, path] of finalPath) if (paths.isPage(original)) current.add(`knowledge/${path}`);
  const gone = new Map<string, SimilaritySignature>();
  for (const [path, text] of Object.entries(state.signatures)) {
    if (current.has(path) || state.documentIdFor(path) === undefined) continue;
    const sig = decodeSignature(text);
    if (sig) gone.set(path, sig);
  }
  if (gone.size === 0) return [];
  const added = new Map<string, SimilaritySignature>();
  for (const [original, path] of finalPath) {
    const pkg = `knowledge/${path}`;
    if (!paths.isPage(original) || state.documentIdFor(pkg) !== undefined) continue;
    const body = await bodyOf(original);
    if (body !== undefined) added.set(pkg, similaritySignature(Buffer.from(body, 'utf8')));
  }
  const out: CarriedId[] = [];
  for (const pair of pairRenames(gone, added, threshold)) {
    const id = state.carryDocumentId(pair.from, pair.to);
    if (id !== undefined) out.push({ from: pair.from, to: pair.to, id, similarity: Math.floor((pair.score * 1000) / MAX_SIMILARITY) / 10 });
  }
  return out;
}
