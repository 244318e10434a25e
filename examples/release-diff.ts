/**
 * Release diff: build 1.0.0 of an asset, edit it, build 1.1.0, and see what changed between the
 * two — documents added, removed, edited or moved (a renamed file keeps its `octx.document_id`),
 * records and links changed, and vectors that must be re-embedded (stale).
 *
 *   npx tsx examples/release-diff.ts [out-1.1.0.octx]
 *
 * 1.0.0 is written next to the output (`…-1.0.0.octx`). The same comparison on the command line:
 * `octx-export diff old.octx new.octx` (`--json` for the result below, `--exit-code` to fail on a change).
 */
import { fileURLToPath } from 'node:url';
import { changeLine, diffPackages, HashingTextEmbedder, PackageBuilder, validatePackage } from 'octx-export';

const output = process.argv[2] ?? fileURLToPath(new URL('../out/release-diff.octx', import.meta.url));
const previous = output.replace(/\.octx$/, '') + '-1.0.0.octx';

// Fixed ids, as a producer's id ledger (`builder.ids`, `--state`) would keep them across releases.
const ASSET = '019c1000-0000-7000-8000-000000000001';
const GUIDE = '019c1000-0000-7000-8000-000000000002';
const FAQ = '019c1000-0000-7000-8000-000000000003';
const INSTALL = '019c1000-0000-7000-8000-000000000011';
const ASK = '019c1000-0000-7000-8000-000000000012';
const SETUP = '019c1000-0000-7000-8000-000000000021';
const PRODUCT = '019c1000-0000-7000-8000-000000000031';

/** One release: `edited` is 1.1.0 (the guide moved and rewritten, the FAQ removed). */
async function release(version: string, out: string, edited: boolean) {
  const b = new PackageBuilder({ asset: { id: ASSET, name: 'Product guide' }, release: { version, createdAt: edited ? '2026-08-01T09:00:00Z' : '2026-07-01T09:00:00Z' } });
  const installText = edited ? 'Install it with the installer. Then run it.' : 'Install it. Then run it.';
  const doc = (id: string, title: string, body: string) => `---\ntype: Guide\ntitle: ${title}\noctx:\n  document_id: ${id}\n---\n# ${title}\n\n${body}\n`;
  b.addDocument({ path: edited ? 'guides/install.md' : 'guide.md', markdown: doc(GUIDE, 'Guide', installText) });
  b.addChunk({ id: INSTALL, document_id: GUIDE, ordinal: 0, text: installText });
  if (!edited) {
    b.addDocument({ path: 'faq.md', markdown: doc(FAQ, 'FAQ', 'Ask the team.') });
    b.addChunk({ id: ASK, document_id: FAQ, ordinal: 0, text: 'Ask the team.' });
    b.linkChunkEvent({ chunk_id: ASK, event_id: SETUP });
  }
  b.addEvent({ id: SETUP, title: 'Set-up', content: 'The guide explains how to install the product.' })
    .addEntity({ id: PRODUCT, name: 'Product', type: 'software' })
    .linkChunkEvent({ chunk_id: INSTALL, event_id: SETUP })
    .linkEventEntity({ event_id: SETUP, entity_id: PRODUCT, weight: edited ? 0.8 : 1 });
  await b.embed('chunks', new HashingTextEmbedder({ dimensions: 64 }));
  // 1.1.0 names 1.0.0 as its previous release: result.report.changes holds the counts.
  return b.export({ output: out, overwrite: true, structure: 'require', ...(edited ? { previous } : {}) });
}

await release('1.0.0', previous, false);
const result = await release('1.1.0', output, true);
console.log(`release diff — ${previous} → ${result.output}`);
console.log(`  ${changeLine(result.report.changes!)}`);

const diff = await diffPackages(previous, output);
const d = diff.documents;
console.log(`  relation: ${diff.relation}`);
for (const m of d.moved) console.log(`  moved:   ${m.from} → ${m.to}`);
for (const c of d.changed) console.log(`  changed: ${c.path}`);
for (const r of d.removed) console.log(`  removed: ${r.path}`);
console.log(`  chunks: ${JSON.stringify(diff.records.chunks)}; re-embedded chunk vectors: ${diff.vectors.chunks.changed}, stale: ${diff.vectors.chunks.stale}`);
console.log(`  event-entity links changed: ${diff.samples.event_entities.changed.map(([e, n]) => `${e}→${n}`).join(', ')}`);

const validation = await validatePackage(output);
console.log(`  validation: ${validation.valid && validation.fullyValidated ? 'valid, fully validated' : 'INVALID'}`);
if (!validation.valid) process.exitCode = 1;
