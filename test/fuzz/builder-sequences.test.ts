/**
 * Property: whatever mix of builder calls a producer makes (valid and invalid documents, records,
 * links, vectors, extension files), every call either succeeds or throws a typed OctxError, and
 * the export either throws a typed OctxError and leaves nothing behind (no output, no temporary
 * file, no spill folder once disposed), or writes a package that validatePackage accepts, holding
 * exactly the records that were accepted.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OCTX_CODES } from '../../src/model/codes.js';
import { isOctxError, openPackage, PackageBuilder, validatePackage, type ExportOptions } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';
import { fuzzParameters, fuzzTimeout } from './fuzz-config.js';

const SHORT_RUNS = 30;

const uuid = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = (i: number): string => uuid(0x100 + i);
const CHUNK = (i: number): string => uuid(0x200 + i);
const EVENT = (i: number): string => uuid(0x300 + i);
const ENTITY = (i: number): string => uuid(0x400 + i);
const TARGETS = ['chunks', 'events', 'entities'] as const;
type Target = (typeof TARGETS)[number];

const command = fc.oneof(
  { weight: 10, arbitrary: fc.record({ t: fc.constant('unit' as const), k: fc.nat(3), vectors: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('doc' as const), d: fc.nat(3), broken: fc.nat(5) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('chunk' as const),
      c: fc.nat(7),
      d: fc.nat(4),
      ordinal: fc.integer({ min: -1, max: 3 }),
      text: fc.constantFrom('text', '', '  ', 'a\u2028b', 'x'.repeat(50), 5 as unknown as string),
      idFrom: fc.constantFrom('chunk', 'event', 'bad'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('event' as const),
      e: fc.nat(5),
      parent: fc.option(fc.nat(5)),
      level: fc.integer({ min: 0, max: 2 }),
      title: fc.constantFrom('Event', '', null),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('entity' as const), n: fc.nat(5), name: fc.constantFrom('Entity', '', 7), type: fc.constantFrom('thing', undefined) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('ce' as const), c: fc.nat(7), e: fc.nat(5) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('ee' as const), e: fc.nat(5), n: fc.nat(5), weight: fc.constantFrom(0.5, 1, Number.NaN, null, undefined, '1') }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('ext' as const),
      k: fc.nat(2),
      badPath: fc.boolean(),
      content: fc.constantFrom<unknown>('text', new Uint8Array([1, 2]), 5, null, { length: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('vcfg' as const), dims: fc.constantFrom(2, 3) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('junk' as const),
      method: fc.constantFrom(
        'addDocument',
        'addChunk',
        'addEvent',
        'addEntity',
        'linkChunkEvent',
        'linkEventEntity',
        'setVectorConfig',
        'addExtensionFile',
        'addVector',
        'documentId',
      ),
      arg: fc.constantFrom<unknown>(null, undefined, 5, 'x', [], {}, { length: 3 }, { path: 5 }, { id: null }, Number.NaN),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('vec' as const),
      target: fc.constantFrom<Target>(...TARGETS),
      i: fc.nat(7),
      shape: fc.constantFrom('ok', 'ok', 'f32', 'f64', 'short', 'nan', 'null', 'arraylike', 'strings'),
    }),
  },
);

type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

const exportChoice = fc.constantFrom<Partial<ExportOptions>>({}, { structure: 'require' }, { documentsOnly: true }, { verify: 'full' }, { compressionLevel: 0 });

/** What the builder accepted, as the model of what the package must hold. */
class Model {
  docs = new Set<string>();
  ext = new Set<string>();
  chunks = new Set<string>();
  events = new Set<string>();
  entities = new Set<string>();
  chunkEvents = new Set<string>();
  eventEntities = new Set<string>();
  vectors: Record<Target, Set<string>> = { chunks: new Set(), events: new Set(), entities: new Set() };
  dims: number | undefined;
}

function vectorOf(shape: string, dims: number): unknown {
  const ok = Array.from({ length: dims }, (_, i) => (i + 1) / 10);
  switch (shape) {
    case 'f32':
      return new Float32Array(ok);
    case 'f64':
      return new Float64Array(ok);
    case 'short':
      return ok.slice(1);
    case 'nan':
      return [Number.NaN, ...ok.slice(1)];
    case 'null':
      return null;
    case 'arraylike':
      return { length: dims };
    case 'strings':
      return ok.map(String);
    default:
      return ok;
  }
}

/** Runs one call; a non-OctxError or an unknown code fails the property. Returns whether it was accepted. */
function attempt(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch (e) {
    if (!isOctxError(e)) throw new Error(`a builder call threw a raw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`, { cause: e });
    expect(Object.keys(OCTX_CODES)).toContain(e.code);
    return false;
  }
}

function apply(b: PackageBuilder, m: Model, cmd: Command): void {
  switch (cmd.t) {
    case 'unit': {
      const k = cmd.k;
      const path = `unit-${k}.md`;
      if (attempt(() => b.addDocument({ path, markdown: `---\noctx:\n  document_id: ${DOC(10 + k)}\n---\n# Unit ${k}\n\nBody.\n` }))) m.docs.add(`knowledge/${path}`);
      if (attempt(() => b.addChunk({ id: CHUNK(10 + k), document_id: DOC(10 + k), ordinal: 0, text: `Unit ${k}.` }))) m.chunks.add(CHUNK(10 + k));
      if (attempt(() => b.addEvent({ id: EVENT(10 + k), title: `Unit ${k}`, content: 'Happened.' }))) m.events.add(EVENT(10 + k));
      if (attempt(() => b.addEntity({ id: ENTITY(10 + k), name: `Unit ${k}`, type: 'thing' }))) m.entities.add(ENTITY(10 + k));
      if (attempt(() => b.linkChunkEvent({ chunk_id: CHUNK(10 + k), event_id: EVENT(10 + k) }))) m.chunkEvents.add(`${CHUNK(10 + k)}|${EVENT(10 + k)}`);
      if (attempt(() => b.linkEventEntity({ event_id: EVENT(10 + k), entity_id: ENTITY(10 + k), weight: 1 }))) m.eventEntities.add(`${EVENT(10 + k)}|${ENTITY(10 + k)}`);
      if (cmd.vectors && m.dims !== undefined) {
        const dims = m.dims;
        for (const [target, id] of [
          ['chunks', CHUNK(10 + k)],
          ['events', EVENT(10 + k)],
          ['entities', ENTITY(10 + k)],
        ] as const) {
          if (attempt(() => b.addVector(target, id, vectorOf('ok', dims) as never))) m.vectors[target].add(id);
        }
      }
      return;
    }
    case 'doc': {
      const path = cmd.broken === 1 ? `../doc-${cmd.d}.md` : `doc-${cmd.d}.md`;
      const markdown =
        cmd.broken === 2
          ? `---\ntitle: unclosed\n# Doc\n`
          : cmd.broken === 3
            ? (42 as unknown as string)
            : cmd.broken === 4
              ? `---\nx: ${'['.repeat(150)}${']'.repeat(150)}\n---\n# Deep\n`
              : `---\noctx:\n  document_id: ${DOC(cmd.d)}\n---\n# Doc ${cmd.d}\n\nBody.\n`;
      if (attempt(() => b.addDocument({ path, markdown }))) m.docs.add(`knowledge/${path}`);
      return;
    }
    case 'chunk': {
      const id = cmd.idFrom === 'chunk' ? CHUNK(cmd.c) : cmd.idFrom === 'event' ? EVENT(cmd.c % 6) : `not-a-uuid-${cmd.c}`;
      const record = { id, document_id: cmd.d === 4 ? uuid(0xfff) : DOC(cmd.d), ordinal: cmd.ordinal, text: cmd.text };
      if (attempt(() => b.addChunk(record))) m.chunks.add(id);
      return;
    }
    case 'event': {
      const record: Record<string, unknown> = { id: EVENT(cmd.e), title: cmd.title, content: 'Content.' };
      if (cmd.parent !== null) {
        record.parent_id = EVENT(cmd.parent);
        record.level = cmd.level;
      }
      if (attempt(() => b.addEvent(record as never))) m.events.add(EVENT(cmd.e));
      return;
    }
    case 'entity': {
      const record = { id: ENTITY(cmd.n), name: cmd.name, ...(cmd.type === undefined ? {} : { type: cmd.type }) };
      if (attempt(() => b.addEntity(record as never))) m.entities.add(ENTITY(cmd.n));
      return;
    }
    case 'ce':
      if (attempt(() => b.linkChunkEvent({ chunk_id: CHUNK(cmd.c), event_id: EVENT(cmd.e) }))) m.chunkEvents.add(`${CHUNK(cmd.c)}|${EVENT(cmd.e)}`);
      return;
    case 'ee': {
      const link = { event_id: EVENT(cmd.e), entity_id: ENTITY(cmd.n), ...(cmd.weight === undefined ? {} : { weight: cmd.weight }) };
      if (attempt(() => b.linkEventEntity(link as never))) m.eventEntities.add(`${EVENT(cmd.e)}|${ENTITY(cmd.n)}`);
      return;
    }
    case 'ext': {
      const path = cmd.badPath ? `extensions/Bad Name/${cmd.k}.txt` : `extensions/com.example.fuzz/0.1/f${cmd.k}.txt`;
      if (attempt(() => b.addExtensionFile(path, cmd.content as never))) m.ext.add(path);
      return;
    }
    case 'junk': {
      // Wrong argument types anywhere: typed errors only, nothing accepted.
      const call = (b as unknown as Record<string, (...args: unknown[]) => unknown>)[cmd.method]!.bind(b);
      const args = cmd.method === 'addVector' ? ['chunks', CHUNK(0), cmd.arg] : cmd.method === 'addExtensionFile' ? [cmd.arg, cmd.arg] : [cmd.arg];
      expect(attempt(() => call(...args)) && cmd.method !== 'documentId').toBe(false);
      return;
    }
    case 'vcfg':
      if (attempt(() => b.setVectorConfig({ model: 'example/model', revision: 'r1', dimensions: cmd.dims, normalized: false }))) m.dims = cmd.dims;
      return;
    case 'vec': {
      const id = cmd.target === 'chunks' ? CHUNK(cmd.i) : cmd.target === 'events' ? EVENT(cmd.i % 6) : ENTITY(cmd.i % 6);
      if (attempt(() => b.addVector(cmd.target, id, vectorOf(cmd.shape, m.dims ?? 3) as never))) m.vectors[cmd.target].add(id);
      return;
    }
  }
}

async function idsOf(it: AsyncIterable<{ record: unknown }>, key: (r: Record<string, unknown>) => string): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const { record } of it) out.add(key(record as Record<string, unknown>));
  return out;
}

const sorted = (s: Iterable<string>): string[] => [...s].sort();

describe('fuzz: builder call sequences', () => {
  it(
    'every export throws a typed error and leaves nothing, or writes a valid package with exactly the accepted records',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), exportChoice, fc.boolean(), async (commands, exportOptions, configFirst) => {
          const outDir = tempDir('octx-fuzz-out-');
          const spillDir = tempDir('octx-fuzz-spill-');
          const output = join(outDir, 'fuzz.octx');
          const b = new PackageBuilder({ asset: { id: uuid(1), name: 'Fuzz' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' }, tempDir: spillDir });
          const m = new Model();
          if (configFirst) apply(b, m, { t: 'vcfg', dims: 3 });
          for (const cmd of commands) apply(b, m, cmd);
          let result;
          try {
            result = await b.export({ output, ...exportOptions });
          } catch (e) {
            if (process.env.FUZZ_STATS) console.log('export refused', (e as Error & { code?: string }).code);
            if (!isOctxError(e)) throw new Error(`export threw a raw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`, { cause: e });
            expect(readdirSync(outDir)).toEqual([]);
            await b.dispose();
            expect(readdirSync(spillDir)).toEqual([]);
            return;
          }
          if (process.env.FUZZ_STATS) console.log('export ok', result.report.structure.status, JSON.stringify(result.report.vectors.targets));
          expect(readdirSync(outDir)).toEqual(['fuzz.octx']);
          expect(readdirSync(spillDir)).toEqual([]);
          const report = await validatePackage(output);
          expect(report.issues.filter((i) => i.severity === 'error')).toEqual([]);
          expect(report.valid).toBe(true);
          const listed = result.manifest.files.map((f) => f.path);
          expect(sorted(listed.filter((p) => p.startsWith('knowledge/')))).toEqual(sorted(m.docs));
          expect(sorted(listed.filter((p) => p.startsWith('extensions/')))).toEqual(sorted(m.ext));
          const pkg = await openPackage(output);
          try {
            if (result.report.structure.status === 'written') {
              expect(exportOptions.documentsOnly).not.toBe(true);
              expect(sorted(await idsOf(pkg.chunks(), (r) => r.id as string))).toEqual(sorted(m.chunks));
              expect(sorted(await idsOf(pkg.events(), (r) => r.id as string))).toEqual(sorted(m.events));
              expect(sorted(await idsOf(pkg.entities(), (r) => r.id as string))).toEqual(sorted(m.entities));
              expect(sorted(await idsOf(pkg.chunkEvents(), (r) => `${r.chunk_id as string}|${r.event_id as string}`))).toEqual(sorted(m.chunkEvents));
              expect(sorted(await idsOf(pkg.eventEntities(), (r) => `${r.event_id as string}|${r.entity_id as string}`))).toEqual(sorted(m.eventEntities));
              const records: Record<Target, Set<string>> = { chunks: m.chunks, events: m.events, entities: m.entities };
              for (const target of TARGETS) {
                if (result.report.vectors.targets[target].status !== 'written') continue;
                const ids = new Set<string>();
                for await (const row of pkg.vectors(target)) ids.add(row.recordId);
                expect(sorted(ids)).toEqual(sorted(records[target]));
                for (const id of ids) expect(m.vectors[target].has(id)).toBe(true);
              }
            } else {
              expect(listed.filter((p) => !p.startsWith('knowledge/') && !p.startsWith('extensions/'))).toEqual([]);
              if (exportOptions.structure === 'require' && m.chunks.size + m.events.size + m.entities.size > 0)
                throw new Error('structure: require exported without the structure');
            }
          } finally {
            await pkg.close();
          }
        }),
        fuzzParameters(SHORT_RUNS),
      );
    },
    fuzzTimeout(SHORT_RUNS, 1_500),
  );
});
