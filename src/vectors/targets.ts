import { IdKind } from '../model/id-kind.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind, type VectorTarget } from '../model/record-kinds.js';

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

/** The record kind whose records a vector target covers. */
export const TARGET_RECORD_KIND = { chunks: 'chunk', events: 'event', entities: 'entity' } as const satisfies Readonly<Record<VectorTarget, RecordKind>>;

/** The id kind of the records a vector target covers (the kind that record kind defines). */
export const TARGET_ID_KIND: Readonly<Record<VectorTarget, IdKind>> = {
  chunks: IdKind[RECORD_KINDS[TARGET_RECORD_KIND.chunks].defines],
  events: IdKind[RECORD_KINDS[TARGET_RECORD_KIND.events].defines],
  entities: IdKind[RECORD_KINDS[TARGET_RECORD_KIND.entities].defines],
};

/** True when `value` names a vector target (`chunks`, `events` or `entities`). */
export function isVectorTarget(value: unknown): value is VectorTarget {
  return value === 'chunks' || value === 'events' || value === 'entities';
}
