/**
 * The workers of a distributed build on BullMQ: one for the shard jobs, one for the merge job,
 * over the processors `octx-export/distributed` ships. Run as many worker processes as you like,
 * on as many machines as you like: every one needs the input folder and the output folder at the
 * same paths (a shared volume), and the same Redis.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 node --import tsx examples/distributed/workers.ts
 */
import { Worker, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { mergeJob, shardJob, type JobOptions } from 'octx-export/distributed';

/** The queues of the flow (examples/distributed/flow.ts adds to them). */
export const SHARD_QUEUE = 'octx-shards';
export const MERGE_QUEUE = 'octx-merge';

/** Timing of BullMQ's stalled-job recovery: a job whose worker died is run again after about `lockDuration`. */
export interface WorkerTiming {
  readonly lockDuration?: number;
  readonly stalledInterval?: number;
}

/**
 * Starts a shard worker and a merge worker on `redisUrl` (one job at a time each: a shard build
 * keeps one core busy). Returns them, and a function that closes both and the connection.
 */
export function startWorkers(redisUrl: string, timing: WorkerTiming = {}, options: JobOptions = {}): { workers: Worker[]; close: () => Promise<void> } {
  // BullMQ's workers block on Redis: their connection must retry forever (maxRetriesPerRequest: null).
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null }) as unknown as ConnectionOptions;
  const common = { connection, concurrency: 1, ...timing, maxStalledCount: 3 };
  const workers = [new Worker(SHARD_QUEUE, shardJob(options), common), new Worker(MERGE_QUEUE, mergeJob(options), common)];
  return {
    workers,
    close: async () => {
      await Promise.all(workers.map((w) => w.close()));
      await (connection as unknown as Redis).quit();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const { close } = startWorkers(url);
  console.log(`octx-export workers on ${new URL(url).host}: queues ${SHARD_QUEUE}, ${MERGE_QUEUE}`);
  const stop = (): void => void close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
