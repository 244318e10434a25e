/**
 * The record kinds that `vectors/0.1` can carry vectors for (SEED §7): one Arrow file per
 * target, `vectors/<target>.arrow`, covering every record of the matching JSONL file.
 */
export type VectorTarget = 'chunks' | 'events' | 'entities';

/** Every vector target, in the order the spec lists the standard files. */
export const VECTOR_TARGETS: readonly VectorTarget[] = Object.freeze(['chunks', 'events', 'entities'] as const);

/** True when `value` names a vector target (`chunks`, `events` or `entities`). */
export function isVectorTarget(value: unknown): value is VectorTarget {
  return value === 'chunks' || value === 'events' || value === 'entities';
}
