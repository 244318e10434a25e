import type { LedgerKind } from './ledger-kinds.js';

/**
 * Where a ledger's ids live when several processes or machines must agree on them: each shard of
 * a build asks the store for the id of every producer key it uses, and the first to ask mints.
 *
 * Without a store (the default) an {@link IdLedger} keeps its ids in memory and the producer
 * state file persists them after a successful export: one process at a time. With a store, the
 * store is the ledger; a builder's ids are fetched with `ids.reserve(...)` before the synchronous
 * `ids.chunk(key)` & co. return them.
 *
 * A store must be atomic per key: two callers claiming one key with different proposals both get
 * the same id back (the one stored first). `octx-export/distributed` ships one on Redis
 * (`RedisIdLedgerStore`, `HSETNX`).
 */
export interface IdLedgerStore {
  /** What the store is, for messages (`redis://127.0.0.1:6379 octx:ledger:<asset>`); never holds a password. */
  readonly description: string;
  /**
   * For each key, in order, the id the store holds for it; a key the store does not hold yet gets
   * its proposal stored first (first writer wins). Ids are canonical UUIDv7 strings; keys are
   * non-empty strings (the ledger checks both).
   */
  claim(kind: LedgerKind, keys: readonly string[], proposals: readonly string[]): Promise<readonly string[]>;
}

/**
 * Keys to fetch from a shared ledger, per kind: the same keys the synchronous calls take
 * (`entity` also takes `{ type, name }` identities, keyed as `ids.entity(identity)` keys them).
 */
export type LedgerReservation = {
  readonly [K in LedgerKind]?: Iterable<K extends 'entity' ? string | { readonly type: string; readonly name: string } : string>;
};

/** Keys claimed per round trip: one Redis script call holds this many pairs. */
export const CLAIM_BATCH = 1000;
