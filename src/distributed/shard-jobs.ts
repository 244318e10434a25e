/**
 * The two jobs of a distributed build, as processors a job engine calls (BullMQ's `Worker`, or any
 * engine that hands a processor `{ data }`): {@link shardJob} builds one shard of a folder,
 * {@link mergeJob} merges the shards its children built. Payloads and results are paths, never
 * package bytes.
 *
 * Both are idempotent and safe to re-run after a worker was killed mid-job (an engine's stalled-job
 * recovery): each writes inside its own work folder beside the output (`<output>.work/`), which a
 * re-run removes first, and publishes by one rename, so a killed attempt leaves no temporary file
 * and the re-run writes the same bytes.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { loadWorkdir } from '../builder/load-workdir.js';
import type { ShardSpec } from '../builder/workdir/shard.js';
import { mergePackages } from '../builder/merge-packages.js';
import { PackageBuilder } from '../builder/package-builder.js';
import { OctxError } from '../model/errors.js';
import type { ProgressListener } from '../model/progress.js';
import { RedisIdLedgerStore } from './redis-ledger-store.js';

/** What a shard job is given: the folder, the shard, where to write, and what every shard shares. */
export interface ShardJobData {
  /** The docs folder or working folder (a path every worker can read). */
  readonly input: string;
  readonly shard: ShardSpec;
  /** The shard package to write (a path every worker, and the merge, can reach). */
  readonly output: string;
  /** The asset every shard shares (its id is required: shards of one asset cannot mint it). */
  readonly asset: { readonly id: string; readonly name: string };
  /** The release every shard shares. */
  readonly release: { readonly version: string; readonly createdAt: string };
  /** The shared id ledger on Redis, for folders whose pages carry no `octx.document_id`. */
  readonly ledger?: { readonly url: string; readonly namespace?: string };
  /** `structure: 'require'` for every shard, so no shard silently drops the layer. Default `auto`. */
  readonly structure?: 'auto' | 'require';
}

/** What a shard job returns: the path of its package, or `null` for a shard with no document. */
export interface ShardJobResult {
  readonly shard: ShardSpec;
  readonly output: string | null;
  readonly packageDigest: string | null;
  readonly documents: number;
}

/** What a merge job is given. */
export interface MergeJobData {
  /** The merged package to write. */
  readonly output: string;
}

/** What a merge job returns. */
export interface MergeJobResult {
  readonly output: string;
  readonly packageDigest: string;
  /** The shard packages merged, in the order given to the merge. */
  readonly shards: readonly string[];
}

/** The part of a job a processor reads (BullMQ's `Job` has it). */
export interface JobLike<D> {
  readonly data: D;
}

/** The part of a parent job a merge processor reads (BullMQ's `Job.getChildrenValues`). */
export interface ParentJobLike<D> extends JobLike<D> {
  getChildrenValues(): Promise<Record<string, unknown>>;
}

/** Options of the processors. */
export interface JobOptions {
  /** Progress of the build or merge (the builder's events). */
  readonly onProgress?: ProgressListener;
}

/** `<output>.work`: the job's own folder, on the output's file system (so publishing is a rename). */
function workFolder(output: string): string {
  return `${resolve(output)}.work`;
}

/**
 * Runs `write(tempDir, stagedOutput)` inside the job's fresh work folder, then moves the staged
 * output to `output` (when `write` says it wrote one) and removes the folder, also when `write` fails.
 */
async function staged<T>(output: string, write: (tempDir: string, staged: string) => Promise<{ readonly value: T; readonly written: boolean }>): Promise<T> {
  const work = workFolder(output);
  // What a killed attempt left: only this job writes here.
  await rm(work, { recursive: true, force: true });
  await mkdir(join(work, 'tmp'), { recursive: true });
  try {
    const out = join(work, basename(output));
    const { value, written } = await write(join(work, 'tmp'), out);
    if (written) {
      await mkdir(dirname(resolve(output)), { recursive: true });
      await rename(out, resolve(output));
    } else {
      // Nothing to publish: an earlier attempt's file must not remain.
      await rm(resolve(output), { force: true });
    }
    return value;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Builds one shard of a folder (`loadWorkdir({ shard })`) into `data.output`; a shard with no
 * document writes nothing and returns `output: null`. Re-running it gives the same bytes.
 * @throws OctxError the builder's and the loader's codes (`OCTX_SHARD_CUT_INVALID`, …),
 *   `OCTX_LEDGER_FAILED`, `OCTX_OPTIONS_INVALID` for a payload without `asset.id`
 */
export async function buildShard(data: ShardJobData, options: JobOptions = {}): Promise<ShardJobResult> {
  if (typeof data?.asset?.id !== 'string') {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'asset.id', message: 'a shard job needs asset.id: every shard of one asset shares it' });
  }
  const ledger = data.ledger === undefined ? undefined : RedisIdLedgerStore.connect(data.ledger.url, { namespace: data.ledger.namespace ?? `octx:ledger:${data.asset.id}` });
  try {
    return await staged<ShardJobResult>(data.output, async (tempDir, out) => {
      const builder = new PackageBuilder({ asset: data.asset, release: data.release, tempDir, ...(ledger !== undefined ? { ledger } : {}) });
      try {
        const loaded = await loadWorkdir(builder, data.input, { shard: data.shard, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
        if (loaded.documents - loaded.reserved.length === 0) {
          await builder.dispose();
          return { value: { shard: data.shard, output: null, packageDigest: null, documents: 0 }, written: false };
        }
        const result = await builder.export({ output: out, structure: data.structure ?? 'auto', ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
        return { value: { shard: data.shard, output: resolve(data.output), packageDigest: result.packageDigest, documents: loaded.documents }, written: true };
      } catch (e) {
        await builder.dispose();
        throw e;
      }
    });
  } finally {
    await ledger?.close();
  }
}

/**
 * Merges shard packages into `output` (`mergePackages`), staged in `<output>.work/` and published
 * by one rename. Re-running it gives the same bytes.
 */
export async function mergeShards(shards: readonly string[], output: string, options: JobOptions = {}): Promise<MergeJobResult> {
  return staged(output, async (tempDir, out) => {
    const result = await mergePackages(shards, { output: out, tempDir, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
    return { value: { output: resolve(output), packageDigest: result.packageDigest, shards: [...shards] }, written: true };
  });
}

/** A processor for shard jobs: `new Worker('octx-shards', shardJob(), { connection })`. */
export function shardJob(options: JobOptions = {}): (job: JobLike<ShardJobData>) => Promise<ShardJobResult> {
  return (job) => buildShard(job.data, options);
}

/**
 * A processor for the merge job, the parent of the shard jobs in a flow: it merges the packages its
 * children returned (skipping shards with no document), in shard order.
 * @throws OctxError `OCTX_OPTIONS_INVALID` when a child returned something that is not a {@link ShardJobResult}
 */
export function mergeJob(options: JobOptions = {}): (job: ParentJobLike<MergeJobData>) => Promise<MergeJobResult> {
  return async (job) => {
    const values = Object.values(await job.getChildrenValues());
    const results = values.map((v) => {
      const r = v as Partial<ShardJobResult> | null;
      if (r === null || typeof r !== 'object' || (r.output !== null && typeof r.output !== 'string') || typeof r.shard?.index !== 'number') {
        throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'children', message: `a child of the merge job returned ${JSON.stringify(v)}, not a shard job's result` });
      }
      return r as ShardJobResult;
    });
    const shards = results.sort((a, b) => a.shard.index - b.shard.index).flatMap((r) => (r.output === null ? [] : [r.output]));
    return mergeShards(shards, job.data.output, options);
  };
}
