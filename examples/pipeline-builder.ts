/**
 * Pipeline builder: a producer's own pipeline feeds the SDK directly — documents, real chunks,
 * the events and entities an extraction run found in them, and embeddings — and exports one
 * sag-structured package with vectors.
 *
 *   npx tsx examples/pipeline-builder.ts [out.octx] [state.json]
 *
 * Record ids come from the id ledger (`builder.ids.chunk(key)`): with a state file, re-running
 * the pipeline keeps every id and publishes the next patch version.
 */
import { fileURLToPath } from 'node:url';
import { HashingTextEmbedder, PackageBuilder, validatePackage } from 'octx-export';

const output = process.argv[2] ?? fileURLToPath(new URL('../out/pipeline.octx', import.meta.url));
const state = process.argv[3];

/** The pipeline's source documents (Markdown, as its converter produced them). */
const sources = [
  {
    key: 'handbook/release-process',
    path: 'handbook/release-process.md',
    markdown: `# Release process\n\nEvery release starts with a freeze on Monday. The release manager cuts a branch and the QA team runs the regression suite on it.\n\nA release ships on Thursday when the suite is green. If a blocking bug is found, the release moves to the following week and the branch is closed.\n`,
  },
  {
    key: 'handbook/on-call',
    path: 'handbook/值班制度.md',
    markdown: `# 值班制度\n\n每个工程团队每周安排一名值班工程师，负责处理线上告警。值班工程师需要在十五分钟内响应P1级告警。\n\n值班结束时，值班工程师要在周会上复盘本周的告警，并把改进项记录到问题跟踪系统中。\n`,
  },
];

/** What the pipeline's extraction model returned, per paragraph (recorded output). */
const extraction: Record<string, { title: string; content: string; entities: { name: string; type: string; role: string }[] }[][]> = {
  'handbook/release-process': [
    [
      {
        title: 'Monday release freeze',
        content: 'Every release starts with a code freeze on Monday, after which the release manager cuts a release branch for QA.',
        entities: [
          { name: 'release manager', type: 'role', role: 'cuts the branch' },
          { name: 'QA team', type: 'team', role: 'runs the regression suite' },
        ],
      },
    ],
    [
      {
        title: 'Thursday ship decision',
        content: 'The release ships on Thursday if the regression suite is green; a blocking bug moves it to the next week.',
        entities: [{ name: 'QA team', type: 'team', role: 'reports the suite result' }],
      },
    ],
  ],
  'handbook/on-call': [
    [
      {
        title: '每周指派值班工程师',
        content: '每个工程团队每周指派一名值班工程师处理线上告警，P1级告警须在十五分钟内响应。',
        entities: [{ name: '值班工程师', type: 'role', role: '处理告警' }],
      },
    ],
    [
      {
        title: '值班复盘',
        content: '值班结束后，值班工程师在周会上复盘告警，并把改进项记录到问题跟踪系统。',
        entities: [
          { name: '值班工程师', type: 'role', role: '主持复盘' },
          { name: '问题跟踪系统', type: 'system', role: '记录改进项' },
        ],
      },
    ],
  ],
};

const builder = new PackageBuilder({ asset: { name: 'Engineering handbook' }, ...(state ? { state } : { release: { version: '1.0.0' } }) });
const entities = new Set<string>();
for (const s of sources) {
  builder.addDocument({ path: s.path, markdown: s.markdown });
  const documentId = builder.documentId(s.path);
  // A real chunker: one chunk per paragraph of the body (the heading is not a paragraph).
  const paragraphs = s.markdown
    .split('\n\n')
    .slice(1)
    .map((p) => p.trim())
    .filter(Boolean);
  paragraphs.forEach((text, ordinal) => {
    const chunkId = builder.ids.chunk(`${s.key}#${ordinal}`);
    builder.addChunk({ id: chunkId, document_id: documentId, ordinal, text });
    for (const e of extraction[s.key]![ordinal]!) {
      const eventId = builder.ids.event(`${s.key}#${ordinal}:${e.title}`);
      builder.addEvent({ id: eventId, title: e.title, content: e.content });
      builder.linkChunkEvent({ chunk_id: chunkId, event_id: eventId });
      for (const who of e.entities) {
        const entityId = builder.ids.entity(`${who.type}:${who.name}`);
        if (!entities.has(entityId)) {
          builder.addEntity({ id: entityId, name: who.name, type: who.type }); // shared by every event that names it
          entities.add(entityId);
        }
        builder.linkEventEntity({ event_id: eventId, entity_id: entityId, weight: 1, description: who.role });
      }
    }
  });
}

const embedder = new HashingTextEmbedder({ dimensions: 64 });
for (const target of ['chunks', 'events', 'entities'] as const) await builder.embed(target, embedder);

const result = await builder.export({ output, overwrite: true, structure: 'require' });
const validation = await validatePackage(result.output);
const c = result.report.structure.counts;
console.log(`pipeline builder — ${result.output}`);
console.log(`  ${result.manifest.asset.name} ${result.version}, capabilities: ${result.report.capabilities.join(', ')}`);
console.log(`  ${result.report.documents.concepts} documents, ${c.chunks} chunks, ${c.events} events, ${c.entities} entities; vectors ${result.report.vectors.status}`);
console.log(`  validation: ${validation.valid && validation.fullyValidated ? 'valid, fully validated' : 'INVALID'}`);
if (!validation.valid) process.exitCode = 1;
