import { DEFAULT_INGEST_NAMESPACE } from '../../adapters/ingest/defaults.js';
import type { IngestAdapterReport } from '../../adapters/ingest/ingest-types.js';
import { issue } from '../../model/errors.js';
import { adapterCommand } from '../adapter-command.js';
import { flag, str } from '../args.js';
import { requireFolder } from '../fs-checks.js';

/** Human lines about an ingest adapter run. */
export function ingestLines(r: IngestAdapterReport): string[] {
  const lines = [
    `  ingest        ${r.envelopes.given} envelope(s), ${r.envelopes.kept} kept (latest per source.uri), ${r.envelopes.superseded.length} superseded`,
    `  ingest        ${r.events.count} event(s) (${r.events.fromExtractor} extracted, ${r.events.fromTriplets} from triplets), ${r.entities.count} entit(y/ies); ${r.nodes.notLinked} of ${r.nodes.total} node(s) not linked by an event`,
    `  extension     ${r.extension.triplets} triplet(s), ${r.extension.nodes} node(s) in extensions/${r.extension.namespace}/0.1/`,
    `  note          structure expected ${r.structure.expected}: ${r.structure.reason}`,
  ];
  for (const l of r.refusedLinks.slice(0, 10)) lines.push(`  refused link  ${l.event} → ${l.entity}: ${l.reason}`);
  if (r.refusedLinks.length > 10) lines.push(`  refused link  … and ${r.refusedLinks.length - 10} more`);
  // The adapter's warnings are printed as `warning[OCTX_ADAPTER_WARNING]` lines on stderr by the export.
  return lines;
}

export const fromIngestCommand = adapterCommand({
  name: 'from-ingest',
  summary: 'export ingest-candidate envelopes (one document and full-text chunk per source)',
  description: [
    'Envelopes (JSON or JSONL) are validated against the ingest-candidate JSON Schema exactly; the latest',
    'envelope per source.uri wins. Each source becomes one Concept Document read from',
    '--source-root/<path of the uri>, with one real full-text chunk. Events come only from a real',
    'extraction run (--events, one JSON event per line) or, by explicit choice, --triples-as-events.',
    'Nodes become entities only when an event links them. Triplets and nodes are kept in',
    `extensions/<namespace>/0.1/ (default namespace ${DEFAULT_INGEST_NAMESPACE}).`,
  ].join('\n'),
  positionals: [{ name: 'envelopes', description: 'JSON or JSONL files with IngestCandidateEnvelope objects', variadic: true }],
  options: {
    'source-root': { type: 'string', value: '<dir>', description: 'folder holding the canonical Markdown files', required: true },
    namespace: { type: 'string', value: '<reverse.dns>', description: `extension namespace (default ${DEFAULT_INGEST_NAMESPACE})` },
    events: {
      type: 'string',
      value: '<file.jsonl>',
      description: 'events from your extractor: {"source_uri","title","content","entities":[{"node"|"name","type"?,"weight"?,"description"?}]} per line',
    },
    'triples-as-events': { type: 'boolean', description: 'opt-in: one event per triplet ("subject predicate object"), linked to the typed subject/object nodes' },
    'skip-hash-check': { type: 'boolean', description: 'do not compare source.content_hash with the file' },
  },
  examples: [
    'octx-export from-ingest fixtures/ingest/envelopes.jsonl --source-root fixtures/ingest/sources --events fixtures/ingest/events.jsonl -o out/wiki.octx --mkdir --name "LLM wiki"',
    'octx-export from-ingest fixtures/ingest/envelopes.jsonl --source-root fixtures/ingest/sources -o out/wiki-docs.octx --mkdir --name "LLM wiki"',
  ],
  async read(ctx) {
    const sourceRoot = str(ctx.values, 'source-root')!;
    await requireFolder(sourceRoot, 'source root');
    const { eventsFromFile, loadIngestFiles } = await import('../../adapters/ingest/files.js');
    const input = await loadIngestFiles(ctx.positionals);
    const eventsFile = str(ctx.values, 'events');
    const extractEvents = eventsFile !== undefined ? await eventsFromFile(eventsFile) : undefined;
    const namespace = str(ctx.values, 'namespace');
    const options = {
      sourceRoot,
      locate: input.locate,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(extractEvents ? { extractEvents } : {}),
      ...(flag(ctx.values, 'triples-as-events') ? { triplesAsEvents: true } : {}),
      ...(flag(ctx.values, 'skip-hash-check') ? { verifyContentHash: false } : {}),
    };
    return { envelopes: input.envelopes, options, eventsFile, extractEvents };
  },
  async map(builder, { envelopes, options, eventsFile, extractEvents }) {
    const { fromIngest } = await import('../../adapters/ingest/from-ingest.js');
    const report = await fromIngest(builder, envelopes, options);
    const unused = extractEvents ? extractEvents.sources.filter((uri) => report.sources[uri] === undefined) : [];
    // Reported to the builder: printed on stderr with the export's warnings, and refused by --strict.
    for (const uri of unused) {
      builder.reportWarning(
        issue({
          code: 'OCTX_ADAPTER_WARNING',
          severity: 'warning',
          path: eventsFile,
          message: `the events file has events for ${uri}, which is not an exported source (no envelope, or superseded)`,
        }),
      );
    }
    return { report, unused };
  },
  lines: ({ report }) => ingestLines(report),
  json: ({ report, unused }) => ({ adapter: report, unusedEventSources: unused }),
});
