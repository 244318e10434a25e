import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind } from '../model/record-kinds.js';

/** The kind of id each record kind of `RECORD_KINDS` defines (relations define none). */
type DefinedIdKind = { [K in RecordKind]: (typeof RECORD_KINDS)[K] extends { readonly defines: infer D } ? D : never }[RecordKind];

/**
 * Kinds of ids the ledger mints: documents and every kind of id a record kind defines (the
 * asset's id is kept in the state itself).
 */
export type LedgerKind = 'document' | DefinedIdKind;

/** The ledger's kinds in the state file's order: documents, then the record kinds' in table order. */
export const LEDGER_KINDS: readonly LedgerKind[] = Object.freeze([
  'document' as const,
  ...RECORD_KIND_ORDER.flatMap((kind): DefinedIdKind[] => {
    const defines = (RECORD_KINDS[kind] as { readonly defines?: DefinedIdKind }).defines;
    return defines === undefined ? [] : [defines];
  }),
]);

/** A ledger as plain data: per kind, producer key → UUIDv7. */
export type LedgerIds = Readonly<Record<LedgerKind, Readonly<Record<string, string>>>>;

/** `f(kind)` for each ledger kind, as an object in {@link LEDGER_KINDS} order. */
export function perLedgerKind<T>(f: (kind: LedgerKind) => T): Record<LedgerKind, T> {
  return Object.fromEntries(LEDGER_KINDS.map((kind) => [kind, f(kind)])) as Record<LedgerKind, T>;
}
