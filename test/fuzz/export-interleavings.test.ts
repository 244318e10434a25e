/**
 * Property (issue 24, item 1): whatever a producer does while an export runs — `add*`/`link*`/
 * `addVector` calls from a concurrent task that awaits between them, or from inside the export's
 * `onProgress` callback — the export decides and writes from the snapshot taken when `export()`
 * was called. Every export is either refused with a typed error and leaves nothing behind, or
 * writes a package that `validatePackage` accepts, whose report counts equal the records it holds,
 * and which holds exactly the records accepted before `export()` was called. A call made from
 * `onProgress` is always refused with `OCTX_BUILDER_BUSY`; a call from the concurrent task is never
 * accepted by a builder whose export then succeeds.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as macrotask } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OCTX_CODES } from '../../src/model/codes.js';
import { isOctxError, openPackage, PackageBuilder, validatePackage, type ExportResult } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';
import { fuzzParameters, fuzzTimeout } from './fuzz-config.js';

const SHORT_RUNS = 25;

const uuid = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = (i: number): string => uuid(0x100 + i);
const CHUNK = (i: number): string => uuid(0x200 + i);
const EVENT = (i: number): string => uuid(0x300 + i);
const ENTITY = (i: number): string => uuid(0x400 + i);
const DIMS = 3;

/**
 * Whether a call that names other records is made even when they are not (yet) there. Mostly not:
 * a reference nothing resolves refuses the export (`OCTX_STRUCTURE_INVALID`), and the property
 * needs exports that get written as much as refused ones.
 */
const dangling = fc.constantFrom(false, false, false, false, false, false, false, false, false, true);

/** One builder call. Small id ranges, so links meet records (and duplicates happen). */
const call = fc.oneof(
  { weight: 8, arbitrary: fc.record({ t: fc.constant('unit' as const), k: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('doc' as const), d: fc.constant(1) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('chunk' as const), c: fc.nat(4), d: fc.nat(1), dangling }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('event' as const), e: fc.nat(4), parent: fc.option(fc.nat(4), { freq: 3 }), dangling }) },
  // Same-named entities of one type: SAG 1.7 would merge them (its profile refuses the export).
  { weight: 2, arbitrary: fc.record({ t: fc.constant('entity' as const), n: fc.nat(4), clash: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('ce' as const), c: fc.nat(4), e: fc.nat(4), dangling }) },
  // A weight SAG 1.7 cannot store (above 9.99) now and then.
  { weight: 3, arbitrary: fc.record({ t: fc.constant('ee' as const), e: fc.nat(4), n: fc.nat(4), weight: fc.constantFrom(1, 0.5, 1, 12), dangling }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('vec' as const), c: fc.nat(4), dangling }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('ext' as const), k: fc.nat(2) }) },
);
type Call = typeof call extends fc.Arbitrary<infer C> ? C : never;

/** A call of the concurrent task, and what it awaits before it. */
const step = fc.record({ call, wait: fc.constantFrom('microtask', 'macrotask', 'macrotask', 'none') });

const exportChoice = fc.record({
  strict: fc.boolean(),
  consumer: fc.constantFrom('seed' as const, 'sag-1.7' as const),
  vectors: fc.boolean(),
  compressionLevel: fc.constantFrom(0, 6),
  /** Progress events whose callback tries a call (by index), and whether an error escapes it. */
  progressCalls: fc.array(fc.tuple(fc.nat(30), call), { maxLength: 4 }),
  escape: fc.constantFrom(false, false, false, true),
  /** Macrotasks the concurrent task gets before `export()` is called. */
  head: fc.nat(4),
});

const SETS = ['docs', 'ext', 'chunks', 'events', 'entities', 'chunkEvents', 'eventEntities', 'vectors', 'roots'] as const;

/** What the builder accepted before `export()`: the model of what a written package must hold. */
class Model {
  docs = new Set<string>(['knowledge/doc-0.md']);
  ext = new Set<string>();
  chunks = new Set<string>();
  events = new Set<string>();
  entities = new Set<string>();
  chunkEvents = new Set<string>();
  eventEntities = new Set<string>();
  vectors = new Set<string>();
  /** Events without a parent (level 0): the only parents the calls name. */
  roots = new Set<string>();
  clone(): Model {
    const m = new Model();
    for (const k of SETS) m[k] = new Set(this[k]);
    return m;
  }
}

/** What {@link attempt} returns for a call it does not make (what it names is not there). */
const SKIPPED = 'skipped';

/**
 * Runs one call; returns the first error code, {@link SKIPPED}, or undefined when every builder
 * call it made was accepted (and recorded in `m`).
 */
function attempt(b: PackageBuilder, m: Model, c: Call): string | undefined {
  const tries: [() => unknown, () => void][] = [];
  switch (c.t) {
    case 'unit': {
      const k = c.k;
      tries.push(
        [() => b.addChunk({ id: CHUNK(k), document_id: DOC(0), ordinal: k, text: `Unit ${k}.` }), () => m.chunks.add(CHUNK(k))],
        [
          () => b.addEvent({ id: EVENT(k), title: `Unit ${k}`, content: 'Happened.' }),
          () => {
            m.events.add(EVENT(k));
            m.roots.add(EVENT(k));
          },
        ],
        [() => b.addEntity({ id: ENTITY(k), name: `Unit ${k}`, type: 'thing' }), () => m.entities.add(ENTITY(k))],
        [() => b.linkChunkEvent({ chunk_id: CHUNK(k), event_id: EVENT(k) }), () => m.chunkEvents.add(`${CHUNK(k)}|${EVENT(k)}`)],
        [() => b.linkEventEntity({ event_id: EVENT(k), entity_id: ENTITY(k), weight: 1 }), () => m.eventEntities.add(`${EVENT(k)}|${ENTITY(k)}`)],
      );
      break;
    }
    case 'doc':
      tries.push([
        () => b.addDocument({ path: `doc-${c.d}.md`, markdown: `---\noctx:\n  document_id: ${DOC(c.d)}\n---\n# Doc ${c.d}\n\nBody.\n` }),
        () => m.docs.add(`knowledge/doc-${c.d}.md`),
      ]);
      break;
    case 'chunk':
      if (!c.dangling && !m.docs.has(`knowledge/doc-${c.d}.md`)) return SKIPPED;
      tries.push([() => b.addChunk({ id: CHUNK(c.c), document_id: DOC(c.d), ordinal: 100 + c.c, text: `Chunk ${c.c}.` }), () => m.chunks.add(CHUNK(c.c))]);
      break;
    case 'event': {
      const parent = c.parent === null || c.parent === c.e || (!c.dangling && !m.roots.has(EVENT(c.parent))) ? undefined : EVENT(c.parent);
      const record = { id: EVENT(c.e), title: `Event ${c.e}`, content: 'Content.', ...(parent === undefined ? {} : { parent_id: parent, level: 1 }) };
      const accepted = (): void => {
        m.events.add(EVENT(c.e));
        if (parent === undefined) m.roots.add(EVENT(c.e));
      };
      tries.push([() => b.addEvent(record), accepted]);
      break;
    }
    case 'entity':
      tries.push([() => b.addEntity({ id: ENTITY(c.n), name: c.clash ? 'Same' : `Entity ${c.n}`, type: 'thing' }), () => m.entities.add(ENTITY(c.n))]);
      break;
    case 'ce':
      if (!c.dangling && !(m.chunks.has(CHUNK(c.c)) && m.events.has(EVENT(c.e)))) return SKIPPED;
      tries.push([() => b.linkChunkEvent({ chunk_id: CHUNK(c.c), event_id: EVENT(c.e) }), () => m.chunkEvents.add(`${CHUNK(c.c)}|${EVENT(c.e)}`)]);
      break;
    case 'ee':
      if (!c.dangling && !(m.events.has(EVENT(c.e)) && m.entities.has(ENTITY(c.n)))) return SKIPPED;
      tries.push([() => b.linkEventEntity({ event_id: EVENT(c.e), entity_id: ENTITY(c.n), weight: c.weight }), () => m.eventEntities.add(`${EVENT(c.e)}|${ENTITY(c.n)}`)]);
      break;
    case 'vec':
      if (!c.dangling && !m.chunks.has(CHUNK(c.c))) return SKIPPED;
      tries.push([() => b.addVector('chunks', CHUNK(c.c), [1, c.c, 0.5]), () => m.vectors.add(CHUNK(c.c))]);
      break;
    case 'ext':
      tries.push([() => b.addExtensionFile(`extensions/com.example.fuzz/0.1/f${c.k}.txt`, `file ${c.k}`), () => m.ext.add(`extensions/com.example.fuzz/0.1/f${c.k}.txt`)]);
      break;
  }
  let code: string | undefined;
  for (const [fn, accepted] of tries) {
    try {
      fn();
      accepted();
    } catch (e) {
      if (!isOctxError(e)) throw new Error(`a builder call threw a raw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`, { cause: e });
      expect(Object.keys(OCTX_CODES)).toContain(e.code);
      code ??= e.code;
    }
  }
  return code;
}

async function count(it: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of it) n++;
  return n;
}

async function keys(it: AsyncIterable<{ record: unknown }>, key: (r: Record<string, unknown>) => string): Promise<string[]> {
  const out: string[] = [];
  for await (const { record } of it) out.push(key(record as Record<string, unknown>));
  return out.sort();
}

const sorted = (s: Iterable<string>): string[] => [...s].sort();

/** The package holds exactly `m`'s records, its report counts equal its lines, and it validates. */
async function expectWritten(result: ExportResult, m: Model): Promise<void> {
  const report = await validatePackage(result.output);
  expect(report.issues.filter((i) => i.severity === 'error')).toEqual([]);
  expect(report.valid).toBe(true);
  const listed = result.manifest.files.map((f) => f.path);
  expect(sorted(listed.filter((p) => p.startsWith('knowledge/')))).toEqual(sorted(m.docs));
  expect(sorted(listed.filter((p) => p.startsWith('extensions/')))).toEqual(sorted(m.ext));
  expect(result.report.documents.concepts).toBe(m.docs.size);
  const pkg = await openPackage(result.output);
  try {
    const structure = result.report.structure;
    if (structure.status !== 'written') {
      expect(listed.filter((p) => !p.startsWith('knowledge/') && !p.startsWith('extensions/'))).toEqual([]);
      // Even an omitted layer reports what the snapshot held.
      expect(structure.counts).toEqual({
        chunks: m.chunks.size,
        events: m.events.size,
        entities: m.entities.size,
        chunkEvents: m.chunkEvents.size,
        eventEntities: m.eventEntities.size,
      });
      return;
    }
    const counts = {
      chunks: await count(pkg.chunks()),
      events: await count(pkg.events()),
      entities: await count(pkg.entities()),
      chunkEvents: await count(pkg.chunkEvents()),
      eventEntities: await count(pkg.eventEntities()),
    };
    expect(counts).toEqual(structure.counts);
    expect(await keys(pkg.chunks(), (r) => r.id as string)).toEqual(sorted(m.chunks));
    expect(await keys(pkg.events(), (r) => r.id as string)).toEqual(sorted(m.events));
    expect(await keys(pkg.entities(), (r) => r.id as string)).toEqual(sorted(m.entities));
    expect(await keys(pkg.chunkEvents(), (r) => `${r.chunk_id as string}|${r.event_id as string}`)).toEqual(sorted(m.chunkEvents));
    expect(await keys(pkg.eventEntities(), (r) => `${r.event_id as string}|${r.entity_id as string}`)).toEqual(sorted(m.eventEntities));
    const chunks = result.report.vectors.targets.chunks;
    if (chunks.status === 'written') {
      const ids: string[] = [];
      for await (const row of pkg.vectors('chunks')) ids.push(row.recordId);
      expect(ids.length).toBe(chunks.rows);
      expect(sorted(ids)).toEqual(sorted(m.chunks));
      expect(sorted(m.vectors)).toEqual(sorted(m.chunks));
    } else expect(listed.filter((p) => p === 'vectors/chunks.arrow')).toEqual([]);
  } finally {
    await pkg.close();
  }
}

describe('fuzz: add*/link* interleaved with export()', () => {
  it(
    'each export is refused typed, or valid with exactly the records accepted before export() and counts equal to its lines',
    async () => {
      const stats = { written: 0, refused: 0, busy: 0 };
      await fc.assert(
        fc.asyncProperty(fc.array(call, { maxLength: 20 }), fc.array(step, { maxLength: 25 }), exportChoice, async (before, during, options) => {
          const outDir = tempDir('octx-fuzz-out-');
          const spillDir = tempDir('octx-fuzz-spill-');
          const output = join(outDir, 'fuzz.octx');
          const b = new PackageBuilder({
            asset: { id: uuid(1), name: 'Interleaved' },
            release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' },
            tempDir: spillDir,
            strict: options.strict,
          });
          const m = new Model();
          b.addDocument({ path: 'doc-0.md', markdown: `---\noctx:\n  document_id: ${DOC(0)}\n---\n# Doc 0\n\nBody.\n` });
          if (options.vectors) b.setVectorConfig({ model: 'example/model', revision: 'r1', dimensions: DIMS, normalized: false });
          for (const c of before) attempt(b, m, c);

          // The concurrent producer: starts before export(), awaits between calls.
          let exporting = false;
          const acceptedDuring: Call[] = [];
          const producer = (async (): Promise<void> => {
            for (const s of during) {
              if (s.wait === 'microtask') await Promise.resolve();
              else if (s.wait === 'macrotask') await macrotask();
              const was = exporting;
              const code = attempt(b, m, s.call);
              if (was && code === undefined) acceptedDuring.push(s.call);
              if (code === 'OCTX_BUILDER_BUSY') stats.busy++;
            }
          })();
          for (let i = 0; i < options.head; i++) await macrotask();

          let event = 0;
          const progressCodes: (string | undefined)[] = [];
          const onProgress = (): void => {
            const due = options.progressCalls.filter(([at]) => at === event);
            event++;
            for (const [, c] of due) {
              // Made whatever it names (dangling), into a throw-away model: it must be refused.
              progressCodes.push(attempt(b, m.clone(), { ...c, dangling: true } as Call));
              // Uncaught, the refusal escapes the callback and refuses the export.
              if (options.escape) b.addDocument({ path: 'late.md', markdown: '# Late\n' });
            }
          };
          // Everything accepted up to here is what the package must hold.
          const snapshot = m.clone();
          exporting = true;
          let result: ExportResult | undefined;
          let refusal: unknown;
          try {
            result = await b.export({ output, consumer: options.consumer, compressionLevel: options.compressionLevel, onProgress });
          } catch (e) {
            refusal = e;
          } finally {
            exporting = false;
          }
          await producer;
          // Calls from onProgress run inside the export: always refused, never recorded.
          for (const c of progressCodes) expect(c).toBe('OCTX_BUILDER_BUSY');
          stats.busy += progressCodes.length;
          if (refusal !== undefined) {
            if (!isOctxError(refusal)) throw new Error(`export threw a raw ${(refusal as Error)?.constructor?.name}: ${(refusal as Error)?.message}`, { cause: refusal });
            stats.refused++;
            if (process.env.FUZZ_STATS) console.log('refused', refusal.code, refusal.issues[1]?.code ?? refusal.issues[0]?.code);
            expect(readdirSync(outDir)).toEqual([]);
            await b.dispose();
            expect(readdirSync(spillDir)).toEqual([]);
            return;
          }
          stats.written++;
          // A successful export consumed the builder: nothing the task added while it ran was kept.
          expect(acceptedDuring).toEqual([]);
          expect(readdirSync(outDir)).toEqual(['fuzz.octx']);
          expect(readdirSync(spillDir)).toEqual([]);
          await expectWritten(result!, snapshot);
        }),
        fuzzParameters(SHORT_RUNS),
      );
      if (process.env.FUZZ_STATS) console.log('export interleavings', JSON.stringify(stats));
      // The fixed-seed run must exercise both outcomes and the refusal of calls during an export.
      if (process.env.FUZZ_RUNS === undefined && process.env.FUZZ_SEED === undefined) {
        expect(stats.written).toBeGreaterThan(0);
        expect(stats.refused).toBeGreaterThan(0);
        expect(stats.busy).toBeGreaterThan(0);
      }
    },
    fuzzTimeout(SHORT_RUNS, 2_000),
  );
});
