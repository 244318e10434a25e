/**
 * A distributed build as a BullMQ flow: n children build the shards of a folder (each on whichever
 * worker takes it), and their parent merges them once all are done. The payloads are paths: the
 * workers (examples/distributed/workers.ts) read the folder and write the shards and the merged
 * package on storage they share.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 node --import tsx examples/distributed/flow.ts fixtures/docs-site out/kb.octx 4
 */
import { resolve } from 'node:path';
import { FlowProducer, QueueEvents, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { newId } from 'octx-export';
import type { MergeJobResult, ShardJobData } from 'octx-export/distributed';
import { MERGE_QUEUE, SHARD_QUEUE } from './workers.js';

/** What a flow builds. */
export interface FlowInput {
  readonly input: string;
  readonly output: string;
  readonly shards: number;
  readonly asset: { readonly id: string; readonly name: string };
  readonly release: { readonly version: string; readonly createdAt: string };
  /** Mint page ids in this Redis ledger (needed when pages carry no `octx.document_id`). */
  readonly ledgerUrl?: string;
}

/** Adds the flow and waits for its merge: the merged package's path and digest. */
export async function runFlow(redisUrl: string, flow: FlowInput, timeoutMs = 10 * 60_000): Promise<MergeJobResult> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null }) as unknown as ConnectionOptions;
  const eventsConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const events = new QueueEvents(MERGE_QUEUE, { connection: eventsConnection });
  const producer = new FlowProducer({ connection });
  try {
    await events.waitUntilReady();
    const output = resolve(flow.output);
    const children = Array.from({ length: flow.shards }, (_, index) => {
      const data: ShardJobData = {
        input: resolve(flow.input),
        shard: { index, count: flow.shards },
        output: `${output}.shards/shard-${index}-of-${flow.shards}.octx`,
        asset: flow.asset,
        release: flow.release,
        structure: 'require',
        ...(flow.ledgerUrl !== undefined ? { ledger: { url: flow.ledgerUrl } } : {}),
      };
      // A failed shard fails the flow (its parent never runs with a hole in the package).
      return { name: `shard ${index}/${flow.shards}`, queueName: SHARD_QUEUE, data, opts: { attempts: 2, failParentOnFailure: true } };
    });
    const node = await producer.add({ name: 'merge', queueName: MERGE_QUEUE, data: { output }, children });
    return (await node.job.waitUntilFinished(events, timeoutMs)) as MergeJobResult;
  } finally {
    await producer.close();
    await events.close();
    await eventsConnection.quit();
    await (connection as unknown as Redis).quit();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output, shards = '4'] = process.argv.slice(2);
  if (!input || !output) {
    console.error('usage: flow.ts <folder> <out.octx> [shards]');
    process.exit(2);
  }
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const result = await runFlow(url, {
    input,
    output,
    shards: Number(shards),
    asset: { id: process.env.ASSET_ID ?? newId(), name: process.env.ASSET_NAME ?? 'Knowledge base' },
    release: { version: process.env.VERSION ?? '1.0.0', createdAt: process.env.CREATED_AT ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
    ledgerUrl: url,
  });
  console.log(`${result.output}: ${result.shards.length} shards merged, package digest ${result.packageDigest}`);
}
