/**
 * Ingest adapter: seed 004 ingest-candidate envelopes become a sag-structured package. Each
 * source file is one document with one real full-text chunk; events come from the caller's
 * extractor (here: recorded output of an extraction run, replayed from a JSONL file); envelope
 * nodes become entities only when an event links them; triplets are kept in a private
 * extension. Turning triplets into events is possible only with `triplesAsEvents: true`.
 *
 *   npx tsx examples/ingest-adapter.ts [out.octx]
 */
import { fileURLToPath } from 'node:url';
import { PackageBuilder, validatePackage } from 'octx-export';
import { eventsFromFile, fromIngest, loadIngestFiles, type IngestEventExtractor } from 'octx-export/adapters/ingest';

const output = process.argv[2] ?? fileURLToPath(new URL('../out/wiki.octx', import.meta.url));
const fixture = (p: string) => fileURLToPath(new URL(`../fixtures/ingest/${p}`, import.meta.url));

const recorded = await eventsFromFile(fixture('events.jsonl'));
/** Where a real pipeline would call its event-extraction model on `context.body`. */
const extractEvents: IngestEventExtractor = async (context) => {
  const events = await recorded(context);
  console.log(`  extracted ${events.length} event(s) from ${context.documentPath}`);
  return events;
};

const input = await loadIngestFiles([fixture('envelopes.jsonl')]);
const builder = new PackageBuilder({ asset: { name: 'LLM wiki' } });
const report = await fromIngest(builder, input.envelopes, { sourceRoot: fixture('sources'), locate: input.locate, extractEvents });
const result = await builder.export({ output, overwrite: true, structure: 'require' });
const validation = await validatePackage(result.output);
console.log(`ingest adapter — ${result.output}`);
console.log(`  ${report.envelopes.kept} of ${report.envelopes.given} envelopes kept (latest per source.uri)`);
console.log(`  ${report.events.count} events, ${report.entities.count} entities; ${report.nodes.notLinked} nodes not linked by an event`);
console.log(`  extension: ${report.extension.files.join(', ')}`);
console.log(`  capabilities: ${result.report.capabilities.join(', ')}`);
console.log(`  validation: ${validation.valid && validation.fullyValidated ? 'valid, fully validated' : 'INVALID'}`);
if (!validation.valid) process.exitCode = 1;
