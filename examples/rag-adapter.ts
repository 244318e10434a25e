/**
 * RAG adapter: seed 002 Chunk and Vector objects (a RAG pipeline's own JSONL exports) become an
 * OCTX package. Documents come from the converted originals; the one without an original is
 * rebuilt from its non-overlapping chunks (explicit opt-in, recorded in its frontmatter). The
 * vectors are checked against the chunk texts (`text_md5`), and `normalized` is stated by the
 * caller. Seed 002 has no events or entities, so the package is documents-only — the report
 * says so, and `report.chunkIds` is what a real extraction run would link events to.
 *
 *   npx tsx examples/rag-adapter.ts [out.octx]
 */
import { fileURLToPath } from 'node:url';
import { PackageBuilder, validatePackage } from 'octx-export';
import { fromRag, loadRagFiles, ragDocumentsFolder } from 'octx-export/adapters/rag';

const output = process.argv[2] ?? fileURLToPath(new URL('../out/rag.octx', import.meta.url));
const fixture = (p: string) => fileURLToPath(new URL(`../fixtures/rag/${p}`, import.meta.url));

const input = await loadRagFiles([fixture('chunks.jsonl'), fixture('vectors.jsonl')]);
const builder = new PackageBuilder({ asset: { name: 'Company documents' } });
const report = await fromRag(builder, {
  chunks: input.chunks,
  vectors: input.vectors,
  locate: input.locate,
  documents: await ragDocumentsFolder(fixture('documents')),
  rebuildDocuments: true,
  normalized: true, // from our embedding pipeline's settings: seed 002 does not record it
  vectorConfig: { revision: '2026-06-01', pooling: 'cls' },
  addVectors: false, // checked and reported; vectors/0.1 needs a sag-structured layer, which seed 002 cannot give
});
const result = await builder.export({ output, overwrite: true, documentsOnly: true });
const validation = await validatePackage(result.output);
console.log(`RAG adapter — ${result.output}`);
console.log(
  `  ${report.chunks.count} chunks of ${report.documents.count} documents (${report.documents.fromOriginals} originals, ${report.documents.rebuilt} rebuilt from chunks)`,
);
console.log(`  vectors: ${report.vectors.status}${report.vectors.status === 'complete' ? ` (${report.vectors.rows} rows, ${report.vectors.model})` : ''}`);
console.log(`  structure: ${report.structure.status} — ${report.structure.reason}`);
console.log(`  export: structure ${result.report.structure.status}, capabilities: ${result.report.capabilities.join(', ') || 'none'}`);
for (const w of report.warnings) console.log(`  warning: ${w}`);
console.log(`  validation: ${validation.valid ? 'valid' : 'INVALID'}`);
if (!validation.valid) process.exitCode = 1;
