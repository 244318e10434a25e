/**
 * One line of text for a diff's counts, as `build --state` and `derive` print it:
 * `changes since 1.0.0: documents +1 -0 ~2 →1; chunks +5 -0 ~1; …`
 * (`+` added, `-` removed, `~` changed, `→` moved; kinds without changes are left out).
 */
import type { PackageChangeCounts } from './change-counts.js';
import { RECORD_KIND_ORDER, recordFileStem } from '../../model/record-kinds.js';
import { VECTOR_TARGETS } from '../../vectors/targets.js';
import { diffKey, type RecordChangeCounts } from './diff-result.js';

const counts = (c: { added: number; removed: number; changed: number }): string => `+${c.added} -${c.removed} ~${c.changed}`;
const touched = (c: RecordChangeCounts): boolean => c.added + c.removed + c.changed > 0;

/** The one-line summary of a diff's counts (`changes since <version>: …`, or `no changes since …`). */
export function changeLine(c: PackageChangeCounts): string {
  const since = `${c.relation === 'derived' ? 'its source ' : ''}${c.against.version ?? c.against.path}`;
  if (!c.hasChanges) return `no changes since ${since}`;
  const parts: string[] = [];
  const d = c.documents;
  if (d.added + d.removed + d.changed + d.moved > 0) parts.push(`documents ${counts(d)} →${d.moved}`);
  for (const kind of RECORD_KIND_ORDER) {
    const r = c.records[diffKey(kind)];
    if (touched(r)) parts.push(`${recordFileStem(kind)} ${counts(r)}`);
  }
  for (const name of VECTOR_TARGETS) {
    const v = c.vectors[name];
    if (!touched(v) && v.stale === 0 && !v.configChanged) continue;
    parts.push(`${name} vectors ${counts(v)}${v.stale > 0 ? ` (${v.stale} stale)` : ''}${v.configChanged ? ' (config changed)' : ''}`);
  }
  if (c.capabilities.added.length > 0) parts.push(`capabilities +${c.capabilities.added.join(' +')}`);
  if (c.capabilities.removed.length > 0) parts.push(`capabilities -${c.capabilities.removed.join(' -')}`);
  // Only extension files changed: the counts above have nothing to say.
  if (parts.length === 0) parts.push('extension files');
  return `changes since ${since}: ${parts.join('; ')}`;
}
