/**
 * Seed 002 Vector objects → the `chunks` vector target, only when it is complete and fresh: every
 * chunk has a status-1 vector whose `text_md5` matches its text, all from one pipeline. Anything
 * less is omitted and reported (counts and samples), never padded.
 */
import { createHash } from 'node:crypto';
import type { PackageBuilder } from '../../builder/package-builder.js';
import { OctxError, type OctxIssue } from '../../model/errors.js';
import type { JsonValue } from '../../model/json.js';
import { prepareVectorConfig, type VectorConfigInput } from '../../vectors/config.js';
import { inputIssue, throwInputProblems, zodProblems, type InputLocation } from '../shared/input-issues.js';
import type { FromRagOptions, RagSample, RagVectorsOutcome } from './rag-types.js';
import { RagVectorSchema, type RagChunk, type RagVector } from './schema.js';

const SAMPLE = 10;

const sample = (ids: readonly string[]): RagSample => ({ count: ids.length, sample: ids.slice(0, SAMPLE) });
const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

/**
 * Checks the Vector objects against the chunks and, when they make a complete fresh `chunks`
 * target, sets the vector config (`model` = `embedding_model`, `dimensions` = `vector_dim`,
 * `normalized` from the caller) and adds the vectors (unless `addVectors` is false).
 * @param where the issue locators of input object `index`
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (invalid Vector objects, `normalized` not given),
 *   `OCTX_OPTIONS_INVALID` (a `vectorConfig` key the adapter sets)
 */
export function addRagVectors(
  builder: PackageBuilder,
  options: FromRagOptions,
  chunks: readonly RagChunk[],
  chunkIds: Readonly<Record<string, string>>,
  where: (kind: 'chunk' | 'vector', index: number) => Partial<InputLocation>,
  warnings: string[],
): RagVectorsOutcome {
  const input = options.vectors ?? [];
  if (input.length === 0) return { status: 'none', reason: 'no Vector objects were given' };
  if (options.normalized === undefined) {
    throw OctxError.of({
      code: 'OCTX_ADAPTER_INPUT_INVALID',
      field: 'normalized',
      message:
        'seed 002 does not say whether the vectors are normalized, and vectors/config.json requires it: pass normalized true or false from your embedding pipeline (it is never guessed)',
    });
  }
  const problems: OctxIssue[] = [];
  const byId = new Map<string, RagVector>();
  input.forEach((raw, index) => {
    const parsed = RagVectorSchema.safeParse(raw);
    const rawId = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).vector_id : undefined;
    const recordId = typeof rawId === 'string' ? { recordId: rawId } : {};
    if (!parsed.success) {
      for (const d of zodProblems(parsed.error))
        problems.push(inputIssue({ ...where('vector', index), ...recordId, field: d.field, message: `Vector ${d.field || 'object'} ${d.message}` }));
      return;
    }
    const v = parsed.data;
    const refuse = (field: string, message: string): void => void problems.push(inputIssue({ ...where('vector', index), ...recordId, field, message }));
    const bad = v.embedding.findIndex((x) => typeof x !== 'number' || !Number.isFinite(x));
    if (bad >= 0) return refuse(`embedding[${bad}]`, 'embedding values must be finite numbers');
    if (v.embedding.length !== v.vector_meta.vector_dim)
      return refuse('embedding', `embedding has ${v.embedding.length} values but vector_meta.vector_dim is ${v.vector_meta.vector_dim}`);
    if (byId.has(v.vector_id)) return refuse('vector_id', `vector_id ${v.vector_id} appears twice (vector_id = chunk_id, one vector per chunk)`);
    byId.set(v.vector_id, v as RagVector);
  });
  throwInputProblems('seed 002 Vector objects are invalid:', problems);

  const known = new Set(chunks.map((c) => c.chunk_id));
  const unknown = [...byId.keys()].filter((id) => !known.has(id));
  if (unknown.length > 0) warnings.push(`${unknown.length} vector(s) belong to no given chunk and were ignored (first: ${unknown.slice(0, 3).join(', ')})`);
  const stale: string[] = [];
  const inactive: string[] = [];
  const missing: string[] = [];
  let fresh = 0;
  for (const c of chunks) {
    const v = byId.get(c.chunk_id);
    if (!v) missing.push(c.chunk_id);
    else if (v.status !== 1) inactive.push(c.chunk_id);
    else if (v.vector_meta.text_md5.toLowerCase() !== md5(c.chunk_text)) stale.push(c.chunk_id);
    else fresh++;
  }
  const used = chunks.map((c) => byId.get(c.chunk_id)).filter((v): v is RagVector => v !== undefined);
  const models = [...new Set(used.map((v) => v.vector_meta.embedding_model))];
  const dims = [...new Set(used.map((v) => v.vector_meta.vector_dim))];
  const counts = { given: input.length, fresh, stale: sample(stale), inactive: sample(inactive), missing: sample(missing), unknown: sample(unknown) };
  if (models.length > 1 || dims.length > 1) {
    return {
      status: 'omitted',
      reason: 'mixed-pipelines',
      message: `the vectors come from more than one embedding pipeline (models ${models.join(', ')}; dimensions ${dims.join(', ')}); one package has one vector config`,
      ...counts,
    };
  }
  if (fresh !== chunks.length) {
    const parts = [
      stale.length ? `${stale.length} stale (text_md5 ≠ MD5 of chunk_text)` : '',
      inactive.length ? `${inactive.length} not status 1` : '',
      missing.length ? `${missing.length} missing` : '',
    ].filter(Boolean);
    return { status: 'omitted', reason: 'incomplete', message: `the chunks target would be incomplete: ${parts.join(', ')}; a partial vector set is never shipped`, ...counts };
  }
  const extra = { ...(options.vectorConfig ?? {}) };
  for (const key of ['model', 'dimensions', 'normalized', 'fingerprint'] as const) {
    if (extra[key] !== undefined) {
      throw OctxError.of({
        code: 'OCTX_OPTIONS_INVALID',
        field: `vectorConfig.${key}`,
        message: `vectorConfig.${key} is set by the adapter (model and dimensions come from vector_meta, normalized from the normalized option); remove it`,
      });
    }
  }
  if (extra.revision === undefined)
    warnings.push(
      'no vector revision was given: the fingerprint identifies only the model name, dimensions and normalization; pass revision and other pipeline settings so consumers can trust a match',
    );
  const config = prepareVectorConfig({ model: models[0]!, dimensions: dims[0]!, normalized: options.normalized, ...(extra as Record<string, JsonValue>) });
  const added = options.addVectors ?? true;
  if (added) {
    builder.setVectorConfig(config.config as unknown as VectorConfigInput);
    for (const c of chunks) builder.addVector('chunks', chunkIds[c.chunk_id]!, byId.get(c.chunk_id)!.embedding);
  }
  return {
    status: 'complete',
    added,
    target: 'chunks',
    rows: chunks.length,
    model: models[0]!,
    dimensions: dims[0]!,
    normalized: options.normalized,
    fingerprint: config.fingerprint,
    unknown: counts.unknown,
  };
}
