import { OctxError } from '../model/errors.js';
import { isUuidV7, newId } from '../model/ids.js';
import { nfcCasefold } from '../model/casefold.js';
import { LEDGER_KINDS, perLedgerKind, type LedgerIds, type LedgerKind } from './ledger-kinds.js';
import { KeyedIds } from './keyed-ids.js';
import { CLAIM_BATCH, type IdLedgerStore, type LedgerReservation } from './ledger-store.js';

/** An entity's identity as SAG sees it: its type and name. */
export interface EntityIdentity {
  readonly type: string;
  readonly name: string;
}

/**
 * The ledger key `ids.entity({ type, name })` uses: `identity:["<type>","<NFC + case-folded name>"]`.
 * @throws OctxError `OCTX_OPTIONS_INVALID` for an empty or non-string type or name
 */
export function entityIdentityKey(identity: EntityIdentity): string {
  if (typeof identity.type !== 'string' || typeof identity.name !== 'string' || identity.type === '' || identity.name === '') {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'ids.entity', message: 'an entity identity is { type, name } with non-empty strings' });
  }
  return `identity:${JSON.stringify([identity.type, nfcCasefold(identity.name)])}`;
}

/**
 * Stable ids for producer keys: `ids.chunk('doc-1#0')` returns the same UUIDv7 on every run once
 * it has been exported with a state file, so re-running a pipeline keeps record ids across
 * releases (seed §7). Ids minted in this run are persisted only after a successful export.
 *
 * With a shared {@link IdLedgerStore} (several shard builds on several machines), the store is the
 * ledger: `await ids.reserve({ entity: [...] })` fetches the ids of the keys a build will use (the
 * first shard to ask mints, every other one reads the same id), and the synchronous calls return
 * them; a key that was not reserved is refused rather than minted locally, since a local id could
 * differ from the one another shard stores.
 */
export class IdLedger {
  /** Per kind, key → id: compact tables, since a large build asks for millions of ids. */
  readonly #known: Record<LedgerKind, KeyedIds>;
  readonly #store: IdLedgerStore | undefined;
  /** Per kind, the keys whose id came from the store (only those are served when there is one). */
  readonly #fetchedKeys = new Map<LedgerKind, Set<string>>();

  /**
   * @param initial the ids known from earlier exports (none: an empty ledger); with a store they
   *   are what this ledger proposes for those keys, and the store's answer wins
   * @param options `store`: the shared ledger (default: none, this process alone)
   */
  constructor(initial: LedgerIds = perLedgerKind(() => ({})), options: { readonly store?: IdLedgerStore } = {}) {
    this.#known = perLedgerKind((kind) => {
      const table = new KeyedIds();
      for (const [key, id] of Object.entries(initial[kind])) table.set(key, id);
      return table;
    });
    this.#store = options.store;
  }

  /** The shared store, when this ledger has one. */
  get store(): IdLedgerStore | undefined {
    return this.#store;
  }

  /**
   * Fetches the ids of these keys from the shared store, minting (atomically, in the store) the
   * ones no shard has used yet, so the synchronous calls return them. Without a store it mints the
   * missing ids locally, which the synchronous calls would do anyway. Keys already fetched are not
   * asked again.
   * @throws OctxError `OCTX_OPTIONS_INVALID` for an unknown kind or an invalid key;
   *   `OCTX_LEDGER_FAILED` when the store fails or answers something that is not a UUIDv7
   */
  async reserve(keys: LedgerReservation): Promise<void> {
    for (const kind of Object.keys(keys)) {
      if (!Object.hasOwn(this.#known, kind))
        throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'ids', message: `unknown ledger kind ${kind} (one of ${LEDGER_KINDS.join(', ')})` });
    }
    for (const kind of LEDGER_KINDS) {
      const given = keys[kind];
      if (given === undefined) continue;
      const wanted = new Set<string>();
      for (const k of given as Iterable<string | EntityIdentity>) {
        const key = typeof k === 'object' && k !== null && kind === 'entity' ? entityIdentityKey(k) : k;
        checkKey(kind, key);
        wanted.add(key);
      }
      if (this.#store === undefined) {
        for (const key of wanted) if (!this.#known[kind].has(key)) this.#known[kind].set(key, newId());
        continue;
      }
      // Keys known locally (from the state file) are claimed too: the store's id wins over them.
      const all = [...wanted].filter((key) => !this.#claimed(kind, key));
      for (let at = 0; at < all.length; at += CLAIM_BATCH) {
        const batch = all.slice(at, at + CLAIM_BATCH);
        const proposals = batch.map((key) => this.#known[kind].get(key) ?? newId());
        let ids: readonly string[];
        try {
          ids = await this.#store.claim(kind, batch, proposals);
        } catch (e) {
          if (e instanceof OctxError) throw e;
          throw new OctxError('OCTX_LEDGER_FAILED', `the shared id ledger ${this.#store.description} failed: ${(e as Error).message}`, { cause: e });
        }
        if (!Array.isArray(ids) || ids.length !== batch.length) {
          throw OctxError.of({
            code: 'OCTX_LEDGER_FAILED',
            field: `ids.${kind}`,
            message: `the shared id ledger ${this.#store.description} answered ${Array.isArray(ids) ? ids.length : 'no list of'} ids for ${batch.length} keys`,
          });
        }
        batch.forEach((key, i) => {
          const id: unknown = ids[i];
          if (!isUuidV7(id)) {
            throw OctxError.of({
              code: 'OCTX_LEDGER_FAILED',
              field: `ids.${kind}`,
              message: `the shared id ledger ${this.#store!.description} holds ${JSON.stringify(id)} for ${kind} key ${JSON.stringify(key)}, not a canonical UUIDv7`,
            });
          }
          this.#known[kind].set(key, id);
          this.#fetched(kind).add(key);
        });
      }
    }
  }

  #fetched(kind: LedgerKind): Set<string> {
    let set = this.#fetchedKeys.get(kind);
    if (set === undefined) this.#fetchedKeys.set(kind, (set = new Set()));
    return set;
  }
  #claimed(kind: LedgerKind, key: string): boolean {
    return this.#fetchedKeys.get(kind)?.has(key) === true;
  }

  /**
   * The stable id of `kind` for a producer key, minted on first use: what the typed methods
   * call, for callers that go through every kind (`LEDGER_KINDS`).
   * @throws OctxError `OCTX_OPTIONS_INVALID` for an empty or non-string key, or an unknown kind;
   *   `OCTX_LEDGER_KEY_UNRESERVED` for a key not reserved from the ledger's shared store
   */
  id(kind: LedgerKind, key: string): string {
    if (!Object.hasOwn(this.#known, kind))
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'ids', message: `unknown ledger kind ${String(kind)} (one of ${LEDGER_KINDS.join(', ')})` });
    return this.#get(kind, key);
  }

  #get(kind: LedgerKind, key: string): string {
    checkKey(kind, key);
    if (this.#store !== undefined) {
      if (!this.#claimed(kind, key)) {
        throw OctxError.of({
          code: 'OCTX_LEDGER_KEY_UNRESERVED',
          field: `ids.${kind}`,
          message: `${kind} key ${JSON.stringify(key)} was not reserved from the shared id ledger ${this.#store.description}: await ids.reserve({ ${kind}: [...] }) with every key before asking for its id`,
        });
      }
      return this.#known[kind].get(key)!;
    }
    let id = this.#known[kind].get(key);
    if (id === undefined) {
      id = newId();
      this.#known[kind].set(key, id);
    }
    return id;
  }

  /** The stable document id for a producer key. */
  document(key: string): string {
    return this.#get('document', key);
  }
  /** The stable chunk id for a producer key. */
  chunk(key: string): string {
    return this.#get('chunk', key);
  }
  /** The stable event id for a producer key. */
  event(key: string): string {
    return this.#get('event', key);
  }
  /**
   * The stable entity id for a producer key, or for an entity's identity as SAG sees it:
   * `ids.entity({ type, name })` keys on `type` and the NFC + case-folded `name`, so `Cao Cao`,
   * `CAO CAO` and a decomposed spelling of the same name get one id (the ledger key is
   * `identity:["<type>","<folded name>"]`: {@link entityIdentityKey}).
   */
  entity(key: string | EntityIdentity): string {
    if (typeof key === 'object' && key !== null) return this.#get('entity', entityIdentityKey(key));
    return this.#get('entity', key);
  }
  /** The id already known for a key, without minting one. */
  peek(kind: LedgerKind, key: string): string | undefined {
    return this.#known[kind].get(key);
  }

  /** The ledger as plain data, keys sorted so the state file is stable. */
  toJSON(): LedgerIds {
    return perLedgerKind((kind) => Object.fromEntries(this.#known[kind].sortedEntries()));
  }
}

function checkKey(kind: LedgerKind, key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: `ids.${kind}`, message: 'ledger keys are non-empty strings' });
}
