/**
 * The snapshot an export plans and writes from (issue 24, item 1), below the builder: the frozen
 * views of the id space, the structure store and the vector spills keep describing what was
 * collected when they were taken, whatever is added afterwards, and the planner decides from them
 * alone. (The builder also refuses adds while an export runs; these tests show the snapshot holds
 * without that.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IdKind } from '../../src/model/id-kind.js';
import { resolveLimits } from '../../src/model/limits.js';
import type { Collected, CollectedDocument } from '../../src/plan/collected.js';
import { planExport } from '../../src/plan/planner.js';
import { FrozenIds } from '../../src/structure/frozen-ids.js';
import { IdRegistry, REFERENCED } from '../../src/structure/id-registry.js';
import { StructureStore } from '../../src/structure/structure-store.js';
import { VectorSpill, type VectorRows } from '../../src/vectors/vector-spill.js';
import type { VectorTarget } from '../../src/vectors/targets.js';
import { failure } from '../helpers/errors.js';

const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd0);

const dirs: string[] = [];
const dir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'octx-snapshot-'));
  dirs.push(d);
  return d;
};
const closers: (() => void)[] = [];
afterEach(() => {
  while (closers.length > 0) closers.pop()!();
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A store with one document, one complete unit, and chunk 2 in no link yet. */
function store(): { ids: IdRegistry; s: StructureStore; doc: CollectedDocument } {
  const ids = new IdRegistry();
  ids.define(id(1), IdKind.asset, 0);
  const dense = ids.define(DOC, IdKind.document, 0);
  const s = new StructureStore(ids, dir());
  closers.push(() => s.close());
  s.add('chunk', { id: id(0x11), document_id: DOC, ordinal: 0, text: 'One.' });
  s.add('chunk', { id: id(0x12), document_id: DOC, ordinal: 1, text: 'Two.' });
  s.add('event', { id: id(0x21), title: 'Counting', content: 'Counted.' });
  s.add('entity', { id: id(0x31), name: 'Counter', type: 'person' });
  s.add('chunk-event', { chunk_id: id(0x11), event_id: id(0x21) });
  s.add('event-entity', { event_id: id(0x21), entity_id: id(0x31) });
  // The document's bytes are not read by the planner: only its path, kind and dense id matter here.
  const doc = { path: 'knowledge/a.md', kind: 'concept', documentId: DOC, dense, size: 0, sha256: '' } as unknown as CollectedDocument;
  return { ids, s, doc };
}

function collected(ids: IdRegistry, s: StructureStore, doc: CollectedDocument, vectors = new Map<VectorTarget, VectorRows>()): Collected {
  const structure = s.freeze();
  return {
    ids: new FrozenIds(ids, { document: 1, chunk: structure.chunkId.length, event: structure.eventId.length, entity: structure.entityId.length }),
    documents: [doc],
    extensions: [],
    structure,
    vectorSpills: vectors,
    callerDigests: new Set(),
    workDir: dir(),
  };
}

const PLAN = { documentsOnly: false, structure: 'auto', limits: resolveLimits() } as const;

describe('the export snapshot, below the builder', () => {
  it('FrozenIds: an id defined after the snapshot is still only a reference in it; one interned after it is unknown', () => {
    const ids = new IdRegistry();
    const a = ids.define(id(0x21), IdKind.event, 0);
    const b = ids.ref(id(0x22)); // referenced (a parent_id), defined later
    const frozen = new FrozenIds(ids, { document: 0, chunk: 0, event: 1, entity: 0 });
    ids.define(id(0x22), IdKind.event, 1);
    const c = ids.define(id(0x23), IdKind.event, 2);
    expect(ids.kindOf(b)).toBe(IdKind.event);
    expect([frozen.kindOf(a), frozen.slotOf(a)]).toEqual([IdKind.event, 0]);
    expect([frozen.kindOf(b), frozen.slotOf(b)]).toEqual([REFERENCED, -1]);
    expect(frozen.kindOf(c)).toBe(REFERENCED);
    expect(frozen.find(id(0x23))).toBe(-1);
    expect(frozen.find(id(0x22))).toBe(b);
    expect(frozen.size).toBe(2);
    expect(frozen.idOf(b)).toBe(id(0x22));
  });

  it('StructureStore.freeze: columns, files and warnings stay as they were while records are added', () => {
    const { s } = store();
    const before = s.freeze();
    s.add('chunk-event', { chunk_id: id(0x12), event_id: id(0x21) });
    for (let i = 0; i < 2000; i++) s.add('entity', { id: id(0x10000 + i), name: `E${i}`, type: 'thing', descripton: 'x' }); // grows the columns, adds suspects
    const after = s.freeze();
    expect([before.chunkId.length, before.linkChunk.length, before.entityId.length]).toEqual([2, 1, 1]);
    expect([after.linkChunk.length, after.entityId.length]).toEqual([2, 2001]);
    expect(before.files['chunk-event'].lines).toBe(1);
    expect(before.files['chunk-event'].size).toBeLessThan(after.files['chunk-event'].size);
    expect(before.fieldWarnings).toEqual([]);
    expect(after.fieldWarnings.length).toBeGreaterThan(0);
    expect(Array.from(before.linkChunk)).toEqual([after.linkChunk[0]]);
  });

  it('planExport decides from the snapshot: a link added after it neither completes its coverage nor enters its counts', () => {
    const { ids, s, doc } = store();
    const snapshot = collected(ids, s, doc);
    s.add('chunk-event', { chunk_id: id(0x12), event_id: id(0x21) }); // live coverage is complete now
    const plan = planExport(snapshot, PLAN);
    expect(plan.structure.status).toBe('omitted');
    expect(plan.structure.counts).toEqual({ chunks: 2, events: 1, entities: 1, chunkEvents: 1, eventEntities: 1 });
    expect(plan.degradations.map((d) => d.cause)).toEqual(['coverage-incomplete']);
    expect(failure(() => planExport(snapshot, { ...PLAN, strict: true })).code).toBe('OCTX_STRICT_VIOLATION');
    // The live state, frozen now, is complete: the same planner writes it.
    const now = planExport(collected(ids, s, doc), PLAN);
    expect(now.structure.status).toBe('written');
    expect(now.files.find((f) => f.path === 'relations/chunk-events.jsonl')?.size).toBe(s.freeze().files['chunk-event'].size);
  });

  it('planExport decides from the snapshot: a reference resolved by a record added after it is still dangling', () => {
    const { ids, s, doc } = store();
    s.add('chunk-event', { chunk_id: id(0x12), event_id: id(0x22) }); // event 0x22 is added only later
    const snapshot = collected(ids, s, doc);
    s.add('event', { id: id(0x22), title: 'Late', content: 'Late.' });
    s.add('event-entity', { event_id: id(0x22), entity_id: id(0x31) });
    const e = failure(() => planExport(snapshot, PLAN));
    expect(e.code).toBe('OCTX_STRUCTURE_INVALID');
    expect(e.issues.map((i) => [i.code, i.recordId])).toEqual([['OCTX_CHUNK_EVENT_EVENT_MISSING', id(0x22)]]);
    expect(planExport(collected(ids, s, doc), PLAN).structure.status).toBe('written');
  });

  it('VectorSpill.freeze: later vectors are absent from the view, and a later replacement still reads the old row', () => {
    const spill = new VectorSpill({ file: join(dir(), 'v.f32'), target: 'chunks', dimensions: 2, normalized: false });
    closers.push(() => spill.close());
    spill.add(0, id(0x11), [1, 2], { inputSha256: 'a'.repeat(64) });
    const view = spill.freeze();
    spill.add(1, id(0x12), [3, 4], { inputSha256: 'b'.repeat(64) });
    spill.add(0, id(0x11), [5, 6], { inputSha256: 'c'.repeat(64), replace: true });
    spill.add(0, id(0x11), [7, 8], { inputSha256: 'd'.repeat(64), replace: true });
    expect([view.size, view.has(0), view.has(1)]).toEqual([1, true, false]);
    expect([spill.size, spill.has(1)]).toEqual([2, true]);
    const rows = new Float32Array(2);
    view.readRows([0], rows);
    expect(Array.from(rows)).toEqual([1, 2]);
    const digest = Buffer.alloc(64);
    view.readInputSha256([0], digest);
    expect(digest.toString('latin1')).toBe('a'.repeat(64));
    spill.readRows([0], rows);
    expect(Array.from(rows)).toEqual([7, 8]);
    expect(failure(() => view.readRows([1], rows)).code).toBe('OCTX_VECTOR_COVERAGE');
    // A view taken after the replacements sees them.
    const later = spill.freeze();
    view.release();
    const both = new Float32Array(4);
    later.readRows([0, 1], both);
    expect(Array.from(both)).toEqual([7, 8, 3, 4]);
    later.release();
  });
});
