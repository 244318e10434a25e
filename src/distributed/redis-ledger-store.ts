import { Redis, type RedisOptions } from 'ioredis';
import { OctxError } from '../model/errors.js';
import type { LedgerKind } from '../release/ledger-kinds.js';
import type { IdLedgerStore } from '../release/ledger-store.js';

/**
 * One round trip per batch, atomic in Redis: each key gets its proposal only when the hash holds
 * none (`HSETNX`), then the id stored for it is read back, so every caller of one key sees the id
 * of whoever set it first.
 */
const CLAIM_SCRIPT = `local out = {}
for i = 1, #ARGV, 2 do
  redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
  out[#out + 1] = redis.call('HGET', KEYS[1], ARGV[i])
end
return out`;

/** Options of {@link RedisIdLedgerStore}. */
export interface RedisIdLedgerStoreOptions {
  /**
   * Prefix of the ledger's Redis keys: one hash per kind, `<namespace>:document`, `…:chunk`,
   * `…:event`, `…:entity`. Use one namespace per asset (e.g. `octx:ledger:<asset id>`), shared by
   * every shard build of that asset.
   */
  readonly namespace: string;
}

/**
 * The id ledger of many shard builds, in Redis: the first build to ask for a key mints its id
 * (`HSETNX`), every other build reads the same id. Give it to `new PackageBuilder({ ledger })` and
 * fetch the keys a shard uses with `await builder.ids.reserve(...)`.
 *
 * Over a client you pass in (an `ioredis` `Redis`, e.g. the one your BullMQ worker holds), or one
 * made from a URL by {@link RedisIdLedgerStore.connect}, which {@link RedisIdLedgerStore.close}
 * then closes.
 */
export class RedisIdLedgerStore implements IdLedgerStore {
  readonly description: string;
  readonly #client: Redis;
  readonly #namespace: string;
  readonly #owned: boolean;

  /**
   * @param client a connected (or connecting) `ioredis` client; not closed by {@link close}
   * @throws OctxError `OCTX_OPTIONS_INVALID` for an empty namespace
   */
  constructor(client: Redis, options: RedisIdLedgerStoreOptions, owned = false) {
    if (typeof options?.namespace !== 'string' || options.namespace.length === 0) {
      throw OctxError.of({
        code: 'OCTX_OPTIONS_INVALID',
        field: 'namespace',
        message: 'a Redis id ledger needs a non-empty namespace (one per asset, e.g. octx:ledger:<asset id>)',
      });
    }
    this.#client = client;
    this.#namespace = options.namespace;
    this.#owned = owned;
    const { host, port, path } = client.options;
    this.description = `redis ${path ?? `${host ?? '127.0.0.1'}:${port ?? 6379}`} ${options.namespace}:*`;
  }

  /**
   * A store on a new client for `url` (`redis://[user:password@]host:port[/db]`). Connection
   * failures surface on the first claim as `OCTX_LEDGER_FAILED` (after two retries per request).
   * @throws OctxError `OCTX_OPTIONS_INVALID` for a URL that is not `redis:` or `rediss:`
   */
  static connect(url: string, options: RedisIdLedgerStoreOptions & { readonly redis?: RedisOptions }): RedisIdLedgerStore {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'ledger', message: `the ledger URL ${JSON.stringify(url)} is not a URL (redis://host:port)` });
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'ledger', message: `the ledger URL must start with redis:// or rediss:// (got ${parsed.protocol}//)` });
    }
    const client = new Redis(url, { maxRetriesPerRequest: 2, connectTimeout: 5000, lazyConnect: true, ...options.redis });
    // ioredis reports connection errors on the client too; the claim that failed reports them to the caller.
    client.on('error', () => {});
    return new RedisIdLedgerStore(client, options, true);
  }

  /** The ids held for these keys, minting the proposals of the keys no one claimed yet (atomically). */
  async claim(kind: LedgerKind, keys: readonly string[], proposals: readonly string[]): Promise<readonly string[]> {
    if (keys.length === 0) return [];
    const args: string[] = [];
    keys.forEach((key, i) => args.push(key, proposals[i]!));
    try {
      const out = await this.#client.eval(CLAIM_SCRIPT, 1, `${this.#namespace}:${kind}`, ...args);
      return Array.isArray(out) ? out.map((v: unknown) => (Buffer.isBuffer(v) ? v.toString('utf8') : (v as string))) : [];
    } catch (e) {
      throw new OctxError('OCTX_LEDGER_FAILED', `the shared id ledger ${this.description} failed: ${(e as Error).message}`, { cause: e });
    }
  }

  /** Closes the client when this store made it ({@link RedisIdLedgerStore.connect}); a client passed in is left open. */
  async close(): Promise<void> {
    if (!this.#owned) return;
    try {
      await this.#client.quit();
    } catch {
      this.#client.disconnect();
    }
  }
}
