/**
 * Derived asset: enhance someone else's package and publish the result as a new asset whose
 * manifest names its source (`asset.derived_from`). The source is opened, fully validated and
 * copied with its ids; the additions here are a reading-notes document with a chunk and an event
 * linked to an entity of the source.
 *
 *   npx tsx examples/derived-asset.ts [out.octx] [source.octx]
 *
 * Without a source, one is built first from fixtures/kb-three-kingdoms.
 */
import { fileURLToPath } from 'node:url';
import { loadWorkdir, PackageBuilder, validatePackage } from 'octx-export';

const output = process.argv[2] ?? fileURLToPath(new URL('../out/three-kingdoms-notes.octx', import.meta.url));
let source = process.argv[3];
if (!source) {
  source = output.replace(/\.octx$/, '') + '.source.octx';
  const original = new PackageBuilder({ asset: { name: 'Romance of the Three Kingdoms' }, release: { version: '1.0.0' } });
  await loadWorkdir(original, fileURLToPath(new URL('../fixtures/kb-three-kingdoms', import.meta.url)));
  await original.export({ output: source, overwrite: true, structure: 'require' });
}

const builder = await PackageBuilder.derive(source, { asset: { name: 'Three Kingdoms, with reading notes' }, release: { version: '1.0.0' } });
const text = '第一回用一场结拜交代了三位主角的性格：刘备仁厚，关羽重义，张飞刚烈。';
builder.addDocument({ path: 'notes/reading-notes.md', markdown: `# 读书笔记：桃园结义\n\n${text}\n` });
const chunk = builder.ids.chunk('notes/reading-notes.md#0');
const event = builder.ids.event('notes/reading-notes.md#characters');
builder.addChunk({ id: chunk, document_id: builder.documentId('notes/reading-notes.md'), ordinal: 0, text });
builder.addEvent({ id: event, title: '读者总结三兄弟的性格', content: '读者认为第一回通过桃园结拜交代了刘备仁厚、关羽重义、张飞刚烈的性格。' });
builder.linkChunkEvent({ chunk_id: chunk, event_id: event });
builder.linkEventEntity({ event_id: event, entity_id: '019f21ef-032c-7152-83ab-a6e8fcb60b6a' /* 刘备, from the source */, description: '被评价的人物' });

const result = await builder.export({ output, overwrite: true, structure: 'require' });
const validation = await validatePackage(result.output);
const from = result.manifest.asset.derived_from!;
console.log(`derived asset — ${result.output}`);
console.log(`  ${result.assetId} "${result.manifest.asset.name}" ${result.version}`);
console.log(`  derived from ${from.asset_id} ${from.version} (${from.package_digest})`);
console.log(`  carried: ${JSON.stringify(builder.derivation?.carried)}`);
console.log(`  ${result.report.documents.concepts} documents, structure ${result.report.structure.status}, capabilities: ${result.report.capabilities.join(', ')}`);
console.log(`  validation: ${validation.valid && validation.fullyValidated ? 'valid, fully validated' : 'INVALID'}`);
if (!validation.valid) process.exitCode = 1;
