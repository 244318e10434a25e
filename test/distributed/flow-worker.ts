/**
 * A worker process of the BullMQ flow test: the example's workers (examples/distributed/workers.ts)
 * with short stalled-job timings, and, with FREEZE_MARKER set, a worker that freezes in the middle
 * of its first shard's write (its event loop blocked, as a hung or dying machine's is) after
 * writing that marker file, so the test can SIGKILL it there.
 */
import { writeFileSync } from 'node:fs';
import type { ProgressEvent } from 'octx-export';
import { startWorkers } from '../../examples/distributed/workers.js';

const marker = process.env.FREEZE_MARKER;
let frozen = false;
const onProgress = (e: ProgressEvent): void => {
  if (marker === undefined || frozen || e.phase !== 'write') return;
  frozen = true;
  writeFileSync(marker, String(process.pid));
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
};
startWorkers(process.env.REDIS_URL!, { lockDuration: 1500, stalledInterval: 500 }, { onProgress });
process.stdout.write('ready\n');
