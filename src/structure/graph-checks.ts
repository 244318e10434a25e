import { issue, type OctxIssue } from '../model/errors.js';
import { IdKind, idKindName } from '../model/id-kind.js';
import { REFERENCED } from './id-registry.js';
import type { IdView } from './frozen-ids.js';
import type { StructureColumns } from './structure-snapshot.js';
import { RECORD_KINDS } from '../model/record-kinds.js';

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

  for (let c = 0; c < s.chunkId.length; c++) {
    const doc = s.chunkDocument[c]!;
    if (ids.kindOf(doc) !== IdKind.document) {
      issues.push(
        issue({
          code: 'OCTX_CHUNK_DOCUMENT_MISSING',
          path: RECORD_KINDS.chunk.path,
          recordId: ids.idOf(s.chunkId[c]!),
          field: 'document_id',
          message: `document_id ${ids.idOf(doc)} is not a Concept Document of this package (${wrongKind(doc)})`,
        }),
      );
    }
  }

  const eventCount = s.eventId.length;
  for (let e = 0; e < eventCount; e++) {
    const p = s.eventParent[e]!;
    if (p >= 0 && ids.kindOf(p) !== IdKind.event) {
      issues.push(
        issue({
          code: 'OCTX_EVENT_PARENT_MISSING',
          path: RECORD_KINDS.event.path,
          recordId: ids.idOf(s.eventId[e]!),
          field: 'parent_id',
          message: `parent_id ${ids.idOf(p)} is not an event (${wrongKind(p)})`,
        }),
      );
    }
  }
  issues.push(...checkHierarchy(ids, s));

  for (let i = 0; i < s.linkChunk.length; i++) {
    const c = s.linkChunk[i]!;
    const e = s.linkEvent[i]!;
    if (ids.kindOf(c) !== IdKind.chunk) {
      issues.push(
        issue({
          code: 'OCTX_CHUNK_EVENT_CHUNK_MISSING',
          path: RECORD_KINDS['chunk-event'].path,
          line: i + 1,
          recordId: ids.idOf(c),
          field: 'chunk_id',
          message: `chunk-event link names chunk ${ids.idOf(c)} (${wrongKind(c)})`,
        }),
      );
    }
    if (ids.kindOf(e) !== IdKind.event) {
      issues.push(
        issue({
          code: 'OCTX_CHUNK_EVENT_EVENT_MISSING',
          path: RECORD_KINDS['chunk-event'].path,
          line: i + 1,
          recordId: ids.idOf(e),
          field: 'event_id',
          message: `chunk-event link names event ${ids.idOf(e)} (${wrongKind(e)})`,
        }),
      );
    }
  }
  for (let i = 0; i < s.mentionEvent.length; i++) {
    const e = s.mentionEvent[i]!;
    const n = s.mentionEntity[i]!;
    if (ids.kindOf(e) !== IdKind.event) {
      issues.push(
        issue({
          code: 'OCTX_EVENT_ENTITY_EVENT_MISSING',
          path: RECORD_KINDS['event-entity'].path,
          line: i + 1,
          recordId: ids.idOf(e),
          field: 'event_id',
          message: `event-entity link names event ${ids.idOf(e)} (${wrongKind(e)})`,
        }),
      );
    }
    if (ids.kindOf(n) !== IdKind.entity) {
      issues.push(
        issue({
          code: 'OCTX_EVENT_ENTITY_ENTITY_MISSING',
          path: RECORD_KINDS['event-entity'].path,
          line: i + 1,
          recordId: ids.idOf(n),
          field: 'entity_id',
          message: `event-entity link names entity ${ids.idOf(n)} (${wrongKind(n)})`,
        }),
      );
    }
  }
  return issues;
}

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
