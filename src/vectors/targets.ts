import type { IdKind } from '../model/id-kind.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type VectorTarget } from '../model/record-kinds.js';
import { TARGET_RECORD_KIND, VECTOR_TARGET_FORMATS } from '../model/vector-format.js';

/**
 * The record kinds that `vectors/0.1` can carry vectors for (SEED §7): one Arrow file per
 * target, `vectors/<target>.arrow`, covering every record of the matching JSONL file.
 */
export type { VectorTarget } from '../model/record-kinds.js';

/** Every vector target, in the order the spec lists the standard files (from `RECORD_KINDS`). */
export const VECTOR_TARGETS: readonly VectorTarget[] = Object.freeze(
  RECORD_KIND_ORDER.flatMap((kind): VectorTarget[] => {
    const target = (RECORD_KINDS[kind] as { vectorTarget?: VectorTarget }).vectorTarget;
    return target === undefined ? [] : [target];
  }),
);

/** The record kind whose records a vector target covers (from `VECTOR_TARGET_FORMATS`). */
export { TARGET_RECORD_KIND };

/** The id kind of the records a vector target covers (from `VECTOR_TARGET_FORMATS`). */
export const TARGET_ID_KIND: Readonly<Record<VectorTarget, IdKind>> = Object.freeze({
  chunks: VECTOR_TARGET_FORMATS.chunks.idKind,
  events: VECTOR_TARGET_FORMATS.events.idKind,
  entities: VECTOR_TARGET_FORMATS.entities.idKind,
});

/** True when `value` names a vector target (`chunks`, `events` or `entities`). */
export function isVectorTarget(value: unknown): value is VectorTarget {
  return value === 'chunks' || value === 'events' || value === 'entities';
}
