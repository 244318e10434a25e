/**
 * `build --shard i/n`, `--ledger redis://…` and `--ledger-namespace`: one shard of a distributed
 * build, with the id ledger every shard shares (docs/distributed.md).
 */
import type { IdLedgerStore } from '../release/ledger-store.js';
import type { ShardSpec } from '../builder/load-workdir.js';
import { OctxError } from '../model/errors.js';
import { str, usageError, type OptionSpec, type OptionValues } from './args.js';

/** `--shard`, `--ledger`, `--ledger-namespace`. */
export const SHARD_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  shard: {
    type: 'string',
    value: '<i/n>',
    description:
      'build shard i of n (0 ≤ i < n): the documents whose package path hashes to i (SHA-256), their chunks, the events of those chunks and the entities they name; merge the n shards with `octx-export merge` (docs/distributed.md)',
  },
  ledger: {
    type: 'string',
    value: '<redis://host:port[/db]>',
    description: 'the id ledger every shard shares, on Redis: the first shard to need an id mints it, every other shard reads the same id (needs --asset-id)',
  },
  'ledger-namespace': {
    type: 'string',
    value: '<prefix>',
    description: "prefix of the ledger's Redis keys (default octx:ledger:<asset id>)",
  },
};

/**
 * The `--shard i/n` value.
 * @throws OctxError `OCTX_USAGE_ERROR` naming `shard` for anything but two integers with `0 ≤ i < n`
 */
export function shardOption(values: OptionValues): ShardSpec | undefined {
  const raw = str(values, 'shard');
  if (raw === undefined) return undefined;
  const m = /^(0|[1-9][0-9]*)\/([1-9][0-9]*)$/.exec(raw);
  if (m === null) throw usageError(`--shard must be i/n with integers 0 ≤ i < n, e.g. --shard 0/4 (got ${JSON.stringify(raw)})`, 'shard');
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (!Number.isSafeInteger(count) || !Number.isSafeInteger(index)) throw usageError(`--shard: ${raw} is too large`, 'shard');
  if (index >= count) throw usageError(`--shard ${raw}: the shard index must be from 0 to ${count - 1} (shards are numbered from 0)`, 'shard');
  return { index, count };
}

/**
 * The shared ledger of `--ledger`, connected (lazily: the first reservation connects), or
 * `undefined` without the option. Close it with `close()` after the build.
 * @throws OctxError `OCTX_USAGE_ERROR` for `--ledger` without `--asset-id`, a namespace without
 *   `--ledger`, or a URL that is not `redis://` / `rediss://`
 */
export async function ledgerOption(values: OptionValues): Promise<(IdLedgerStore & { close(): Promise<void> }) | undefined> {
  const url = str(values, 'ledger');
  const namespace = str(values, 'ledger-namespace');
  if (url === undefined) {
    if (namespace !== undefined) throw usageError('--ledger-namespace needs --ledger <redis://host:port>', 'ledger-namespace');
    return undefined;
  }
  const assetId = str(values, 'asset-id');
  if (assetId === undefined) {
    throw usageError('--ledger needs --asset-id <uuidv7>: every shard of one asset shares it, and the ledger is kept per asset', 'asset-id');
  }
  if (namespace === '') throw usageError('--ledger-namespace must not be empty', 'ledger-namespace');
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') throw usageError('--ledger must be a Redis URL: redis://host:port[/db] or rediss://host:port[/db]', 'ledger');
  const { RedisIdLedgerStore } = await import('../distributed/redis-ledger-store.js');
  return RedisIdLedgerStore.connect(url, { namespace: namespace ?? `octx:ledger:${assetId}` });
}

/**
 * `OCTX_SHARD_EMPTY`: the shard holds no concept document, so it cannot be a package.
 * @param workdir the folder as the user gave it
 */
export function emptyShardError(workdir: string, shard: ShardSpec): OctxError {
  return OctxError.of({
    code: 'OCTX_SHARD_EMPTY',
    field: 'shard',
    message: `shard ${shard.index}/${shard.count} of ${workdir} holds no concept document (every page hashes to another shard); nothing was written`,
  });
}
