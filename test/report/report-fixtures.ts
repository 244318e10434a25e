/**
 * The packages the report tests render, each made the way a user makes it: the demo (the
 * three-kingdoms working folder through `build`), a documents-only package (a docs tree), a
 * derived package (`derive` with reading notes), a `from-sag` package (the SAG engine fixture),
 * a synthetic package with vectors and a skewed graph (built with the SDK), and a hostile one
 * whose strings are markup and script. Also: what each package holds, counted with the reader,
 * independently of the report.
 */
import { join } from 'node:path';
import { PackageBuilder, openPackage } from 'octx-export';
import { main } from '../../src/cli/cli.js';
import { RECORD_KINDS, RECORD_KIND_ORDER } from '../../src/model/record-kinds.js';
import { VECTOR_TARGETS } from '../../src/vectors/targets.js';
import { ROOT } from '../helpers/temp.js';

/** Runs the CLI in this process; throws with its stderr when it fails. */
export async function cli(args: readonly string[]): Promise<string> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (c: string) => (out.push(c), true) }, stderr: { write: (c: string) => (err.push(c), true) } } as never;
  const code = await main(args, io);
  if (code !== 0) throw new Error(`octx-export ${args.join(' ')} exited ${code}:\n${err.join('')}`);
  return out.join('');
}

const FIXTURES = join(ROOT, 'fixtures');

/** The demo: fixtures/kb-three-kingdoms built as the README does. */
export async function demoPackage(dir: string): Promise<string> {
  const out = join(dir, 'three-kingdoms.octx');
  await cli(['build', join(FIXTURES, 'kb-three-kingdoms'), '-o', out, '--name', 'Three Kingdoms', '--created-at', '2026-01-01T00:00:00Z']);
  return out;
}

/** A documents-only package: a VitePress docs tree. */
export async function documentsOnlyPackage(dir: string): Promise<string> {
  const out = join(dir, 'vitepress-docs.octx');
  await cli(['build', join(FIXTURES, 'docs-trees/vitepress'), '-o', out, '--name', 'Docs', '--created-at', '2026-01-01T00:00:00Z']);
  return out;
}

/** A derived package: the demo plus reading notes. */
export async function derivedPackage(dir: string, source: string): Promise<string> {
  const out = join(dir, 'three-kingdoms-notes.octx');
  await cli([
    'derive',
    source,
    join(FIXTURES, 'reading-notes'),
    '-o',
    out,
    '--name',
    'Three Kingdoms, with reading notes',
    '--version',
    '1.0.0',
    '--created-at',
    '2026-01-02T00:00:00Z',
  ]);
  return out;
}

/** A `from-sag` package: the SAG 0.8 engine database fixture. */
export async function fromSagPackage(dir: string): Promise<string> {
  const out = join(dir, 'sag.octx');
  await cli([
    'from-sag',
    join(FIXTURES, 'sag/engine-0.8/sag.db'),
    '--source',
    '5f0c3a1e-9b2d-4c7e-8a41-3d2b1c0e9f87',
    '-o',
    out,
    '--name',
    '三国演义读书会',
    '--created-at',
    '2026-01-01T00:00:00Z',
  ]);
  return out;
}

/** A canonical UUIDv7 for record `n` of a kind (`k` one hex digit). */
export const uid = (k: number, n: number): string => `019c0000-000${k.toString(16)}-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** Options of {@link syntheticPackage}. */
export interface SyntheticOptions {
  readonly documents: number;
  readonly chunksPerDocument: number;
  readonly entities: number;
  /** Vector width (0: no vectors). */
  readonly dimensions: number;
}

/**
 * A synthetic package: `documents` × `chunksPerDocument` chunks (an even number), one event per
 * pair of chunks (event e: chunks 2e and 2e+1), and every event e with e % 4 === 1 also linked to
 * chunk 2e−2, which so has two events; each event linked to a few entities chosen with a skew
 * (entity 0 in every tenth event), so the graph has hubs. Vectors (not normalized, norms spread)
 * for the chunks and, one-hot with a value of 1, 2 or 3, for the entities.
 */
export async function syntheticPackage(dir: string, o: SyntheticOptions): Promise<string> {
  const out = join(dir, `synthetic-${o.documents * o.chunksPerDocument}.octx`);
  const b = new PackageBuilder({ asset: { id: uid(0, 1), name: 'Synthetic' }, release: { version: '2.1.0', createdAt: '2026-01-01T00:00:00Z' } });
  if (o.dimensions > 0) b.setVectorConfig({ model: 'synthetic/hash', revision: '1', dimensions: o.dimensions, normalized: false });
  const types = ['person', 'place', 'organisation', 'work', 'date', 'concept'];
  for (let n = 0; n < o.entities; n++) {
    b.addEntity({ id: uid(4, n), name: `Entity ${n}`, type: types[(n * 7) % types.length]! });
    if (o.dimensions > 0)
      b.addVector(
        'entities',
        uid(4, n),
        Array.from({ length: o.dimensions }, (_, k) => (k === n % o.dimensions ? 1 + (n % 3) : 0)),
      );
  }
  let chunk = 0;
  for (let d = 0; d < o.documents; d++) {
    const doc = uid(1, d);
    const lines = Array.from({ length: o.chunksPerDocument }, (_, i) => `Paragraph ${i} of document ${d}.`);
    b.addDocument({
      path: `section-${d % 7}/doc-${d}.md`,
      markdown: `---\ntype: note\ntitle: Document ${d}\noctx:\n  document_id: ${doc}\n---\n# Document ${d}\n\n${lines.join('\n\n')}\n`,
    });
    for (let i = 0; i < o.chunksPerDocument; i++, chunk++) {
      const id = uid(2, chunk);
      b.addChunk({ id, document_id: doc, ordinal: i, text: lines[i]! });
      if (o.dimensions > 0)
        b.addVector(
          'chunks',
          id,
          Array.from({ length: o.dimensions }, (_, k) => ((chunk * 31 + k * 7) % 17) / 10 + 0.05),
        );
      if (chunk % 2 === 0) continue;
      const event = (chunk - 1) / 2;
      const e = uid(3, event);
      b.addEvent({ id: e, title: `Event ${event}`, content: `Something happened (${event}).` });
      b.linkChunkEvent({ chunk_id: uid(2, chunk - 1), event_id: e }).linkChunkEvent({ chunk_id: id, event_id: e });
      if (event % 4 === 1) b.linkChunkEvent({ chunk_id: uid(2, chunk - 3), event_id: e });
      const linked = new Set([event % 10 === 0 ? 0 : 1 + (event % (o.entities - 1)), 1 + ((event * 13) % (o.entities - 1)), 1 + ((event * 29) % (o.entities - 1))]);
      for (const n of linked) b.linkEventEntity({ event_id: e, entity_id: uid(4, n) });
    }
  }
  await b.export({ output: out, structure: 'require' });
  return out;
}

/** Strings that are markup or script, for the hostile package. */
export const HOSTILE = {
  assetName: '<img src=x onerror="window.__pwned=\'asset\'">Hostile',
  title: '</script><script>window.__pwned="title"</script>',
  entity: '<img src=x onerror="window.__pwned=\'entity\'">',
  type: '<b onmouseover="window.__pwned=\'type\'">type</b>',
  event: '</script><!--<script>window.__pwned="event"</script>\u2028\u2029&amp;',
  markdown: '<script>window.__pwned="markdown"</script>\n\n<img src=x onerror="window.__pwned=\'markdown-img\'">\n',
} as const;

/** A package whose names, titles and Markdown are markup and script. */
export async function hostilePackage(dir: string): Promise<string> {
  const out = join(dir, 'hostile.octx');
  const doc = uid(1, 1);
  const b = new PackageBuilder({ asset: { id: uid(0, 2), name: HOSTILE.assetName }, release: { version: '1.0.0', createdAt: '2026-01-01T00:00:00Z' } });
  b.addDocument({ path: 'evil.md', markdown: `---\ntype: note\ntitle: ${JSON.stringify(HOSTILE.title)}\noctx:\n  document_id: ${doc}\n---\n${HOSTILE.markdown}` });
  b.addChunk({ id: uid(2, 1), document_id: doc, ordinal: 0, text: HOSTILE.markdown });
  b.addEvent({ id: uid(3, 1), title: HOSTILE.event, content: HOSTILE.event });
  b.addEntity({ id: uid(4, 1), name: HOSTILE.entity, type: HOSTILE.type });
  b.linkChunkEvent({ chunk_id: uid(2, 1), event_id: uid(3, 1) });
  b.linkEventEntity({ event_id: uid(3, 1), entity_id: uid(4, 1) });
  await b.export({ output: out });
  return out;
}

/** What a package holds, counted with the reader (not with the report). */
export interface PackageCounts {
  readonly documents: number;
  /** Per record kind's path: records. */
  readonly records: Readonly<Record<string, number>>;
  /** Per listed vector target: rows. */
  readonly vectors: Readonly<Record<string, number>>;
}

/** Counts what `path` holds. */
export async function packageCounts(path: string): Promise<PackageCounts> {
  const pkg = await openPackage(path);
  try {
    let documents = 0;
    for await (const _ of pkg.documents()) documents++;
    const records: Record<string, number> = {};
    const iterators = {
      chunk: () => pkg.chunks(),
      event: () => pkg.events(),
      entity: () => pkg.entities(),
      'chunk-event': () => pkg.chunkEvents(),
      'event-entity': () => pkg.eventEntities(),
    };
    for (const kind of RECORD_KIND_ORDER) {
      let n = 0;
      for await (const _ of iterators[kind]()) n++;
      records[RECORD_KINDS[kind].path] = n;
    }
    const vectors: Record<string, number> = {};
    const listed = new Set(pkg.listedFiles().map((f) => f.path));
    for (const t of VECTOR_TARGETS) {
      if (!listed.has(`vectors/${t}.arrow`)) continue;
      let n = 0;
      for await (const _ of pkg.vectors(t)) n++;
      vectors[t] = n;
    }
    return { documents, records, vectors };
  } finally {
    await pkg.close();
  }
}
