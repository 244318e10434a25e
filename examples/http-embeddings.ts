/**
 * Embeddings from an HTTP service: any endpoint that speaks the OpenAI embeddings API (OpenAI,
 * Azure OpenAI, Ollama, vLLM, text-embeddings-inference, …) embeds chunks, events and entities,
 * and the package carries them as `vectors/0.1`, each row with the `input_sha256` of the text it
 * was computed from. A second release then derives from the first, adds a chunk, and embeds only
 * what is missing: the old vectors are carried over unchanged, no request is spent on them.
 *
 *   OCTX_EMBEDDINGS_URL=http://127.0.0.1:11434/v1 OCTX_EMBEDDINGS_MODEL=nomic-embed-text \
 *     npx tsx examples/http-embeddings.ts [out-dir]
 *
 * `OCTX_EMBEDDINGS_KEY` is sent as a bearer token when set. The URL and the key never enter the
 * package: the vector config names the model, its width, whether vectors are unit length, the
 * input templates and how the input digests are computed (`input_hash`).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpEmbedder, PackageBuilder, newId, validatePackage } from 'octx-export';

const baseURL = process.env.OCTX_EMBEDDINGS_URL;
const model = process.env.OCTX_EMBEDDINGS_MODEL;
if (!baseURL || !model) {
  console.error('set OCTX_EMBEDDINGS_URL (e.g. http://127.0.0.1:11434/v1) and OCTX_EMBEDDINGS_MODEL (e.g. nomic-embed-text)');
  process.exit(2);
}
const outDir = process.argv[2] ?? fileURLToPath(new URL('../out', import.meta.url));
const first = join(outDir, 'http-embeddings-1.0.0.octx');
const second = join(outDir, 'http-embeddings-1.1.0.octx');

/** One client per run: the first request measures the width and the norm. */
function embedder(): HttpEmbedder {
  return new HttpEmbedder({
    baseURL: baseURL!,
    model: model!,
    apiKey: process.env.OCTX_EMBEDDINGS_KEY,
    batchSize: 64,
    timeoutMs: 30_000,
    maxRetries: 5,
    // The templates are part of the pipeline: recorded in the config, they let a validator
    // recompute every row's input_sha256 from the JSONL records.
    settings: { input_template: { chunks: '{text}', events: '{title}\n\n{content}', entities: '{name}' } },
    onRetry: (r) => console.error(`retry ${r.attempt}: ${r.reason}; waiting ${Math.round(r.delayMs)} ms`),
  });
}

// ── release 1.0.0: everything embedded ─────────────────────────────────────────────────────
const doc = newId();
const chunk = newId();
const event = newId();
const entity = newId();
const builder = new PackageBuilder({ asset: { name: 'Release handbook' }, release: { version: '1.0.0' } })
  .addDocument({
    path: 'release-process.md',
    markdown: `---\ntype: Process\ntitle: Release process\noctx:\n  document_id: ${doc}\n---\n\n# Release process\n\nEvery release starts with a freeze on Monday and ships on Thursday when the regression suite is green.\n`,
  })
  .addChunk({ id: chunk, document_id: doc, ordinal: 0, text: 'Every release starts with a freeze on Monday and ships on Thursday when the regression suite is green.' })
  .addEvent({ id: event, title: 'Weekly release', content: 'A release is frozen on Monday and shipped on Thursday once the regression suite passes.' })
  .addEntity({ id: entity, name: 'Regression suite', type: 'test suite' })
  .linkChunkEvent({ chunk_id: chunk, event_id: event })
  .linkEventEntity({ event_id: event, entity_id: entity });

const e1 = embedder();
for (const target of ['chunks', 'events', 'entities'] as const) await builder.embed(target, e1, { concurrency: 2 });
const r1 = await builder.export({ output: first, overwrite: true });
console.log(`${first}: ${r1.packageDigest} (${e1.requests} request(s))`);
console.log(`  validation: ${(await validatePackage(first)).valid ? 'valid' : 'INVALID'}`);

// ── release 1.1.0: derived, one chunk added, only the missing vectors embedded ─────────────
const derived = await PackageBuilder.derive(first, { asset: { name: 'Release handbook, with hotfixes' }, release: { version: '1.1.0' } });
const hotfix = newId();
derived
  .addChunk({ id: hotfix, document_id: doc, ordinal: 1, text: 'A hotfix skips the freeze but still needs a green regression suite.' })
  .linkChunkEvent({ chunk_id: hotfix, event_id: event });
const e2 = embedder();
let embedded = 0;
for (const target of ['chunks', 'events', 'entities'] as const) {
  let n = 0;
  await derived.embed(target, e2, { only: 'missing', onProgress: (done) => (n = done) });
  embedded += n;
}
const r2 = await derived.export({ output: second, overwrite: true });
console.log(`${second}: ${r2.packageDigest} (${embedded} record(s) embedded, ${e2.requests} request(s))`);
console.log(`  vectors: ${JSON.stringify(r2.report.vectors.targets)}`);
console.log(`  validation: ${(await validatePackage(second)).valid ? 'valid' : 'INVALID'}`);
