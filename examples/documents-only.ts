/**
 * Documents only: a folder of plain Markdown notes becomes an OCTX package with just the
 * knowledge layer. Missing frontmatter is filled in (`type`, `title` from the first heading, a new
 * `octx.document_id`); no structure layer is claimed.
 *
 *   npx tsx examples/documents-only.ts [out.octx] [notes-folder] [state.json]
 *
 * With a state file, a document keeps its id on the next run (by path).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PackageBuilder, validatePackage } from 'octx-export';

const output = process.argv[2] ?? fileURLToPath(new URL('../out/notes.octx', import.meta.url));
const folder = process.argv[3] ?? fileURLToPath(new URL('../fixtures/ingest/sources', import.meta.url));
const state = process.argv[4];

async function markdownFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await markdownFiles(full)));
    else if (entry.isFile() && entry.name.endsWith('.md')) out.push(full);
  }
  return out.sort();
}

const builder = new PackageBuilder({ asset: { name: 'Team notes' }, ...(state ? { state } : {}) });
for (const file of await markdownFiles(folder)) {
  builder.addDocument({ path: relative(folder, file).split(sep).join('/'), markdown: await readFile(file) });
}
const result = await builder.export({ output, overwrite: true, documentsOnly: true });
const validation = await validatePackage(result.output);
console.log(`documents only — ${result.output}`);
console.log(`  ${result.report.documents.concepts} documents, structure ${result.report.structure.status}, capabilities: ${result.report.capabilities.join(', ') || 'none'}`);
for (const f of result.manifest.files) console.log(`  ${f.path}`);
console.log(`  validation: ${validation.valid ? 'valid' : 'INVALID'}`);
if (!validation.valid) process.exitCode = 1;
