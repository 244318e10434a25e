/**
 * Embeddings from an HTTP service: any endpoint that speaks the OpenAI embeddings API (OpenAI,
 * Azure OpenAI, Ollama, vLLM, text-embeddings-inference, …) embeds chunks, events and entities,
 * and the package carries them as `vectors/0.1`.
 *
 *   OCTX_EMBEDDINGS_URL=http://127.0.0.1:11434/v1 OCTX_EMBEDDINGS_MODEL=nomic-embed-text \
 *     npx tsx examples/http-embeddings.ts [out.octx]
 *
 * `OCTX_EMBEDDINGS_KEY` is sent as a bearer token when set. The URL and the key never enter the
 * package: the vector config names the model, its width and whether vectors are unit length.
 */
import { fileURLToPath } from 'node:url';
import { HttpEmbedder, PackageBuilder, newId, validatePackage } from 'octx-export';

const baseURL = process.env.OCTX_EMBEDDINGS_URL;
const model = process.env.OCTX_EMBEDDINGS_MODEL;
if (!baseURL || !model) {
  console.error('set OCTX_EMBEDDINGS_URL (e.g. http://127.0.0.1:11434/v1) and OCTX_EMBEDDINGS_MODEL (e.g. nomic-embed-text)');
  process.exit(2);
}
const output = process.argv[2] ?? fileURLToPath(new URL('../out/http-embeddings.octx', import.meta.url));

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

// One client for all three targets: the first request measures the width and the norm.
const embedder = new HttpEmbedder({
  baseURL,
  model,
  apiKey: process.env.OCTX_EMBEDDINGS_KEY,
  batchSize: 64,
  timeoutMs: 30_000,
  maxRetries: 5,
  onRetry: (r) => console.error(`retry ${r.attempt}: ${r.reason}; waiting ${Math.round(r.delayMs)} ms`),
});
for (const target of ['chunks', 'events', 'entities'] as const) await builder.embed(target, embedder, { concurrency: 2 });

const result = await builder.export({ output, overwrite: true });
const report = await validatePackage(output);
console.log(`${output}: ${result.packageDigest}`);
console.log(`  vectors  ${JSON.stringify(embedder.config)} (${embedder.requests} request(s))`);
console.log(`  valid    ${report.valid}`);
