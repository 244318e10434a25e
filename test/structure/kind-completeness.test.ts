/**
 * Every layer that goes through the record kinds goes through all of them: a package holding
 * records of every kind of `RECORD_KINDS` (a different count per kind, so a swapped or dropped
 * kind shows) is exported, summarised, derived, diffed, inspected by the CLI, reloaded as a
 * working folder, exported again with one orphan (the planner's dropped sum), and its producer
 * state is reloaded. The expectations iterate the table: a kind one of those consumers forgets
 * fails here. The samples are a `Record<RecordKind, …>`, so a new kind does not compile until it
 * has records here too.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, ProducerState, diffPackages, loadWorkdir, openPackage, LEDGER_KINDS, type ExportResult, type IdLedger } from 'octx-export';
import { RECORD_KINDS, RECORD_KIND_ORDER, recordFileStem, type RecordCountKey, type RecordKind, type RecordKindSpec } from '../../src/model/record-kinds.js';
import { diffKey } from '../../src/read/diff/diff-result.js';
import { exportSummary } from '../../src/cli/export-run.js';
import { runCli } from '../cli/run-cli.js';
import { tempDir } from '../helpers/temp.js';
import { inspectZip } from '../helpers/zip-inspect.js';

const CREATED = '2026-07-14T09:00:00Z';

/** Records of every kind, named by producer keys the ledger turns into ids: 2, 3, 4, 5 and 6 of them. */
function samples(ids: IdLedger, documentId: string): Record<RecordKind, object[]> {
  const c = (k: string): string => ids.id('chunk', k);
  const e = (k: string): string => ids.id('event', k);
  const n = (k: string): string => ids.id('entity', k);
  return {
    chunk: [
      { id: c('c1'), document_id: documentId, ordinal: 0, text: 'First chunk.' },
      { id: c('c2'), document_id: documentId, ordinal: 1, text: 'Second chunk.' },
    ],
    event: [
      { id: e('e1'), title: 'E1', content: 'It began.' },
      { id: e('e2'), title: 'E2', content: 'It went on.' },
      { id: e('e3'), title: 'E3', content: 'A part of E1.', parent_id: e('e1'), level: 1 },
    ],
    entity: ['n1', 'n2', 'n3', 'n4'].map((k) => ({ id: n(k), name: k.toUpperCase(), type: 'thing' })),
    'chunk-event': [
      ['c1', 'e1'],
      ['c1', 'e2'],
      ['c2', 'e2'],
      ['c2', 'e3'],
      ['c1', 'e3'],
    ].map(([a, b]) => ({ chunk_id: c(a!), event_id: e(b!) })),
    'event-entity': [
      ['e1', 'n1'],
      ['e2', 'n2'],
      ['e3', 'n3'],
      ['e3', 'n4'],
      ['e1', 'n2'],
      ['e2', 'n3'],
    ].map(([a, b]) => ({ event_id: e(a!), entity_id: n(b!), weight: 0.5 })),
  };
}

const spec = (kind: RecordKind): RecordKindSpec => RECORD_KINDS[kind];
const countKey = (kind: RecordKind): RecordCountKey => RECORD_KINDS[kind].countKey;

interface Built {
  readonly result: ExportResult;
  readonly counts: Record<RecordKind, number>;
  readonly state: string;
  readonly minted: Record<string, Record<string, string>>;
}

async function build(dir: string, extra?: (b: PackageBuilder, ids: IdLedger) => void): Promise<Built> {
  const state = join(dir, 'state.json');
  const builder = new PackageBuilder({ asset: { name: 'every kind' }, release: { version: '1.0.0', createdAt: CREATED }, state });
  const documentId = builder.ids.id('document', 'knowledge/a.md');
  builder.addDocument({ path: 'a.md', markdown: `---\ntype: Reference\ntitle: A\noctx:\n  document_id: ${documentId}\n---\n\n# A\n\nBody.\n` });
  const records = samples(builder.ids, documentId);
  const counts = {} as Record<RecordKind, number>;
  for (const kind of RECORD_KIND_ORDER) {
    for (const r of records[kind]) builder.addRecord(kind, r);
    counts[kind] = records[kind].length;
  }
  extra?.(builder, builder.ids);
  const minted = builder.ids.toJSON();
  try {
    const result = await builder.export({ output: join(dir, 'kinds.octx') });
    return { result, counts, state, minted };
  } finally {
    await builder.dispose();
  }
}

/** The bytes of each kind's JSONL file in a package. */
function jsonlFiles(octx: string): Record<RecordKind, string> {
  const entries = inspectZip(octx);
  const out = {} as Record<RecordKind, string>;
  for (const kind of RECORD_KIND_ORDER) out[kind] = entries.find((e) => e.name === spec(kind).path)!.data.toString('utf8');
  return out;
}

describe('every record kind goes through every layer', () => {
  it('export report, summary, derive, diff, inspect, working folder and producer state', async () => {
    const dir = tempDir('kinds-');
    const { result, counts, state, minted } = await build(dir);
    const original = jsonlFiles(result.output);
    for (const kind of RECORD_KIND_ORDER) expect(original[kind].trimEnd().split('\n'), kind).toHaveLength(counts[kind]);

    // The export report counts every kind, and the summary line names each with its count.
    const summary = exportSummary(result).find((l) => l.startsWith('  structure'))!;
    for (const kind of RECORD_KIND_ORDER) {
      expect(result.report.structure.counts[countKey(kind)], `report ${kind}`).toBe(counts[kind]);
      const word = spec(kind).role === 'relation' ? kind : recordFileStem(kind);
      expect(summary, `summary ${kind}`).toMatch(new RegExp(`\\b${counts[kind]} ${word}\\b`));
    }

    // Derive carries every kind, byte for byte.
    const derived = await PackageBuilder.derive(result.output, { asset: { name: 'derived' }, release: { version: '1.0.0', createdAt: CREATED } });
    let derivedOut: string;
    try {
      derivedOut = (await derived.export({ output: join(dir, 'derived.octx') })).output;
    } finally {
      await derived.dispose();
    }
    const copied = jsonlFiles(derivedOut);
    for (const kind of RECORD_KIND_ORDER) expect(copied[kind], `derive ${kind}`).toBe(original[kind]);

    // Diff compares every kind: all unchanged.
    const diff = await diffPackages(result.output, derivedOut);
    for (const kind of RECORD_KIND_ORDER) expect(diff.records[diffKey(kind)], `diff ${kind}`).toEqual({ added: 0, removed: 0, changed: 0, unchanged: counts[kind] });

    // The CLI's inspect prints every kind's count: a line per record kind, relations on one line.
    const inspect = await runCli(['inspect', result.output]);
    expect(inspect.code, inspect.stderr).toBe(0);
    const relations = inspect.stdout.split('\n').find((l) => l.startsWith('  relations'))!;
    for (const kind of RECORD_KIND_ORDER) {
      if (spec(kind).role === 'relation') expect(relations, `inspect ${kind}`).toContain(`${counts[kind]} ${kind}`);
      else expect(inspect.stdout, `inspect ${kind}`).toMatch(new RegExp(`^  ${recordFileStem(kind)} +${counts[kind]}$`, 'm'));
    }

    // Unpacked as a working folder and loaded again: every kind is read and counted.
    const folder = join(dir, 'folder');
    for (const e of inspectZip(result.output)) {
      if (e.name === 'manifest.json' || e.name.endsWith('/')) continue;
      mkdirSync(dirname(join(folder, e.name)), { recursive: true });
      writeFileSync(join(folder, e.name), e.data);
    }
    const again = new PackageBuilder({ asset: { name: 'again' }, release: { version: '1.0.0', createdAt: CREATED } });
    try {
      const loaded = await loadWorkdir(again, folder);
      for (const kind of RECORD_KIND_ORDER) expect(loaded[countKey(kind)], `loader ${kind}`).toBe(counts[kind]);
      const reloaded = jsonlFiles((await again.export({ output: join(dir, 'again.octx') })).output);
      for (const kind of RECORD_KIND_ORDER) expect(reloaded[kind], `folder ${kind}`).toBe(original[kind]);
    } finally {
      await again.dispose();
    }

    // The producer state keeps every ledger kind, and gives back the same ids.
    const saved = JSON.parse(readFileSync(state, 'utf8')) as { ids: Record<string, Record<string, string>> };
    expect(Object.keys(saved.ids)).toEqual([...LEDGER_KINDS]);
    expect(saved.ids).toEqual(minted);
    for (const kind of RECORD_KIND_ORDER) {
      const defines = spec(kind).defines;
      if (defines === undefined) continue;
      expect(Object.keys(saved.ids[defines]!).length, `state ${kind}`).toBe(counts[kind]);
    }
    const loadedState = ProducerState.load(state);
    for (const kind of LEDGER_KINDS) for (const [key, id] of Object.entries(minted[kind]!)) expect(loadedState.ids.id(kind, key)).toBe(id);

    // Opened as a package, records(kind) reads every kind.
    const pkg = await openPackage(result.output);
    try {
      for (const kind of RECORD_KIND_ORDER) {
        let n = 0;
        for await (const _ of pkg.records(kind)) n++;
        expect(n, `records(${kind})`).toBe(counts[kind]);
      }
    } finally {
      await pkg.close();
    }
  });

  it("the planner's dropped sum counts every kind when the structure is left out", async () => {
    const dir = tempDir('kinds-dropped-');
    // One more entity, linked to no event: coverage is incomplete and the layer is left out.
    const { result, counts } = await build(dir, (b, ids) => b.addRecord('entity', { id: ids.id('entity', 'orphan'), name: 'Orphan', type: 'thing' }));
    const d = result.degradations.find((x) => x.code === 'OCTX_STRUCTURE_INCOMPLETE')!;
    const total = RECORD_KIND_ORDER.reduce((n, kind) => n + counts[kind], 0) + 1;
    expect(d.dropped).toBe(total);
  });
});
