/**
 * The vectors phase of `loadWorkdir`: `vectors/config.json`, then per target its vectors as
 * `vectors/<target>.arrow` (Arrow IPC) or `vectors/<target>.jsonl` (`{"record_id", "vector"}` lines).
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OctxError } from '../../model/errors.js';
import type { ProgressListener } from '../../model/progress.js';
import { parseStrictJson } from '../../read/strict-json.js';
import type { VectorConfigInput } from '../../vectors/config.js';
import { VECTOR_TARGETS, type VectorTarget } from '../../vectors/targets.js';
import type { PackageBuilder } from '../package-builder.js';
import { atLine, jsonlRecords } from './records.js';

/**
 * Reads the vector config and every target's vectors present into the builder; returns the rows
 * read per target. Files under `vectors/` that are neither are added to `ignored`.
 */
export async function loadVectors(
  builder: PackageBuilder,
  dir: string,
  files: readonly string[],
  fileSet: ReadonlySet<string>,
  ignored: string[],
  onProgress?: ProgressListener,
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
      vectors[target] = arrow ? await loadArrowVectors(builder, target, join(dir, file)) : await loadJsonlVectors(builder, target, join(dir, file));
      onProgress?.({ phase: 'load', kind: `vectors ${target}`, completed: vectors[target], total: vectors[target], bytes: totalBytes, totalBytes });
    }
  }
  for (const rel of files) {
    if (rel.startsWith('vectors/') && rel !== 'vectors/config.json' && !VECTOR_TARGETS.some((t) => rel === `vectors/${t}.arrow` || rel === `vectors/${t}.jsonl`)) ignored.push(rel);
  }
  return vectors;
}

async function loadJsonlVectors(builder: PackageBuilder, target: VectorTarget, file: string): Promise<number> {
  const path = `vectors/${target}.jsonl`;
  let n = 0;
  for await (const { line, value } of jsonlRecords(file, path)) {
    if (typeof value.record_id !== 'string' || !Array.isArray(value.vector)) {
      throw OctxError.of({ code: 'OCTX_VECTOR_VALUE_INVALID', path, line, message: 'vector lines are {"record_id": "<uuid>", "vector": [numbers]}' });
    }
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

async function loadArrowVectors(builder: PackageBuilder, target: VectorTarget, file: string): Promise<number> {
  const path = `vectors/${target}.arrow`;
  let n = 0;
  try {
    // apache-arrow (~20 MiB of RSS once loaded) only for a folder with Arrow vectors.
    const { RecordBatchReader } = await import('apache-arrow');
    const reader = await RecordBatchReader.from(createReadStream(file));
    for await (const batch of reader) {
      const ids = batch.getChild('record_id');
      const vectors = batch.getChild('vector');
      const digests = batch.getChild('input_sha256');
      if (!ids || !vectors) throw OctxError.of({ code: 'OCTX_VECTOR_COLUMNS_REQUIRED', path, message: 'an Arrow vector file needs record_id and vector columns' });
      const dim = (vectors.type as { listSize?: number }).listSize ?? 0;
      const values = vectors.data[0]?.children[0]?.values as Float32Array | undefined;
      for (let i = 0; i < batch.numRows; i++) {
        const id = ids.get(i) as string;
        const row =
          values && vectors.data.length === 1
            ? values.subarray((vectors.data[0]!.offset + i) * dim, (vectors.data[0]!.offset + i + 1) * dim)
            : Float32Array.from(vectors.get(i) as Iterable<number>);
        builder.addVector(target, id, row, digests ? { inputSha256: digests.get(i) as string } : undefined);
        n++;
      }
    }
  } catch (e) {
    if (e instanceof OctxError) throw e;
    throw OctxError.of({ code: 'OCTX_VECTOR_ARROW_INVALID', path, message: `cannot read Arrow vectors: ${(e as Error).message}` });
  }
  return n;
}
