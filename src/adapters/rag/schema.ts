/**
 * The seed 002 "RAG data-object standard" records, as zod schemas at the adapter boundary.
 *
 * Objects are loose: the standard allows producers to add fields ("新增字段仅做扩展"), and the
 * adapter keeps them under `x-rag`. `tenant_id` is optional because the standard's minimal
 * profile ("极简版适配") drops it; every other field the standard marks required is required.
 */
import { z } from 'zod';

const nonEmpty = z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' });
const millis = z.number({ error: 'must be a Unix millisecond timestamp (number)' });

/** The fields every seed 002 object opens with: its tenant, knowledge base and times. */
const OBJECT_HEADER = {
  tenant_id: z.string({ error: 'must be a string' }).optional(),
  kb_id: nonEmpty,
  create_time: millis,
  update_time: millis.optional(),
};

/** A seed 002 Chunk object (文档切片对象). */
export const RagChunkSchema = z.looseObject({
  ...OBJECT_HEADER,
  chunk_id: nonEmpty,
  doc_id: nonEmpty,
  chunk_text: z.string({ error: 'must be a string' }),
  chunk_meta: z.looseObject({
    chunk_type: z.string({ error: 'must be a string' }),
    chunk_length: z.number({ error: 'must be a number' }),
    chunk_index: z.number({ error: 'must be a number' }).int({ error: 'must be an integer' }).min(0, { error: 'must be ≥ 0' }),
  }),
  doc_meta: z.looseObject({
    doc_name: nonEmpty,
    doc_type: z.string({ error: 'must be a string' }),
    page_no: z.array(z.number({ error: 'must be numbers' })).optional(),
    title_path: z.array(z.string({ error: 'must be strings' })).optional(),
  }),
  permission: z.looseObject({ user_group: z.array(z.string({ error: 'must be strings' })).optional() }).optional(),
  extend: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
  parent_chunk_id: nonEmpty.optional(),
});

/** A seed 002 Vector object (向量对象). `embedding` is checked separately (it can be large). */
export const RagVectorSchema = z.looseObject({
  ...OBJECT_HEADER,
  vector_id: nonEmpty,
  embedding: z.array(z.unknown(), { error: 'must be an array of floats' }).min(1, { error: 'must not be empty' }),
  vector_meta: z.looseObject({
    embedding_model: nonEmpty,
    vector_dim: z.number({ error: 'must be a number' }).int({ error: 'must be an integer' }).min(1, { error: 'must be ≥ 1' }),
    text_md5: z.string({ error: 'must be a string' }).regex(/^[0-9a-fA-F]{32}$/, { error: 'must be 32 hex digits (the MD5 of chunk_text)' }),
  }),
  filter_tags: z.record(z.string(), z.unknown(), { error: 'must be an object' }),
  status: z.union([z.literal(0), z.literal(1), z.literal(2)], { error: 'must be 0 (disabled), 1 (normal) or 2 (pending update)' }),
  extend: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
});

/** A seed 002 Chunk object after validation. */
export type RagChunk = z.infer<typeof RagChunkSchema>;
/** A seed 002 Vector object after validation (`embedding` proven to be finite numbers). */
export type RagVector = z.infer<typeof RagVectorSchema> & { embedding: number[] };

/** Fields that only a seed 002 Retrieval Result (检索结果对象) has. */
export const RETRIEVAL_RESULT_FIELDS = ['retrieval_id', 'query_info', 'result_list', 'retrieval_stat'] as const;

/** Why a Retrieval Result found among the input is refused (the message, field `retrieval_id`). */
export const RETRIEVAL_RESULT_REFUSAL =
  'this is a seed 002 Retrieval Result (retrieval_id / query_info / result_list): query output, not publishable knowledge. Export the Chunk and Vector objects the results came from instead';

/** True when an object is a Retrieval Result (query output), not a Chunk or Vector. */
export function isRetrievalResult(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && RETRIEVAL_RESULT_FIELDS.some((f) => Object.hasOwn(value, f));
}

/** What kind of seed 002 object a value is, by its identifying fields. */
export type RagObjectKind = 'chunk' | 'vector' | 'retrieval-result' | 'unknown';

/** Classifies a seed 002 object by its identifying fields (`chunk_id`, `vector_id`, `retrieval_id`…). */
export function ragObjectKind(value: unknown): RagObjectKind {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'unknown';
  if (isRetrievalResult(value)) return 'retrieval-result';
  if (Object.hasOwn(value, 'vector_id') || Object.hasOwn(value, 'embedding')) return 'vector';
  if (Object.hasOwn(value, 'chunk_id') || Object.hasOwn(value, 'chunk_text')) return 'chunk';
  return 'unknown';
}
