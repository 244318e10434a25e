import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { isOctxError, isUuidV7, openPackage, PackageBuilder, validatePackage, type OctxError } from 'octx-export';
import {
  checkContentHash,
  DEFAULT_INGEST_NAMESPACE,
  envelopeViolations,
  eventsFromFile,
  fromIngest,
  IngestEnvelopeSchema,
  latestPerSource,
  parseSourceUri,
  validateEnvelopes,
  type IngestEnvelope,
} from 'octx-export/adapters/ingest';
import { ROOT, SEEDS, tempDir } from '../helpers/temp.js';
import { readPackageText as text } from '../helpers/package-files.js';

const FIX = join(ROOT, 'fixtures/ingest');
const SOURCES = join(FIX, 'sources');
const ENVELOPES = readFileSync(join(FIX, 'envelopes.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as IngestEnvelope);
/** The envelope built from the schema's own example: its URI, models and fields. */
const EXAMPLE = ENVELOPES[1]!;
const GRAPH_URI = 'github:uncle6me-web/LLM-Wiki-for-n8n@.claude/wiki/graph-rag.md';
const NVIDIA_URI = 'github:uncle6me-web/LLM-Wiki-for-n8n@.claude/wiki/nvidia.md';

const clone = <T>(v: T): T => structuredClone(v);
const builder = (state?: string) =>
  new PackageBuilder({ asset: { name: 'LLM wiki' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' }, ...(state ? { state } : {}) });

async function lines(pkg: string, path: string): Promise<Record<string, unknown>[]> {
  const p = await openPackage(pkg);
  try {
    return (await p.readFile(path))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  } finally {
    await p.close();
  }
}

describe('seed 004 schema, rule for rule', () => {
  it('the zod schema is the seed JSON Schema without its annotations', () => {
    const seed = readFileSync(join(SEEDS, '004_f02b7b2f87d139ec.txt'), 'utf8');
    const schema = JSON.parse(seed.slice(seed.indexOf('{'))) as unknown;
    const strip = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(strip);
      if (v === null || typeof v !== 'object') return v;
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => !['description', 'default', '$comment', '$schema', 'title'].includes(k))
          .map(([k, x]) => [k, strip(x)]),
      );
    };
    const ours = z.toJSONSchema(IngestEnvelopeSchema, { io: 'input' });
    expect(strip(ours)).toEqual(strip(schema));
  });

  it('accepts the example envelope (the schema’s own example URI and fields)', () => {
    expect(EXAMPLE.source.uri).toBe('github:uncle6me-web/LLM-Wiki-for-n8n@.claude/wiki/graph-rag.md');
    expect(EXAMPLE.extractor.model).toBe('claude-sonnet-4-6');
    expect(envelopeViolations(EXAMPLE)).toEqual([]);
    for (const e of ENVELOPES) expect(envelopeViolations(e)).toEqual([]);
    expect(validateEnvelopes(ENVELOPES)).toHaveLength(3);
  });

  /** A mutation that returns `{ replace }` swaps the whole envelope; others edit it in place. */
  type Case = [name: string, mutate: (e: Record<string, any>) => unknown, rule: string, instancePath: string, schemaPath: string];
  const cases: Case[] = [
    ['envelope is not an object', () => ({ replace: [EXAMPLE] }), 'type', '', '#/type'],
    ['source missing', (e) => delete e.source, 'required', '', '#/required'],
    ['extractor missing', (e) => delete e.extractor, 'required', '', '#/required'],
    ['triplets missing', (e) => delete e.triplets, 'required', '', '#/required'],
    ['source.uri missing', (e) => delete e.source.uri, 'required', '/source', '#/properties/source/required'],
    ['source.content_hash missing', (e) => delete e.source.content_hash, 'required', '/source', '#/properties/source/required'],
    ['extractor.model missing', (e) => delete e.extractor.model, 'required', '/extractor', '#/properties/extractor/required'],
    ['extractor.tier missing', (e) => delete e.extractor.tier, 'required', '/extractor', '#/properties/extractor/required'],
    ['node name missing', (e) => delete e.nodes[0].name, 'required', '/nodes/0', '#/properties/nodes/items/required'],
    ['triplet predicate missing', (e) => delete e.triplets[0].predicate, 'required', '/triplets/0', '#/properties/triplets/items/required'],
    ['record id sent by ingest (forbidden by $comment)', (e) => (e.id = 'x'), 'additionalProperties', '', '#/additionalProperties'],
    ['graph-side clusters', (e) => (e.clusters = []), 'additionalProperties', '', '#/additionalProperties'],
    ['unknown source field', (e) => (e.source.path = 'x'), 'additionalProperties', '/source', '#/properties/source/additionalProperties'],
    ['unknown extractor field', (e) => (e.extractor.temperature = 0), 'additionalProperties', '/extractor', '#/properties/extractor/additionalProperties'],
    ['node bridge_score', (e) => (e.nodes[0].bridge_score = 0.3), 'additionalProperties', '/nodes/0', '#/properties/nodes/items/additionalProperties'],
    ['triplet subject_entity_type', (e) => (e.triplets[0].subject_entity_type = 'org'), 'additionalProperties', '/triplets/0', '#/properties/triplets/items/additionalProperties'],
    ['tier not in enum', (e) => (e.extractor.tier = 'medium'), 'enum', '/extractor/tier', '#/properties/extractor/properties/tier/enum'],
    ['entity_type not in enum', (e) => (e.nodes[1].entity_type = 'location'), 'enum', '/nodes/1/entity_type', '#/properties/nodes/items/properties/entity_type/enum'],
    ['empty uri', (e) => (e.source.uri = ''), 'minLength', '/source/uri', '#/properties/source/properties/uri/minLength'],
    ['empty content_hash', (e) => (e.source.content_hash = ''), 'minLength', '/source/content_hash', '#/properties/source/properties/content_hash/minLength'],
    ['empty model', (e) => (e.extractor.model = ''), 'minLength', '/extractor/model', '#/properties/extractor/properties/model/minLength'],
    ['empty node name', (e) => (e.nodes[0].name = ''), 'minLength', '/nodes/0/name', '#/properties/nodes/items/properties/name/minLength'],
    ['empty subject', (e) => (e.triplets[1].subject = ''), 'minLength', '/triplets/1/subject', '#/properties/triplets/items/properties/subject/minLength'],
    ['empty predicate', (e) => (e.triplets[0].predicate = ''), 'minLength', '/triplets/0/predicate', '#/properties/triplets/items/properties/predicate/minLength'],
    ['empty object', (e) => (e.triplets[0].object = ''), 'minLength', '/triplets/0/object', '#/properties/triplets/items/properties/object/minLength'],
    ['no triplets', (e) => (e.triplets = []), 'minItems', '/triplets', '#/properties/triplets/minItems'],
    ['confidence below 0', (e) => (e.triplets[0].confidence = -0.1), 'minimum', '/triplets/0/confidence', '#/properties/triplets/items/properties/confidence/minimum'],
    ['confidence above 1', (e) => (e.triplets[0].confidence = 1.5), 'maximum', '/triplets/0/confidence', '#/properties/triplets/items/properties/confidence/maximum'],
    ['extracted_at not an integer', (e) => (e.extractor.extracted_at = 1751932800.5), 'type', '/extractor/extracted_at', '#/properties/extractor/properties/extracted_at/type'],
    ['extracted_at a string', (e) => (e.extractor.extracted_at = '1751932800'), 'type', '/extractor/extracted_at', '#/properties/extractor/properties/extracted_at/type'],
    ['source a string', (e) => (e.source = GRAPH_URI), 'type', '/source', '#/properties/source/type'],
    ['nodes not an array', (e) => (e.nodes = { name: 'x' }), 'type', '/nodes', '#/properties/nodes/type'],
    ['aliases not strings', (e) => (e.nodes[0].aliases = ['GraphRAG', 7]), 'type', '/nodes/0/aliases/1', '#/properties/nodes/items/properties/aliases/items/type'],
    ['embed not a boolean', (e) => (e.nodes[0].embed = 'yes'), 'type', '/nodes/0/embed', '#/properties/nodes/items/properties/embed/type'],
    [
      'predicate_embed not a boolean',
      (e) => (e.triplets[0].predicate_embed = 1),
      'type',
      '/triplets/0/predicate_embed',
      '#/properties/triplets/items/properties/predicate_embed/type',
    ],
    ['confidence a string', (e) => (e.triplets[0].confidence = '0.9'), 'type', '/triplets/0/confidence', '#/properties/triplets/items/properties/confidence/type'],
    ['anchor not a string', (e) => (e.source.anchor = 3), 'type', '/source/anchor', '#/properties/source/properties/anchor/type'],
  ];

  it.each(cases)('refuses %s with the rule named', (_name, mutate, rule, instancePath, schemaPath) => {
    const e = clone(EXAMPLE) as Record<string, any>;
    const result = mutate(e) as { replace?: unknown } | undefined;
    const value = result !== null && typeof result === 'object' && 'replace' in result ? result.replace : e;
    const found = envelopeViolations(value);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ rule, instancePath, schemaPath });
    expect(found[0]!.message).toContain(`(${rule})`);
    let error: OctxError | undefined;
    try {
      validateEnvelopes([EXAMPLE, value], (i) => ({ path: 'envelopes.jsonl', line: i + 1 }));
    } catch (x) {
      error = x as OctxError;
    }
    expect(isOctxError(error, 'OCTX_ADAPTER_INPUT_INVALID')).toBe(true);
    expect(error!.issues).toHaveLength(1);
    expect(error!.issues[0]).toMatchObject({ path: 'envelopes.jsonl', line: 2, field: instancePath || '(envelope)' });
    expect(error!.issues[0]!.message).toContain(`envelope #2 breaks schema rule "${rule}" at ${schemaPath}`);
  });

  it('reports every violation of an envelope, not just the first', () => {
    const e = clone(EXAMPLE) as Record<string, any>;
    e.extractor.tier = 'medium';
    e.triplets[0].confidence = 2;
    e.extra = true;
    expect(
      envelopeViolations(e)
        .map((v) => v.rule)
        .sort(),
    ).toEqual(['additionalProperties', 'enum', 'maximum']);
  });
});

describe('fromIngest', () => {
  it('maps the latest envelope per source to documents, full-text chunks, extracted events and linked entities', async () => {
    const out = join(tempDir(), 'wiki.octx');
    const b = builder();
    const report = await fromIngest(b, ENVELOPES, { sourceRoot: SOURCES, extractEvents: await eventsFromFile(join(FIX, 'events.jsonl')) });
    expect(report.envelopes).toEqual({ given: 3, kept: 2, superseded: [{ uri: GRAPH_URI, contentHash: ENVELOPES[0]!.source.content_hash, index: 0 }] });
    expect(report.structure.expected).toBe('complete');
    expect(report.events).toMatchObject({ count: 6, fromExtractor: 6, fromTriplets: 0, withoutEntities: [] });
    expect(report.nodes).toEqual({ total: 9, asEntities: 7, notLinked: 2 });
    expect(report.sources[GRAPH_URI]!.contentHash).toBe('verified');
    expect(report.sources[NVIDIA_URI]!.contentHash).toBe('verified');
    const result = await b.export({ output: out, structure: 'require' });
    const v = await validatePackage(out);
    expect(v.valid && v.fullyValidated).toBe(true);
    expect(Object.keys(v.capabilities)).toEqual(['sag-structured']);

    // One Concept Document per source, with provenance in the frontmatter.
    const doc = await text(out, 'knowledge/.claude/wiki/graph-rag.md');
    expect(doc).toContain(`x-ingest:\n  uri: "${GRAPH_URI}"\n  content_hash: "${EXAMPLE.source.content_hash}"\n  commit: "${EXAMPLE.source.commit}"`);
    expect(doc).toContain('tier: "deep"'); // the later, deep envelope won
    const body = readFileSync(join(SOURCES, '.claude/wiki/graph-rag.md'), 'utf8');
    expect(doc.endsWith(body)).toBe(true);
    // One real full-text chunk per document.
    const chunks = await lines(out, 'data/chunks.jsonl');
    expect(chunks).toHaveLength(2);
    expect(chunks.map((c) => c.ordinal)).toEqual([0, 0]);
    expect(chunks.find((c) => c.id === report.sources[GRAPH_URI]!.chunkId)!.text).toBe(body);
    // Entities only for nodes that an event links; never for "knowledge graph" or "深度學習".
    const entities = await lines(out, 'data/entities.jsonl');
    expect(entities.map((e) => e.name).sort()).toEqual(['CUDA', 'Graph RAG', 'Microsoft Research', 'Vector RAG', 'n8n', '輝達', '黃仁勳'].sort());
    const nvidia = entities.find((e) => e.name === '輝達')!;
    expect(nvidia).toMatchObject({ type: 'org', description: '美國半導體公司，以GPU聞名。', 'x-ingest': { node_key: 'nvidia', aliases: ['NVIDIA', '英偉達'] } });
    // "NVIDIA" (an alias) and "輝達" resolve to one entity; weights and roles are kept.
    const links = await lines(out, 'relations/event-entities.jsonl');
    expect(links.filter((l) => l.entity_id === nvidia.id)).toHaveLength(3);
    expect(links).toContainEqual(expect.objectContaining({ entity_id: nvidia.id, weight: 1, description: '推出平台的公司' }));
    // Triplets and nodes live in the private extension, listed and hashed.
    const ext = `extensions/${DEFAULT_INGEST_NAMESPACE}/0.1/triplets.jsonl`;
    expect(report.extension.files).toEqual([ext, `extensions/${DEFAULT_INGEST_NAMESPACE}/0.1/nodes.jsonl`]);
    const listed = result.manifest.files.find((f) => f.path === ext)!;
    const bytes = Buffer.from(await text(out, ext), 'utf8');
    expect(listed.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    const triplets = await lines(out, ext);
    expect(triplets).toHaveLength(7);
    expect(triplets).toContainEqual(expect.objectContaining({ source_uri: NVIDIA_URI, subject: '輝達', predicate: '市值突破', object: '三兆美元', confidence: 0.9 }));
    expect(triplets.every((t) => isUuidV7(t.document_id))).toBe(true);
  });

  it('without an extractor there are no events: documents-only plus the triplet extension', async () => {
    const out = join(tempDir(), 'docs.octx');
    const b = builder();
    const report = await fromIngest(b, ENVELOPES, { sourceRoot: SOURCES, namespace: 'com.example.wiki' });
    expect(report.events.count).toBe(0);
    expect(report.entities.count).toBe(0);
    expect(report.structure.expected).toBe('documents-only');
    expect(report.structure.reason).toMatch(/no event extractor was given/);
    const result = await b.export({ output: out });
    expect(result.report.structure.status).toBe('omitted');
    expect(result.manifest.capabilities).toBeUndefined();
    expect(result.manifest.files.map((f) => f.path)).toEqual([
      'extensions/com.example.wiki/0.1/nodes.jsonl',
      'extensions/com.example.wiki/0.1/triplets.jsonl',
      'knowledge/.claude/wiki/graph-rag.md',
      'knowledge/.claude/wiki/nvidia.md',
    ]);
    expect((await validatePackage(out)).valid).toBe(true);
  });

  it('turns triplets into events only behind the explicit triplesAsEvents opt-in', async () => {
    const zhOnly = [ENVELOPES[2]!];
    const off = await fromIngest(builder(), zhOnly, { sourceRoot: SOURCES });
    expect(off.events.count).toBe(0);
    const out = join(tempDir(), 'triplets.octx');
    const b = builder();
    const on = await fromIngest(b, zhOnly, { sourceRoot: SOURCES, triplesAsEvents: true });
    expect(on.events).toMatchObject({ count: 3, fromTriplets: 3, fromExtractor: 0 });
    expect(on.structure.expected).toBe('complete');
    await b.export({ output: out, structure: 'require' });
    const events = await lines(out, 'data/events.jsonl');
    expect(events.map((e) => e.title).sort()).toEqual(['輝達 市值突破 三兆美元', '輝達 推出 CUDA', '黃仁勳 創立 輝達'].sort());
    expect(events[0]!['x-ingest']).toMatchObject({ triplet: { subject: expect.any(String) } });
    // "三兆美元" is a literal object, not a node: it never becomes an entity.
    const entities = await lines(out, 'data/entities.jsonl');
    expect(entities.map((e) => e.name).sort()).toEqual(['CUDA', '輝達', '黃仁勳'].sort());
    // An untyped subject node gets no placeholder type: the link is refused and reported.
    const graph = await fromIngest(builder(), [EXAMPLE], { sourceRoot: SOURCES, triplesAsEvents: true });
    expect(graph.refusedLinks).toContainEqual(expect.objectContaining({ entity: 'Graph RAG', reason: expect.stringMatching(/no entity type/) }));
    expect(graph.structure.expected).toBe('documents-only');
  });

  it('refuses a source whose file does not match content_hash, or that cannot be found', async () => {
    const stale = clone(EXAMPLE);
    stale.source.content_hash = 'sha256:' + '0'.repeat(64);
    await expect(fromIngest(builder(), [stale], { sourceRoot: SOURCES })).rejects.toThrow(/does not match source\.content_hash/);
    const ok = await fromIngest(builder(), [stale], { sourceRoot: SOURCES, verifyContentHash: false });
    expect(ok.sources[GRAPH_URI]!.contentHash).toBe('not-checked');
    const missing = clone(EXAMPLE);
    missing.source.uri = 'github:uncle6me-web/LLM-Wiki-for-n8n@.claude/wiki/missing.md';
    await expect(fromIngest(builder(), [missing], { sourceRoot: SOURCES })).rejects.toThrow(/missing\.md: the canonical Markdown is not available/);
    const resolved = await fromIngest(builder(), [missing], { resolveBody: () => '# Missing\n\nResolved by the caller.\n', verifyContentHash: false });
    expect(resolved.sources[missing.source.uri]!.documentPath).toBe('knowledge/.claude/wiki/missing.md');
    await expect(fromIngest(builder(), [EXAMPLE], { sourceRoot: SOURCES, namespace: 'Not A Namespace' })).rejects.toMatchObject({ code: 'OCTX_OPTIONS_INVALID' });
    await expect(fromIngest(builder(), [EXAMPLE], {})).rejects.toMatchObject({ code: 'OCTX_OPTIONS_INVALID' });
  });

  it('keeps record ids stable across runs through the id ledger in the state file', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const extractEvents = await eventsFromFile(join(FIX, 'events.jsonl'));
    let run = 0;
    const ids = async (version: string) => {
      const b = new PackageBuilder({ asset: { name: 'LLM wiki' }, release: { version }, state });
      await fromIngest(b, ENVELOPES, { sourceRoot: SOURCES, extractEvents });
      const out = join(dir, `${version}-${++run}.octx`);
      await b.export({ output: out });
      const all = [...(await lines(out, 'data/chunks.jsonl')), ...(await lines(out, 'data/events.jsonl')), ...(await lines(out, 'data/entities.jsonl'))];
      return all.map((r) => r.id).sort();
    };
    const first = await ids('1.0.0');
    expect(await ids('1.0.0')).toEqual(first); // an unchanged rebuild is the same release
  });
});

describe('ingest helpers', () => {
  it('latest per uri: later wins unless both carry extracted_at and the earlier is newer', () => {
    const a = clone(EXAMPLE);
    const b = clone(EXAMPLE);
    b.source.content_hash = 'b';
    b.extractor.extracted_at = 1;
    expect(latestPerSource([a, b]).kept[0]!.envelope).toBe(a); // a is newer by extracted_at
    delete b.extractor.extracted_at;
    expect(latestPerSource([a, b]).kept[0]!.envelope).toBe(b); // no time on b: input order
  });

  it('recognises sha256, sha1/git blob and md5 content hashes', () => {
    const bytes = Buffer.from('# Title\n');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const blob = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
    expect(checkContentHash(sha256, bytes)).toBe('match');
    expect(checkContentHash(`sha256:${sha256.toUpperCase()}`, bytes)).toBe('match');
    expect(checkContentHash(blob, bytes)).toBe('match');
    expect(checkContentHash(createHash('md5').update(bytes).digest('hex'), bytes)).toBe('match');
    expect(checkContentHash('0'.repeat(64), bytes)).toBe('mismatch');
    expect(checkContentHash('v3-2026-07-01', bytes)).toBe('unknown-format');
  });

  it('parses source uris', () => {
    expect(parseSourceUri(GRAPH_URI)).toEqual({ repository: 'uncle6me-web/LLM-Wiki-for-n8n', path: '.claude/wiki/graph-rag.md' });
    expect(parseSourceUri('file:///notes/a.md')).toEqual({ path: 'notes/a.md' });
    expect(parseSourceUri('notes/b.md')).toEqual({ path: 'notes/b.md' });
  });
});
