/**
 * The vectors phase of `loadWorkdir`: `vectors/config.json`, then per target its vectors as
 * `vectors/<target>.arrow` (Arrow IPC) or `vectors/<target>.jsonl` (`{"record_id", "vector"}` lines).
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OctxError } from '../../model/errors.js';
import type { ArchiveLimits } from '../../model/limits.js';
import type { ProgressListener } from '../../model/progress.js';
import { parseStrictJson } from '../../read/strict-json.js';
import type { VectorConfigInput } from '../../vectors/config.js';
import { VECTOR_TARGETS, type VectorTarget } from '../../vectors/targets.js';
import type { PackageBuilder } from '../package-builder.js';
import { atLine, jsonlRecords } from './records.js';

/**
 * Reads the vector config and every target's vectors present into the builder; returns the rows
 * added per target. Files under `vectors/` that are neither are added to `ignored`.
 * @param keep the records whose vectors are added (a shard's; default all)
 */
export async function loadVectors(
  builder: PackageBuilder,
  dir: string,
  files: readonly string[],
  fileSet: ReadonlySet<string>,
  ignored: string[],
  limits: ArchiveLimits,
  onProgress?: ProgressListener,
  keep: (recordId: string) => boolean = () => true,
): Promise<Record<VectorTarget, number>> {
  const vectors = { chunks: 0, events: 0, entities: 0 } as Record<VectorTarget, number>;
  if (fileSet.has('vectors/config.json')) {
    const text = await readFile(join(dir, 'vectors/config.json'), 'utf8');
    const parsed = parseStrictJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    if (!parsed.ok) throw OctxError.of({ code: 'OCTX_VECTOR_CONFIG_INVALID', path: 'vectors/config.json', message: parsed.message });
    builder.setVectorConfig(parsed.value as VectorConfigInput);
    for (const target of VECTOR_TARGETS) {
      const arrow = fileSet.has(`vectors/${target}.arrow`);
      const file = arrow ? `vectors/${target}.arrow` : `vectors/${target}.jsonl`;
      if (!fileSet.has(file)) continue;
      const totalBytes = (await stat(join(dir, file))).size;
      onProgress?.({ phase: 'load', kind: `vectors ${target}`, completed: 0, total: 0, bytes: 0, totalBytes });
      vectors[target] = arrow ? await loadArrowVectors(builder, target, join(dir, file), limits, keep) : await loadJsonlVectors(builder, target, join(dir, file), keep);
      onProgress?.({ phase: 'load', kind: `vectors ${target}`, completed: vectors[target], total: vectors[target], bytes: totalBytes, totalBytes });
    }
  }
  for (const rel of files) {
    if (rel.startsWith('vectors/') && rel !== 'vectors/config.json' && !VECTOR_TARGETS.some((t) => rel === `vectors/${t}.arrow` || rel === `vectors/${t}.jsonl`)) ignored.push(rel);
  }
  return vectors;
}

async function loadJsonlVectors(builder: PackageBuilder, target: VectorTarget, file: string, keep: (recordId: string) => boolean): Promise<number> {
  const path = `vectors/${target}.jsonl`;
  let n = 0;
  for await (const { line, value } of jsonlRecords(file, path)) {
    if (typeof value.record_id !== 'string' || !Array.isArray(value.vector)) {
      throw OctxError.of({ code: 'OCTX_VECTOR_VALUE_INVALID', path, line, message: 'vector lines are {"record_id": "<uuid>", "vector": [numbers]}' });
    }
    if (!keep(value.record_id)) continue;
    try {
      // An optional input digest travels with its vector (checked, and all-or-none, by addVector).
      builder.addVector(target, value.record_id, value.vector as number[], value.input_sha256 !== undefined ? { inputSha256: value.input_sha256 as string } : undefined);
    } catch (e) {
      throw atLine(e, path, line);
    }
    n++;
  }
  return n;
}

/**
 * Adds the vectors of `vectors/<target>.arrow`, read and checked as the validator reads a
 * package's target (`readVectorFileRows`): the IPC file format, the column table, the `limits`,
 * the width of the folder's vector config, and no null or non-finite value, each refused with the
 * code the validator reports.
 */
async function loadArrowVectors(builder: PackageBuilder, target: VectorTarget, file: string, limits: ArchiveLimits, keep: (recordId: string) => boolean): Promise<number> {
  const path = `vectors/${target}.arrow`;
  let n = 0;
  try {
    // apache-arrow (~20 MiB of RSS once loaded) only for a folder with Arrow vectors.
    const { readVectorFileRows } = await import('../../read/arrow-rows.js');
    const dimensions = builder.vectorConfig?.dimensions;
    for await (const row of readVectorFileRows(file, { path, limits, ...(dimensions === undefined ? {} : { expectedDimension: dimensions }) })) {
      if (!keep(row.recordId)) continue;
      builder.addVector(target, row.recordId, row.vector, row.inputSha256 !== undefined ? { inputSha256: row.inputSha256 } : undefined);
      n++;
    }
  } catch (e) {
    if (e instanceof OctxError) throw e;
    throw OctxError.of({ code: 'OCTX_VECTOR_ARROW_INVALID', path, message: `cannot read Arrow vectors: ${(e as Error).message}` });
  }
  return n;
}
