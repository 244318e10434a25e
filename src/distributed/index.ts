/**
 * `octx-export/distributed`: what a distributed engine (BullMQ, Temporal, Kubernetes jobs, a plain
 * `xargs -P`) needs to build one package past one machine — a shared id ledger on Redis, so shard
 * builds agree on ids without talking to each other. Importing the root `octx-export` loads none of
 * this (and no Redis client).
 * @module
 */
export { RedisIdLedgerStore, type RedisIdLedgerStoreOptions } from './redis-ledger-store.js';
export type { IdLedgerStore, LedgerReservation } from '../release/ledger-store.js';
export {
  buildShard,
  mergeShards,
  shardJob,
  mergeJob,
  type ShardJobData,
  type ShardJobResult,
  type MergeJobData,
  type MergeJobResult,
  type JobLike,
  type ParentJobLike,
  type JobOptions,
} from './shard-jobs.js';
export type { ShardSpec } from '../builder/workdir/shard.js';
