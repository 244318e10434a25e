/**
 * The kinds of ids that share a package's one id space (OCTX-REFERENCE §9): the asset id, every
 * document id and every chunk, event and entity id must be pairwise distinct.
 *
 * One numbering for the whole SDK: the builder's `IdRegistry` and the validator's `IdSpace` both
 * store these values (the validator packs them into the low 3 bits of an id code, so they stay
 * below 8).
 */
export const IdKind = { asset: 0, document: 1, chunk: 2, event: 3, entity: 4 } as const;

/** The name of an id kind: `asset`, `document`, `chunk`, `event` or `entity`. */
export type IdKindName = keyof typeof IdKind;

/** A value of {@link IdKind}. */
export type IdKind = (typeof IdKind)[IdKindName];

const NAMES: readonly IdKindName[] = ['asset', 'document', 'chunk', 'event', 'entity'];
const ARTICLES = ['the asset', 'a document', 'a chunk', 'an event', 'an entity'] as const;

/** The name of an id kind (`chunk`, `event`, …); `record` for a value that is none. */
export function idKindName(kind: number): string {
  return NAMES[kind] ?? 'record';
}

/** The kind with its article, for messages: "the asset", "a document", "an event", … */
export function describeIdKind(kind: number): string {
  return ARTICLES[kind] ?? 'a record';
}
