import { issue, type OctxIssue } from '../model/errors.js';
import { IdKind, idKindName, type IdKindName } from '../model/id-kind.js';
import { REFERENCED } from './id-registry.js';
import type { IdView } from './frozen-ids.js';
import { RECORD_COLUMNS, type ColumnName, type StructureColumns } from './structure-snapshot.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKindSpec } from '../model/record-kinds.js';

/**
 * Cross-record checks that need every record (OCTX-REFERENCE §10.2–§10.4): references resolve to
 * a record of the right kind, `level = parent.level + 1`, and the event hierarchy has no cycle.
 * Returns every problem; an empty list means the graph is sound. Coverage is separate (it decides
 * whether the layer ships, not whether the input is wrong).
 */
export function checkStructureGraph(ids: IdView, s: StructureColumns): OctxIssue[] {
  const issues: OctxIssue[] = [];
  const wrongKind = (dense: number): string => {
    const k = ids.kindOf(dense);
    return k === REFERENCED ? 'no record has this id' : `this id is a ${idKindName(k)}`;
  };
  // Each reference of each row of RECORD_KINDS, read from its column (RECORD_COLUMNS).
  for (const kind of RECORD_KIND_ORDER) {
    const row: RecordKindSpec = RECORD_KINDS[kind];
    const columns: Readonly<Record<string, ColumnName>> = RECORD_COLUMNS[kind];
    const own = row.role === 'record' ? s[columns[row.recordIdField]!] : undefined;
    for (const [field, refKind] of Object.entries(row.references)) {
      const refs = s[columns[field]!];
      const want = IdKind[refKind];
      for (let i = 0; i < refs.length; i++) {
        const d = refs[i]!;
        if (d < 0 || ids.kindOf(d) === want) continue;
        const named = ids.idOf(d);
        issues.push(
          issue({
            code: row.fields[field]!.missingCode!,
            path: row.path,
            // A relation is named by its line and the end that dangles; a record by its own id.
            ...(own === undefined ? { line: i + 1 } : {}),
            recordId: own === undefined ? named : ids.idOf(own[i]!),
            field,
            message:
              own === undefined
                ? `${kind} link names ${refKind} ${named} (${wrongKind(d)})`
                : `${field} ${named} is not ${REFERENCE_NOUN[refKind]} of this package (${wrongKind(d)})`,
          }),
        );
      }
    }
  }
  issues.push(...checkHierarchy(ids, s));
  return issues;
}

/** What a record's reference must name, in a message. */
const REFERENCE_NOUN: Readonly<Record<IdKindName, string>> = { asset: 'an asset', document: 'a Concept Document', chunk: 'a chunk', event: 'an event', entity: 'an entity' };

/** Cycle detection (iterative, three colours) and the level rule, over event table positions. */
function checkHierarchy(ids: IdView, s: StructureColumns): OctxIssue[] {
  const issues: OctxIssue[] = [];
  const n = s.eventId.length;
  const parentSlot = new Int32Array(n).fill(-1);
  for (let e = 0; e < n; e++) {
    const p = s.eventParent[e]!;
    if (p >= 0 && ids.kindOf(p) === IdKind.event) parentSlot[e] = ids.slotOf(p);
  }
  // 0 = unvisited, 1 = on the current path, 2 = done (no cycle through it), 3 = on a cycle.
  const state = new Uint8Array(n);
  const path: number[] = [];
  for (let start = 0; start < n; start++) {
    if (state[start] !== 0) continue;
    let e = start;
    while (e >= 0 && state[e] === 0) {
      state[e] = 1;
      path.push(e);
      e = parentSlot[e]!;
    }
    if (e >= 0 && state[e] === 1) {
      // Everything from e to the end of the path is the cycle.
      const from = path.indexOf(e);
      const members = path.slice(from);
      for (const m of members) state[m] = 3;
      const names = members.map((m) => ids.idOf(s.eventId[m]!));
      for (const m of members) {
        issues.push(
          issue({
            code: 'OCTX_EVENT_HIERARCHY_CYCLE',
            path: RECORD_KINDS.event.path,
            recordId: ids.idOf(s.eventId[m]!),
            field: 'parent_id',
            message: `the parent chain loops: ${names.join(' → ')} → ${names[0]!}`,
          }),
        );
      }
      path.length = from;
    }
    for (const m of path) state[m] = 2;
    path.length = 0;
  }
  for (let e = 0; e < n; e++) {
    const p = parentSlot[e]!;
    if (p < 0 || state[e] === 3) continue;
    const expected = s.eventLevel[p]! + 1;
    const declared = s.eventLevel[e]!;
    if (declared !== expected) {
      issues.push(
        issue({
          code: 'OCTX_EVENT_LEVEL_INVALID',
          path: RECORD_KINDS.event.path,
          recordId: ids.idOf(s.eventId[e]!),
          field: 'level',
          message: `level is ${declared} but its parent ${ids.idOf(s.eventId[p]!)} has level ${s.eventLevel[p]!}, so it must be ${expected}`,
        }),
      );
    }
  }
  return issues;
}
