/**
 * Writes fixtures/graphrag/v2-small/: a small GraphRAG 2.x output folder (`output/*.parquet`) and
 * its project's `settings.yaml`, in the 2.x schemas of GraphRAG's source (graphrag/data_model/
 * schemas.py at 2.x: documents with `text_unit_ids` and `metadata`; text units with a
 * `document_ids` list; entities with `frequency`, `degree`, `x`, `y`), built from the opening of
 * the Operation Dulce text of the v3 fixture. Every case the mapping handles is in it: a
 * relationship naming no entity, one whose other end is untyped, an empty ("fast" mode)
 * description, a weight above 9.99, a text unit in no relationship (a mention event), a claim with
 * a date and one that names no entity, a community report, and embeddings snapshots
 * (synthetic 8-dimension unit vectors) for text units, entities and community reports. The
 * tables use GZIP, ZSTD and SNAPPY.
 *
 *   npx tsx test/adapters/graphrag/write-v2-fixture.ts
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parquetBytes, type FixtureColumn } from '../../../bench/parquet-writer.js';

const root = fileURLToPath(new URL('../../../fixtures/graphrag/', import.meta.url));
const out = `${root}v2-small/output/`;
mkdirSync(out, { recursive: true });

const sha512 = (s: string): string => createHash('sha512').update(s).digest('hex');
/** A UUIDv4-shaped id from a name (GraphRAG mints random ones; fixed here so the fixture is reproducible). */
const uuid = (s: string): string => {
  const h = createHash('sha256').update(s).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
/** A unit vector of 8 dimensions from a name. */
const unit = (s: string): number[] => {
  const h = createHash('sha256').update(s).digest();
  const v = [...h.subarray(0, 8)].map((b) => b / 255 - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const write = (name: string, columns: FixtureColumn[], codec: 'SNAPPY' | 'GZIP' | 'ZSTD'): void => writeFileSync(`${out}${name}`, parquetBytes(columns, { codec }));

const novella = JSON.parse(readFileSync(fileURLToPath(new URL('./v3-document-text.json', import.meta.url)), 'utf8')) as string;
const a = novella.slice(0, 1800);
const b = novella.slice(1800, 2600);
const docs = [
  { title: 'dulce-chapter-1.txt', text: a, units: [a.slice(0, 600), a.slice(600, 1200), a.slice(1200)] },
  { title: 'dulce-chapter-1-part-2.txt', text: b, units: [b] },
];
const tu = docs.flatMap((d, di) => d.units.map((t) => ({ id: sha512(t), text: t, doc: di })));
const docIds = docs.map((d) => sha512(d.text));

const entities = [
  { title: 'ALEX MERCER', type: 'PERSON', description: 'Agent Alex Mercer, determined member of the Paranormal Military Squad.', units: [0, 1] },
  { title: 'TAYLOR CRUZ', type: 'PERSON', description: 'Agent Taylor Cruz, who leads the briefing with authority.', units: [0, 1] },
  { title: 'PARANORMAL MILITARY SQUAD', type: 'ORGANIZATION', description: 'An elite squad preparing Operation: Dulce.', units: [0, 1] },
  { title: 'OPERATION: DULCE', type: 'EVENT', description: 'The mission the squad prepares for.', units: [1, 3] },
  { title: 'JORDAN HAYES', type: 'PERSON', description: 'Dr. Jordan Hayes, skeptical scientist of the team.', units: [2] },
  { title: 'DULCE BASE', type: 'GEO', description: 'The underground base at Dulce.', units: [2, 3] },
  { title: 'BRIEFING ROOM', type: '', description: '', units: [1] },
].map((e) => ({ ...e, id: uuid(e.title) }));
const rel = [
  { source: 'ALEX MERCER', target: 'TAYLOR CRUZ', description: 'Alex Mercer listens as Taylor Cruz leads the briefing.', weight: 7, units: [0] },
  { source: 'ALEX MERCER', target: 'PARANORMAL MILITARY SQUAD', description: 'Alex Mercer is an agent of the Paranormal Military Squad.', weight: 12, units: [0, 1] },
  { source: 'PARANORMAL MILITARY SQUAD', target: 'OPERATION: DULCE', description: '', weight: 2, units: [1] },
  { source: 'TAYLOR CRUZ', target: 'BRIEFING ROOM', description: 'Taylor Cruz addresses the team in the briefing room.', weight: 1, units: [1] },
  { source: 'JORDAN HAYES', target: 'ELEVATOR', description: 'Jordan Hayes waits at the elevator.', weight: 1, units: [2] },
].map((r) => ({ ...r, id: uuid(`${r.source}->${r.target}`) }));
const claims = [
  {
    type: 'MISSION START',
    subject: 'DULCE BASE',
    object: 'NONE',
    description: 'The operation at Dulce base begins in March 2024.',
    start: '2024-03-01T00:00:00',
    end: 'NONE',
    unit: 3,
  },
  { type: 'SECRECY', subject: 'UNNAMED COMMANDER', object: 'NONE', description: 'An unnamed commander keeps the mission secret.', start: 'NONE', end: 'NONE', unit: 1 },
].map((c) => ({ ...c, id: uuid(`claim:${c.type}`) }));

write(
  'documents.parquet',
  [
    { name: 'id', kind: 'string', data: docIds },
    { name: 'human_readable_id', kind: 'int64', data: [0, 1] },
    { name: 'title', kind: 'string', data: docs.map((d) => d.title) },
    { name: 'text', kind: 'string', data: docs.map((d) => d.text) },
    { name: 'text_unit_ids', kind: 'list<string>', data: docs.map((_, di) => tu.filter((t) => t.doc === di).map((t) => t.id)) },
    { name: 'metadata', kind: 'null', data: [null, null] },
  ],
  'GZIP',
);
write(
  'text_units.parquet',
  [
    { name: 'id', kind: 'string', data: tu.map((t) => t.id) },
    { name: 'human_readable_id', kind: 'int64', data: tu.map((_, i) => i) },
    { name: 'text', kind: 'string', data: tu.map((t) => t.text) },
    { name: 'n_tokens', kind: 'int64', data: tu.map((t) => Math.ceil(t.text.length / 4)) },
    { name: 'document_ids', kind: 'list<string>', data: tu.map((t) => [docIds[t.doc]!]) },
    { name: 'entity_ids', kind: 'list<string>', data: tu.map((_, i) => entities.filter((e) => e.units.includes(i)).map((e) => e.id)) },
    { name: 'relationship_ids', kind: 'list<string>', data: tu.map((_, i) => rel.filter((r) => r.units.includes(i)).map((r) => r.id)) },
    { name: 'covariate_ids', kind: 'list<string>', data: tu.map((_, i) => claims.filter((c) => c.unit === i).map((c) => c.id)) },
  ],
  'ZSTD',
);
write(
  'entities.parquet',
  [
    { name: 'id', kind: 'string', data: entities.map((e) => e.id) },
    { name: 'human_readable_id', kind: 'int64', data: entities.map((_, i) => i) },
    { name: 'title', kind: 'string', data: entities.map((e) => e.title) },
    { name: 'type', kind: 'string', data: entities.map((e) => e.type) },
    { name: 'description', kind: 'string', data: entities.map((e) => e.description) },
    { name: 'text_unit_ids', kind: 'list<string>', data: entities.map((e) => e.units.map((u) => tu[u]!.id)) },
    { name: 'frequency', kind: 'int64', data: entities.map((e) => e.units.length) },
    { name: 'degree', kind: 'int64', data: entities.map((e) => rel.filter((r) => r.source === e.title || r.target === e.title).length) },
    { name: 'x', kind: 'double', data: entities.map((_, i) => Math.cos(i)) },
    { name: 'y', kind: 'double', data: entities.map((_, i) => Math.sin(i)) },
  ],
  'SNAPPY',
);
write(
  'relationships.parquet',
  [
    { name: 'id', kind: 'string', data: rel.map((r) => r.id) },
    { name: 'human_readable_id', kind: 'int64', data: rel.map((_, i) => i) },
    { name: 'source', kind: 'string', data: rel.map((r) => r.source) },
    { name: 'target', kind: 'string', data: rel.map((r) => r.target) },
    { name: 'description', kind: 'string', data: rel.map((r) => r.description) },
    { name: 'weight', kind: 'double', data: rel.map((r) => r.weight) },
    { name: 'combined_degree', kind: 'int64', data: rel.map(() => 3) },
    { name: 'text_unit_ids', kind: 'list<string>', data: rel.map((r) => r.units.map((u) => tu[u]!.id)) },
  ],
  'SNAPPY',
);
write(
  'covariates.parquet',
  [
    { name: 'id', kind: 'string', data: claims.map((c) => c.id) },
    { name: 'human_readable_id', kind: 'int64', data: claims.map((_, i) => i) },
    { name: 'covariate_type', kind: 'string', data: claims.map(() => 'claim') },
    { name: 'type', kind: 'string', data: claims.map((c) => c.type) },
    { name: 'description', kind: 'string', data: claims.map((c) => c.description) },
    { name: 'subject_id', kind: 'string', data: claims.map((c) => c.subject) },
    { name: 'object_id', kind: 'string', data: claims.map((c) => c.object) },
    { name: 'status', kind: 'string', data: claims.map(() => 'TRUE') },
    { name: 'start_date', kind: 'string', data: claims.map((c) => c.start) },
    { name: 'end_date', kind: 'string', data: claims.map((c) => c.end) },
    { name: 'source_text', kind: 'string', data: claims.map((c) => tu[c.unit]!.text.slice(0, 120)) },
    { name: 'text_unit_id', kind: 'string', data: claims.map((c) => tu[c.unit]!.id) },
  ],
  'SNAPPY',
);
const communityId = uuid('community:0');
write(
  'communities.parquet',
  [
    { name: 'id', kind: 'string', data: [communityId] },
    { name: 'human_readable_id', kind: 'int64', data: [0] },
    { name: 'community', kind: 'int64', data: [0] },
    { name: 'level', kind: 'int64', data: [0] },
    { name: 'title', kind: 'string', data: ['Community 0'] },
    { name: 'entity_ids', kind: 'list<string>', data: [entities.map((e) => e.id)] },
    { name: 'size', kind: 'int64', data: [entities.length] },
  ],
  'SNAPPY',
);
const report = '# The Paranormal Military Squad at Dulce\n\nAgents Alex Mercer and Taylor Cruz prepare Operation: Dulce with Dr. Jordan Hayes.\n';
write(
  'community_reports.parquet',
  [
    { name: 'id', kind: 'string', data: [sha512(report)] },
    { name: 'human_readable_id', kind: 'int64', data: [0] },
    { name: 'community', kind: 'int64', data: [0] },
    { name: 'level', kind: 'int64', data: [0] },
    { name: 'title', kind: 'string', data: ['The Paranormal Military Squad at Dulce'] },
    { name: 'summary', kind: 'string', data: ['The squad prepares its mission.'] },
    { name: 'full_content', kind: 'string', data: [report] },
    { name: 'rank', kind: 'double', data: [7.5] },
    { name: 'rating_explanation', kind: 'string', data: ['A mission of high importance.'] },
    { name: 'size', kind: 'int64', data: [entities.length] },
  ],
  'SNAPPY',
);
const snapshot = (name: string, ids: string[]): void =>
  write(
    `embeddings.${name}.parquet`,
    [
      { name: 'id', kind: 'string', data: ids },
      { name: 'embedding', kind: 'list<double>', data: ids.map(unit) },
    ],
    'SNAPPY',
  );
snapshot(
  'text_unit.text',
  tu.map((t) => t.id),
);
snapshot(
  'entity.description',
  entities.map((e) => e.id),
);
snapshot('community.full_content', [sha512(report)]);

writeFileSync(
  `${root}v2-small/settings.yaml`,
  [
    '### GraphRAG 2.x project settings (the graphrag init template, trimmed): the embedding model is models.<embed_text.model_id>.model',
    'models:',
    '  default_chat_model:',
    '    type: openai_chat',
    '    api_key: ${GRAPHRAG_API_KEY}',
    '    model: gpt-4o-mini',
    '  default_embedding_model:',
    '    type: openai_embedding',
    '    api_key: ${GRAPHRAG_API_KEY}',
    '    model: fixture-embedding-8d',
    'embed_text:',
    '  model_id: default_embedding_model',
    'output:',
    '  type: file',
    '  base_dir: "output"',
    'snapshots:',
    '  embeddings: true',
    '',
  ].join('\n'),
);
