/**
 * from-graphrag on the three fixture sets (GraphRAG 1.x and 3.x sample outputs, a small 2.x
 * output): each package is read back with the validator (and the sag-1.7 profile), and its
 * values are checked against the GraphRAG tables read directly with hyparquet / LanceDB.
 */
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { beforeAll, describe, expect, it } from 'vitest';
import { openPackage, PackageBuilder, validatePackage } from 'octx-export';
import { claimDate, fromGraphRag, type FromGraphRagOptions, type GraphRagAdapterReport } from 'octx-export/adapters/graphrag';
import { tempDir } from '../helpers/temp.js';
import { GRAPHRAG, readRows, type Row } from './graphrag/tables.js';

type Rec = Record<string, any>;

interface Exported {
  readonly out: string;
  readonly report: GraphRagAdapterReport;
  readonly records: Record<'chunks' | 'events' | 'entities' | 'chunkEvents' | 'eventEntities', Rec[]>;
  /** Knowledge documents by path. */
  readonly documents: Record<string, string>;
  readonly vectors: Record<'chunks' | 'entities', Map<string, Float32Array>>;
}

const FILES = {
  chunks: 'data/chunks.jsonl',
  events: 'data/events.jsonl',
  entities: 'data/entities.jsonl',
  chunkEvents: 'relations/chunk-events.jsonl',
  eventEntities: 'relations/event-entities.jsonl',
} as const;

async function exportSet(dir: string, options: FromGraphRagOptions): Promise<Exported> {
  const out = join(tempDir('octx-graphrag-e2e-'), 'graphrag.octx');
  const b = new PackageBuilder({ asset: { name: 'Operation Dulce (GraphRAG)' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });
  const report = await fromGraphRag(b, dir, options);
  await b.export({ output: out });
  const p = await openPackage(out);
  try {
    const records = {} as Exported['records'];
    for (const [k, f] of Object.entries(FILES)) {
      const text = (await p.readFile(f)).toString('utf8').trim();
      records[k as keyof typeof FILES] = text === '' ? [] : text.split('\n').map((l) => JSON.parse(l) as Rec);
    }
    const documents: Record<string, string> = {};
    for (const f of p.manifest.files as readonly { path: string }[]) if (f.path.startsWith('knowledge/')) documents[f.path] = (await p.readFile(f.path)).toString('utf8');
    const vectors = { chunks: new Map<string, Float32Array>(), entities: new Map<string, Float32Array>() };
    for (const t of ['chunks', 'entities'] as const) for await (const r of p.vectors(t)) vectors[t].set(r.recordId, Float32Array.from(r.vector));
    return { out, report, records, documents, vectors };
  } finally {
    await p.close();
  }
}

/** The body of an OKF document: what follows its frontmatter block. */
const body = (text: string): string => text.slice(text.indexOf('\n---\n', 4) + '\n---\n\n'.length);

/** id → embedding of a LanceDB table. */
async function lanceVectors(dir: string, table: string): Promise<Map<string, Float32Array>> {
  const db = await lancedb.connect(dir);
  try {
    const t = await db.openTable(table);
    const rows = (await t.query().select(['id', 'vector']).toArray()) as { id: string; vector: { toArray(): Float32Array } }[];
    t.close();
    return new Map(rows.map((r) => [r.id, Float32Array.from(r.vector.toArray())]));
  } finally {
    db.close();
  }
}

/** id → embedding of an `embeddings.<name>.parquet` snapshot (doubles, as GraphRAG writes them). */
async function snapshotVectors(file: string): Promise<Map<string, Float32Array>> {
  return new Map((await readRows(file)).map((r) => [r.id as string, Float32Array.from(r.embedding as number[])]));
}

interface SetCase {
  readonly name: string;
  readonly dir: string;
  readonly options: FromGraphRagOptions;
  readonly files: { documents: string; text_units: string; entities: string; relationships: string; covariates: string };
  readonly counts: Rec;
  readonly vectors: () => Promise<Record<'chunks' | 'entities', Map<string, Float32Array>>>;
}

const v1 = (n: string) => `create_final_${n}.parquet`;
const v3 = (n: string) => `${n}.parquet`;

const CASES: SetCase[] = [
  {
    name: 'v1 (GraphRAG 1.1.2 sample, LanceDB vectors)',
    dir: GRAPHRAG.v1,
    options: { embeddingModel: 'text-embedding-3-small' },
    files: { documents: v1('documents'), text_units: v1('text_units'), entities: v1('entities'), relationships: v1('relationships'), covariates: v1('covariates') },
    counts: {
      layout: { version: 'v1', codecs: ['SNAPPY'] },
      rows: { documents: 2, text_units: 38, entities: 373, relationships: 812, covariates: 178, community_reports: 72, communities: 72 },
      documents: { count: 2 },
      chunks: { count: 38 },
      events: { count: 981, fromRelationships: 803, fromClaims: 178, mentions: 0, emptyDescriptions: 0 },
      entities: { count: 325 },
      relations: { chunkEvents: 1253, eventEntities: 1842 },
      leftOut: {
        untypedEntities: { count: 48 },
        relationshipsWithoutTypedEntity: { count: 9 },
        relationshipsWithUnknownEndpoint: { count: 0 },
        communities: 72,
        communityReports: 72,
      },
      vectors: { status: 'written', dimensions: 1536, normalized: true, model: 'text-embedding-3-small', modelFrom: 'option' },
      structure: { expected: 'complete' },
    },
    vectors: async () => ({
      chunks: await lanceVectors(join(GRAPHRAG.v1, 'lancedb'), 'default-text_unit-text'),
      entities: await lanceVectors(join(GRAPHRAG.v1, 'lancedb'), 'default-entity-description'),
    }),
  },
  {
    name: 'v2 (GraphRAG 2.x schemas, GZIP/ZSTD/SNAPPY, snapshot vectors)',
    dir: GRAPHRAG.v2,
    options: {},
    files: { documents: v3('documents'), text_units: v3('text_units'), entities: v3('entities'), relationships: v3('relationships'), covariates: v3('covariates') },
    counts: {
      layout: { version: 'v2', codecs: ['GZIP', 'SNAPPY', 'ZSTD'] },
      rows: { documents: 2, text_units: 4, entities: 7, relationships: 5, covariates: 2, community_reports: 1, communities: 1 },
      documents: { count: 2 },
      chunks: { count: 4 },
      events: { count: 8, fromRelationships: 4, fromClaims: 2, mentions: 2, emptyDescriptions: 1 },
      entities: { count: 6 },
      relations: { chunkEvents: 9, eventEntities: 16 },
      leftOut: { untypedEntities: { count: 1 }, relationshipsWithUnknownEndpoint: { count: 1 }, communities: 1, communityReports: 1 },
      vectors: { status: 'written', dimensions: 8, normalized: true, model: 'fixture-embedding-8d', modelFrom: 'settings' },
      structure: { expected: 'complete' },
    },
    vectors: async () => ({
      chunks: await snapshotVectors(join(GRAPHRAG.v2, 'embeddings.text_unit.text.parquet')),
      entities: await snapshotVectors(join(GRAPHRAG.v2, 'embeddings.entity.description.parquet')),
    }),
  },
  {
    name: 'v3 (GraphRAG 3.1.2 sample, LanceDB vectors)',
    dir: GRAPHRAG.v3,
    options: { embeddingModel: 'text-embedding-3-large' },
    files: { documents: v3('documents'), text_units: v3('text_units'), entities: v3('entities'), relationships: v3('relationships'), covariates: v3('covariates') },
    counts: {
      layout: { version: 'v3', codecs: ['SNAPPY'] },
      rows: { documents: 1, text_units: 5, entities: 39, relationships: 107, covariates: 41, community_reports: 10, communities: 10 },
      documents: { count: 1 },
      chunks: { count: 5 },
      events: { count: 146, fromRelationships: 105, fromClaims: 41, mentions: 0, emptyDescriptions: 0 },
      entities: { count: 39 },
      relations: { chunkEvents: 158, eventEntities: 363 },
      leftOut: { untypedEntities: { count: 0 }, relationshipsWithUnknownEndpoint: { count: 2 }, communities: 10, communityReports: 10 },
      vectors: { status: 'written', dimensions: 3072, normalized: true, model: 'text-embedding-3-large', modelFrom: 'option' },
      structure: { expected: 'complete' },
    },
    vectors: async () => ({
      chunks: await lanceVectors(join(GRAPHRAG.v3, 'lancedb'), 'text_unit_text'),
      entities: await lanceVectors(join(GRAPHRAG.v3, 'lancedb'), 'entity_description'),
    }),
  },
];

describe.each(CASES)('from-graphrag: fixture set $name', (c) => {
  let x: Exported;
  const table = (t: keyof SetCase['files']): Promise<Row[]> => readRows(join(c.dir, c.files[t]));
  beforeAll(async () => {
    x = await exportSet(c.dir, c.options);
  }, 120_000);

  it('reports the layout and the counts, and the package holds exactly those records (validator read-back, also for sag-1.7)', async () => {
    expect(x.report).toMatchObject(c.counts);
    expect(x.records.chunks).toHaveLength(c.counts.chunks.count);
    expect(x.records.events).toHaveLength(c.counts.events.count);
    expect(x.records.entities).toHaveLength(c.counts.entities.count);
    expect(x.records.chunkEvents).toHaveLength(c.counts.relations.chunkEvents);
    expect(x.records.eventEntities).toHaveLength(c.counts.relations.eventEntities);
    expect(Object.keys(x.documents)).toHaveLength(c.counts.documents.count);
    const byCategory = (cat: string) => x.records.events.filter((e) => e.category === cat).length;
    expect([byCategory('relationship'), byCategory('claim'), byCategory('mention')]).toEqual([
      c.counts.events.fromRelationships,
      c.counts.events.fromClaims,
      c.counts.events.mentions,
    ]);
    expect(x.vectors.chunks.size).toBe(c.counts.chunks.count);
    expect(x.vectors.entities.size).toBe(c.counts.entities.count);
    const v = await validatePackage(x.out, { consumer: 'sag-1.7' });
    expect(v.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(v.valid).toBe(true);
  });

  it('documents keep their text byte for byte and their title; chunks are the text units of their document, in GraphRAG order', async () => {
    const docs = await table('documents');
    const units = await table('text_units');
    const byDocumentId = new Map<string, Rec>();
    for (const d of docs) {
      const path = Object.keys(x.documents).find((p) => x.documents[p]!.includes(`\ntitle: ${JSON.stringify(d.title)}\n`));
      expect(path, `document ${d.title}`).toBeDefined();
      expect(body(x.documents[path!]!)).toBe(d.text);
      const documentId = /\n {2}document_id: "([^"]+)"/.exec(x.documents[path!]!)![1]!;
      byDocumentId.set(d.id, { documentId });
    }
    for (const d of docs) {
      const mine = units.filter((u) => (u.document_ids ?? [u.document_id]).includes(d.id)).map((u) => u.text as string);
      const chunks = x.records.chunks.filter((ch) => ch.document_id === byDocumentId.get(d.id)!.documentId).sort((a, b) => a.ordinal - b.ordinal);
      expect(chunks.map((ch) => ch.text)).toEqual(mine);
      expect(chunks.map((ch) => ch.ordinal)).toEqual(mine.map((_, i) => i));
    }
  });

  it('an event links to both endpoints of its relationship and to the chunks of its text units; entities keep title, type and description', async () => {
    const entities = (await table('entities')).filter((e) => e.type);
    const units = await table('text_units');
    const unitText = new Map(units.map((u) => [u.id as string, u.text as string]));
    const entityByName = new Map(x.records.entities.map((e) => [e.name as string, e]));
    for (const e of entities) expect(entityByName.get(e.title)).toMatchObject({ name: e.title, type: e.type, description: e.description });
    const chunkText = new Map(x.records.chunks.map((ch) => [ch.id as string, ch.text as string]));
    const entityName = new Map(x.records.entities.map((e) => [e.id as string, e.name as string]));
    const links = (eventId: string) => x.records.eventEntities.filter((l) => l.event_id === eventId).map((l) => `${l.description}:${entityName.get(l.entity_id)}`);
    const chunksOf = (eventId: string) => x.records.chunkEvents.filter((l) => l.event_id === eventId).map((l) => chunkText.get(l.chunk_id));
    const titles = new Set((await table('entities')).map((e) => e.title as string));
    const typed = new Set(entities.map((e) => e.title as string));
    // Kept: both endpoints name an entity and one of them at least is typed (an untyped one is no entity).
    const kept = (await table('relationships')).filter((r) => titles.has(r.source) && titles.has(r.target) && (typed.has(r.source) || typed.has(r.target)));
    expect(kept).toHaveLength(c.counts.events.fromRelationships);
    const events = x.records.events.filter((e) => e.category === 'relationship');
    for (const r of kept) {
      const title = `${r.source} → ${r.target}`;
      const matches = events.filter((e) => e.title === title && (r.description === '' || e.content === r.description));
      expect(matches.length, title).toBeGreaterThan(0);
      const ends = [`source:${r.source}`, `target:${r.target}`].filter((l) => typed.has(l.slice(l.indexOf(':') + 1)));
      const e = matches.find((m) => links(m.id).sort().join('|') === ends.sort().join('|'));
      expect(e, `${title} links both endpoints`).toBeDefined();
      expect(new Set(chunksOf(e!.id))).toEqual(new Set((r.text_unit_ids as string[]).map((id) => unitText.get(id))));
    }
  });

  it("a claim is an event whose start_time/end_time are the claim's dates when they are dates", async () => {
    const claims = await table('covariates');
    const events = x.records.events.filter((e) => e.category === 'claim');
    expect(events).toHaveLength(claims.length);
    let dated = 0;
    for (const cl of claims) {
      const description = ((cl.description as string | null) ?? '').trim();
      const type = ((cl.type as string | null) ?? '').trim() || 'CLAIM';
      // An empty description (GraphRAG writes such rows when it found no claim) gets the stated fallback.
      const content = (ev: Rec) => (description !== '' ? ev.content === description : (ev.content as string).startsWith(`${type} claim about `));
      const e = events.find((ev) => content(ev) && ev.title.startsWith(`${type}: `));
      expect(e, `claim ${cl.id}`).toBeDefined();
      const start = claimDate(cl.start_date ?? undefined);
      const end = claimDate(cl.end_date ?? undefined);
      if (start !== undefined) {
        dated++;
        expect(events.filter((ev) => ev.content === description).map((ev) => ev.start_time)).toContain(start);
      } else expect(e!.start_time).toBeUndefined();
      if (end !== undefined) expect(events.filter((ev) => ev.content === description).map((ev) => ev.end_time)).toContain(end);
    }
    if (c.dir === GRAPHRAG.v2) expect(dated).toBe(1);
  });

  it('a vector row equals the source embedding (as float32), for chunks and entities', async () => {
    const source = await c.vectors();
    const units = await table('text_units');
    const unitIdByText = new Map(units.map((u) => [u.text as string, u.id as string]));
    for (const ch of x.records.chunks) expect(x.vectors.chunks.get(ch.id), `chunk ${ch.ordinal}`).toEqual(source.chunks.get(unitIdByText.get(ch.text)!));
    const entityIdByTitle = new Map((await table('entities')).map((e) => [e.title as string, e.id as string]));
    for (const e of x.records.entities) expect(x.vectors.entities.get(e.id), e.name).toEqual(source.entities.get(entityIdByTitle.get(e.name)!));
  });
});
