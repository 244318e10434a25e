import { readRegularFile } from '../../package/regular-file.js';
import { fsReason } from '../../model/fs-errors.js';
import type { RagAdapterReport } from '../../adapters/rag/rag-types.js';
import { OctxError } from '../../model/errors.js';
import type { JsonValue } from '../../model/json.js';
import { adapterCommand } from '../adapter-command.js';
import { flag, str, usageError, type OptionValues } from '../args.js';

/** Human lines about a RAG adapter run. */
export function ragLines(r: RagAdapterReport): string[] {
  const lines = [
    `  rag           ${r.chunks.count} chunk(s) of ${r.documents.count} document(s): ${r.documents.fromOriginals} from originals, ${r.documents.rebuilt} rebuilt from chunks; kb_id ${r.kbIds.join(', ')}`,
  ];
  const v = r.vectors;
  if (v.status === 'none') lines.push(`  rag vectors   none (${v.reason})`);
  else if (v.status === 'complete')
    lines.push(
      `  rag vectors   complete and fresh: ${v.rows} rows, ${v.model}, ${v.dimensions} dims, normalized ${v.normalized}${v.added ? '' : ' (checked, not packaged: vectors/0.1 needs sag-structured)'}`,
    );
  else lines.push(`  rag vectors   omitted (${v.reason}): ${v.message}${v.stale.count ? `; stale: ${v.stale.sample.join(', ')}` : ''}`);
  lines.push(`  note          ${r.structure.status}: ${r.structure.reason}`);
  if (r.scrubbedKeys.length > 0) lines.push(`  scrubbed      ${r.scrubbedKeys.length} secret-looking key(s) dropped: ${r.scrubbedKeys.slice(0, 5).join(', ')}`);
  // The adapter's warnings are printed as `warning[OCTX_ADAPTER_WARNING]` lines on stderr by the export.
  return lines;
}

/** `--vector-config <file.json>`: more embedding settings, one JSON object. */
async function readVectorConfig(values: OptionValues): Promise<Record<string, JsonValue> | undefined> {
  const configFile = str(values, 'vector-config');
  if (configFile === undefined) return undefined;
  let text: string;
  try {
    text = await readRegularFile(configFile);
  } catch (e) {
    throw OctxError.of({ code: 'OCTX_IO_ERROR', path: configFile, message: `cannot read ${configFile}: ${fsReason(e, configFile)}` });
  }
  const { parseStrictJson } = await import('../../read/strict-json.js');
  const parsed = parseStrictJson(text);
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
    throw OctxError.of({ code: 'OCTX_JSON_INVALID', path: configFile, message: parsed.ok ? 'the vector config must be a JSON object' : parsed.message });
  }
  return parsed.value as Record<string, JsonValue>;
}

export const fromRagCommand = adapterCommand({
  name: 'from-rag',
  summary: 'export RAG Chunk and Vector objects (JSON/JSONL) as a documents-only package',
  description: [
    'Reads Chunk and Vector objects (any mix of .json and .jsonl files). Retrieval Result objects are',
    'refused: they are query output, not knowledge. Documents come from --documents (a folder with',
    '<doc_id>.md or <doc_name without extension>.md); --rebuild-documents rebuilds a missing one',
    'from its chunks when they are a complete, non-overlapping partition. Vectors are checked',
    '(text_md5 against chunk_text, status 1, every chunk covered); --normalized must be given with',
    'vectors because the RAG format does not say. It has no events or entities, so the package',
    'is documents-only; the chunks and vectors are checked and reported, not packaged.',
  ].join('\n'),
  positionals: [{ name: 'input', description: 'JSON or JSONL files with Chunk and Vector objects', variadic: true }],
  options: {
    documents: { type: 'string', value: '<dir>', description: 'folder with the original documents converted to Markdown' },
    'rebuild-documents': { type: 'boolean', description: 'rebuild a document without an original from its non-overlapping chunks (recorded in its frontmatter)' },
    separator: { type: 'string', value: '<text>', description: 'text between chunks of a rebuilt document (default: a blank line)' },
    normalized: { type: 'string', value: '<true|false>', description: 'whether the vectors were L2-normalised (required with vectors)' },
    'vector-config': { type: 'string', value: '<file.json>', description: 'more embedding settings for vectors/config.json (revision, pooling, input_template, …)' },
  },
  examples: [
    'octx-export from-rag fixtures/rag/chunks.jsonl fixtures/rag/vectors.jsonl --documents fixtures/rag/documents --rebuild-documents --normalized true -o out/rag.octx --mkdir --name "Finance reports"',
    'octx-export from-rag fixtures/rag/chunks.jsonl --rebuild-documents -o out/rag-rebuilt.octx --mkdir --name "Finance reports"',
  ],
  documentsOnly: {
    refuseRequireStructure: 'from-rag: RAG chunks carry no events or entities, so a complete structure layer cannot be required; drop --require-structure',
  },
  async read(ctx) {
    const normalizedText = str(ctx.values, 'normalized');
    if (normalizedText !== undefined && normalizedText !== 'true' && normalizedText !== 'false') throw usageError('--normalized must be true or false', 'normalized');
    const separator = str(ctx.values, 'separator');
    if (separator !== undefined && !flag(ctx.values, 'rebuild-documents')) throw usageError('--separator only applies with --rebuild-documents', 'separator');
    const vectorConfig = await readVectorConfig(ctx.values);
    const { loadRagFiles, ragDocumentsFolder } = await import('../../adapters/rag/files.js');
    const input = await loadRagFiles(ctx.positionals);
    const documentsDir = str(ctx.values, 'documents');
    const documents = documentsDir !== undefined ? await ragDocumentsFolder(documentsDir) : undefined;
    return {
      chunks: input.chunks,
      vectors: input.vectors,
      locate: input.locate,
      // The package is documents-only: the vectors are checked and reported, not handed to the builder.
      addVectors: false,
      ...(documents ? { documents } : {}),
      ...(normalizedText !== undefined ? { normalized: normalizedText === 'true' } : {}),
      ...(vectorConfig ? { vectorConfig } : {}),
      ...(flag(ctx.values, 'rebuild-documents') ? { rebuildDocuments: separator !== undefined ? { separator } : true } : {}),
    };
  },
  async map(builder, options) {
    const { fromRag } = await import('../../adapters/rag/from-rag.js');
    return fromRag(builder, options);
  },
  lines: ragLines,
});
