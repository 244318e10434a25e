/**
 * The main job: build a real sag-structured package with vectors from fixtures/ and print its
 * report.
 *
 *   npm run demo            (writes out/three-kingdoms.octx)
 *
 * It reads the working folder fixtures/kb-three-kingdoms (knowledge/, data/, relations/),
 * embeds chunks, events and entities with the built-in feature-hashing embedder (no network, no
 * model download), exports, and validates the result with the package validator.
 */
import { fileURLToPath } from 'node:url';
import { HashingTextEmbedder, loadWorkdir, PackageBuilder, validatePackage } from 'octx-export';

const fixture = fileURLToPath(new URL('../fixtures/kb-three-kingdoms', import.meta.url));
const output = process.argv[2] ?? fileURLToPath(new URL('../out/three-kingdoms.octx', import.meta.url));

const builder = new PackageBuilder({
  // A fixed asset id keeps the demo's digest reproducible; real pipelines keep theirs in a state file.
  asset: { id: '019f2000-0000-7000-8000-0000000d3e00', name: 'Romance of the Three Kingdoms — reader’s knowledge base' },
  release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' },
});
const loaded = await loadWorkdir(builder, fixture);

const embedder = new HashingTextEmbedder({ dimensions: 256 });
for (const target of ['chunks', 'events', 'entities'] as const) {
  await builder.embed(target, embedder, { batchSize: 16, concurrency: 2 });
}

const result = await builder.export({
  output,
  overwrite: true,
  structure: 'require',
  onProgress: (e) => {
    if (e.phase === 'warning') console.warn(`warning: ${e.issue.code}: ${e.issue.message}`);
  },
});
const validation = await validatePackage(result.output);
const { report } = result;

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`octx-export demo — ${result.output}`);
console.log(`  asset        ${result.assetId}  "${result.manifest.asset.name}"`);
console.log(`  release      ${result.version}  ${result.manifest.release.created_at}`);
console.log(`  digest       ${result.packageDigest}`);
console.log(`  capabilities ${report.capabilities.join(', ') || '(none)'}`);
console.log(`  documents    ${report.documents.concepts} concept(s), ${report.documents.reserved} reserved`);
const c = report.structure.counts;
console.log(
  `  structure    ${report.structure.status}: ${c.chunks} chunks, ${c.events} events, ${c.entities} entities, ${c.chunkEvents} chunk-event and ${c.eventEntities} event-entity links`,
);
console.log(`  vectors      ${report.vectors.status} (${embedder.config.model}, ${embedder.dimensions} dims, ${report.vectors.fingerprint ?? 'no config'})`);
for (const [target, t] of Object.entries(report.vectors.targets)) {
  console.log(`               ${target.padEnd(9)}${t.status}${t.status === 'written' ? ` (${t.rows} rows)` : ''}`);
}
console.log('  files');
for (const f of report.files) console.log(`    ${f.path.padEnd(44)} ${kib(f.size).padStart(10)} → ${kib(f.compressedSize).padStart(10)} ${f.method}`);
console.log(`  archive      ${kib(report.archive.size)} in ${Math.round(report.timings.total ?? 0)} ms`);
console.log(`  validation   ${validation.valid && validation.fullyValidated ? 'valid, fully validated' : 'INVALID'} (${validation.issues.length} issue(s))`);
if (loaded.ignored.length > 0) console.log(`  not read     ${loaded.ignored.join(', ')}`);
if (!validation.valid) process.exitCode = 1;
