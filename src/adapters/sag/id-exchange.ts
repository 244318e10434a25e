/** How a local database id becomes an OCTX record id (the `idMode` rule). */
import type { PackageBuilder } from '../../builder/package-builder.js';
import type { LedgerKind } from '../../release/producer-state.js';
import type { SagIdMode } from './sag-types.js';
import { preservedRecordId, sagCompatibleId } from './sag-ids.js';

/** Turns a local database id into an OCTX record id (and counts how it was chosen). */
export type IdExchange = (kind: LedgerKind, localId: string, extra: unknown) => string;

/**
 * The record-id rule: a preserved `extra_data.octx.record_id`, else (in `sag-compatible` mode)
 * SAG's own mapping of the local id, else the builder's id ledger under `sag:<local id>`.
 * `counts` is updated by every call of `exchange`.
 */
export function idExchange(builder: PackageBuilder, idMode: SagIdMode): { counts: { preserved: number; sagCompatible: number; ledger: number }; exchange: IdExchange } {
  const counts = { preserved: 0, sagCompatible: 0, ledger: 0 };
  const exchange: IdExchange = (kind, localId, extra) => {
    const preserved = preservedRecordId(extra);
    if (preserved) {
      counts.preserved++;
      return preserved;
    }
    if (idMode === 'sag-compatible') {
      const compatible = sagCompatibleId(localId);
      if (compatible) {
        counts.sagCompatible++;
        return compatible;
      }
    }
    counts.ledger++;
    return builder.ids.id(kind, `sag:${localId}`);
  };
  return { counts, exchange };
}
