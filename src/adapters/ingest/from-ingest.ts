/**
 * Seed 004 ingest-candidate envelopes → OCTX (MAPPINGS.md §3, under seed 001's no-synthesis
 * rules):
 *
 * - envelopes are validated against the seed's JSON Schema exactly; for each `source.uri` only
 *   the latest envelope counts (latest-wins, as the graph side does);
 * - one Concept Document per source, its body read from the canonical Markdown file (a
 *   caller-supplied function or a source folder), with `x-ingest: {uri, content_hash, commit, …}`
 *   in the frontmatter;
 * - one real full-text chunk per document (ordinal 0, text = the whole body) — the route seed 001
 *   §4 prescribes when events are published without fine-grained chunking;
 * - events come only from the caller's extractor (or, behind the explicit `triplesAsEvents`
 *   opt-in, one event per triplet); nodes become entities only when an event links them;
 * - triplets (and nodes) go to a private extension `extensions/<namespace>/0.1/…`.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import type { PackageBuilder } from '../../builder/package-builder.js';
import { OctxError, type OctxIssue } from '../../model/errors.js';
import type { JsonValue } from '../../model/json.js';
import { EXTENSION_NAMESPACE_PATTERN } from '../../model/paths.js';
import type { ChunkRecord } from '../../model/records.js';
import { readRegularBytes } from '../../package/regular-file.js';
import { adapterWarnings } from '../shared/adapter-report.js';
import { ADAPTER_OPTION_SHAPES, checkAdapterOptions } from '../shared/adapter-options.js';
import { addAdapterDocument, decodeDocumentText } from '../shared/add-document.js';
import { inputIssue, issueLocation, throwInputProblems, type InputLocation } from '../shared/input-issues.js';
import { DEFAULT_INGEST_NAMESPACE } from './defaults.js';
import { checkContentHash, latestPerSource, parseSourceUri, validateEnvelopes } from './envelopes.js';
import type { ExtractedEntityRef, ExtractedEvent, FromIngestOptions, IngestAdapterReport, IngestSourceOutcome, RefusedEntityLink } from './ingest-types.js';
import type { IngestEnvelope, IngestNode, IngestTriplet } from './schema.js';

/** The chunk this adapter writes: a document's full text, marked as such in `x-ingest`. */
interface IngestChunk extends ChunkRecord {
  readonly 'x-ingest': { readonly chunk: 'full-text' };
}

const optionsSchema = z.object({
  resolveBody: z.function().optional(),
  sourceRoot: z.string().min(1).optional(),
  namespace: z.string().regex(EXTENSION_NAMESPACE_PATTERN, { error: 'must be a lower-case reverse-DNS name such as com.example.ingest' }).optional(),
  extractEvents: z.function().optional(),
  triplesAsEvents: z.boolean().optional(),
  verifyContentHash: z.boolean().optional(),
  documentPath: ADAPTER_OPTION_SHAPES.documentPath,
  documentType: ADAPTER_OPTION_SHAPES.documentType,
  locate: ADAPTER_OPTION_SHAPES.locate,
});

const extractedEventSchema = z.object({
  key: z.string().min(1).optional(),
  title: z.string().refine((s) => s.trim() !== '', { error: 'must be a non-empty string' }),
  content: z.string().refine((s) => s.trim() !== '', { error: 'must be a non-empty string' }),
  summary: z.string().optional(),
  category: z.string().optional(),
  entities: z.array(
    z
      .object({
        node: z.string().min(1).optional(),
        name: z.string().min(1).optional(),
        type: z.string().min(1).optional(),
        entityDescription: z.string().optional(),
        weight: z.number().optional(),
        description: z.string().optional(),
      })
      .refine((r) => r.node !== undefined || r.name !== undefined, { error: 'needs node or name' }),
  ),
});

const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

function findNode(nodes: readonly IngestNode[], ref: string): IngestNode | undefined {
  return nodes.find((n) => n.id === ref) ?? nodes.find((n) => n.name === ref) ?? nodes.find((n) => n.aliases?.includes(ref));
}

const stripUndefined = <T extends Record<string, unknown>>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/**
 * Maps seed 004 envelopes into a builder. See the module comment for the rules.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (schema violations with the rule named, missing
 *   or mismatching source files, invalid extractor output), `OCTX_OPTIONS_INVALID`, and the
 *   builder's errors
 */
export async function fromIngest(builder: PackageBuilder, envelopes: readonly unknown[], options: FromIngestOptions = {}): Promise<IngestAdapterReport> {
  checkAdapterOptions(options, optionsSchema, 'fromIngest options');
  if (!Array.isArray(envelopes)) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'envelopes', message: 'envelopes must be an array' });
  if (!options.resolveBody && !options.sourceRoot) {
    throw OctxError.of({
      code: 'OCTX_OPTIONS_INVALID',
      field: 'resolveBody',
      message: 'the envelopes do not contain the Markdown: give resolveBody(source) or sourceRoot (the folder holding the canonical files)',
    });
  }
  const namespace = options.namespace ?? DEFAULT_INGEST_NAMESPACE;
  const verify = options.verifyContentHash ?? true;
  const warnings: string[] = [];
  const valid = validateEnvelopes(envelopes, options.locate);
  const { kept, superseded } = latestPerSource(valid);
  const locOf: LocateEnvelope = (index) => issueLocation(options.locate?.(index));

  const planned = await planSources(kept, options, locOf);
  const added = addDocuments(builder, planned, options, verify, locOf, warnings);
  const events = await addEvents(builder, added, options, warnings);
  const extension = addExtension(builder, added, namespace);
  const structure = expectedStructure(added, events, options);

  const totalNodes = added.reduce((n, a) => n + (a.p.envelope.nodes?.length ?? 0), 0);
  const entityCount = events.entityByKey.size;
  const fromNodes = [...events.entityByKey.values()].filter((e) => e.fromNode).length;
  return {
    envelopes: { given: envelopes.length, kept: kept.length, superseded },
    sources: events.sources,
    events: { count: events.eventIds.size, fromExtractor: events.fromExtractor, fromTriplets: events.fromTriplets, withoutEntities: events.withoutEntities },
    entities: { count: entityCount, fromNodes, other: entityCount - fromNodes },
    nodes: { total: totalNodes, asEntities: events.linkedNodes.size, notLinked: totalNodes - events.linkedNodes.size },
    refusedLinks: events.refusedLinks,
    extension: { namespace, ...extension },
    structure,
    ...adapterWarnings(builder, 'fromIngest', warnings),
  };
}

/** The `path` and `line` of envelope `index` for an issue (none when the caller gave no `locate`). */
type LocateEnvelope = (index: number) => Partial<InputLocation>;

// ── where each source lives ─────────────────────────────────────────────────────────────

/** A kept envelope with its source file's bytes and its document path. */
interface PlannedSource {
  envelope: IngestEnvelope;
  index: number;
  uri: string;
  sourcePath: string;
  documentPath: string;
  bytes: Uint8Array;
}

/**
 * Finds each kept envelope's source file (through `resolveBody` or under `sourceRoot`; the
 * repository is prefixed when the envelopes span several) and its document path.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (reserved or clashing paths, unavailable files),
 *   every problem listed
 */
async function planSources(kept: readonly { envelope: IngestEnvelope; index: number }[], options: FromIngestOptions, locOf: LocateEnvelope): Promise<PlannedSource[]> {
  const repositories = new Set(kept.map((k) => parseSourceUri(k.envelope.source.uri).repository).filter((r) => r !== undefined));
  const prefixRepository = repositories.size > 1;
  const planned: PlannedSource[] = [];
  const problems: OctxIssue[] = [];
  const usedPaths = new Map<string, string>();
  for (const { envelope, index } of kept) {
    const uri = envelope.source.uri;
    const parsed = parseSourceUri(uri);
    const sourcePath = prefixRepository && parsed.repository ? `${parsed.repository}/${parsed.path}` : parsed.path;
    let documentPath = options.documentPath ? options.documentPath(envelope.source) : sourcePath;
    documentPath = documentPath.normalize('NFC');
    if (!documentPath.endsWith('.md')) documentPath = `${documentPath.replace(/\.markdown$/i, '')}.md`;
    const name = documentPath.split('/').at(-1);
    if (name === 'index.md' || name === 'log.md') {
      problems.push(
        inputIssue({
          ...locOf(index),
          field: '/source/uri',
          message: `${uri}: ${name} is a reserved OKF file name and cannot be a Concept Document; give documentPath(source) a different path for it`,
        }),
      );
      continue;
    }
    const clash = usedPaths.get(documentPath);
    if (clash !== undefined) {
      problems.push(
        inputIssue({
          ...locOf(index),
          field: '/source/uri',
          message: `${uri} and ${clash} map to the same document path ${documentPath}; give documentPath(source)`,
        }),
      );
      continue;
    }
    usedPaths.set(documentPath, uri);
    let content: string | Uint8Array | undefined;
    try {
      if (options.resolveBody) content = await options.resolveBody(envelope.source);
      else if (sourcePath.split('/').some((s) => s === '..' || s === '')) content = undefined;
      // A FIFO or device under the source root is no source file: refused, never waited on.
      else content = await readRegularBytes(join(options.sourceRoot!, sourcePath)).catch(() => undefined);
    } catch (e) {
      if (e instanceof OctxError) throw e;
      problems.push(inputIssue({ ...locOf(index), field: '/source/uri', message: `${uri}: resolveBody failed: ${(e as Error).message}` }));
      continue;
    }
    if (content === undefined) {
      problems.push(
        inputIssue({
          ...locOf(index),
          field: '/source/uri',
          message: `${uri}: the canonical Markdown is not available${options.resolveBody ? ' (resolveBody returned nothing)' : ` (no file ${join(options.sourceRoot!, sourcePath)})`}; the envelope does not contain the text`,
        }),
      );
      continue;
    }
    planned.push({ envelope, index, uri, sourcePath, documentPath, bytes: typeof content === 'string' ? Buffer.from(content, 'utf8') : content });
  }
  throwInputProblems('some sources cannot be exported:', problems);
  return planned;
}

// ── documents and full-text chunks ──────────────────────────────────────────────────────

/** A source whose document (and full-text chunk, unless the body is empty) is in the builder. */
interface AddedSource {
  p: PlannedSource;
  documentId: string;
  chunk?: { id: string; text: string };
  body: string;
  hash: IngestSourceOutcome['contentHash'];
}

/**
 * Adds one Concept Document per source (its `content_hash` checked first when `verify`, with
 * `x-ingest` in the frontmatter) and one full-text chunk (ordinal 0) for a non-empty body.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (hash mismatches, files that are not UTF-8),
 *   every problem listed
 */
function addDocuments(
  builder: PackageBuilder,
  planned: readonly PlannedSource[],
  options: FromIngestOptions,
  verify: boolean,
  locOf: LocateEnvelope,
  warnings: string[],
): AddedSource[] {
  const hashProblems: OctxIssue[] = [];
  const added: AddedSource[] = [];
  for (const p of planned) {
    let hash: IngestSourceOutcome['contentHash'] = 'not-checked';
    if (verify) {
      const r = checkContentHash(p.envelope.source.content_hash, p.bytes);
      if (r === 'mismatch') {
        hashProblems.push(
          inputIssue({
            ...locOf(p.index),
            field: '/source/content_hash',
            message: `${p.uri}: the file does not match source.content_hash ${p.envelope.source.content_hash}: the triplets were extracted from another version. Re-extract, supply that version, or turn the check off (verifyContentHash: false)`,
          }),
        );
        continue;
      }
      hash = r === 'match' ? 'verified' : 'unverified-format';
    }
    const text = decodeDocumentText(p.bytes);
    if (text === undefined) {
      hashProblems.push(inputIssue({ ...locOf(p.index), field: '/source/uri', message: `${p.uri}: the source file is not valid UTF-8` }));
      continue;
    }
    const source = p.envelope.source;
    const xingest: Record<string, JsonValue> = stripUndefined({
      uri: source.uri,
      content_hash: source.content_hash,
      commit: source.commit,
      anchor: source.anchor,
      block_id: source.block_id,
      extractor: stripUndefined({ model: p.envelope.extractor.model, tier: p.envelope.extractor.tier, extracted_at: p.envelope.extractor.extracted_at }),
    }) as Record<string, JsonValue>;
    const stem = p.documentPath.split('/').at(-1)!.replace(/\.md$/, '').replace(/[-_]+/g, ' ').trim();
    const additions = {
      type: options.documentType ?? 'Document',
      title: stem || p.documentPath,
      documentId: builder.ids.document(`ingest:${p.uri}`),
      extras: { 'x-ingest': xingest },
    };
    const { documentId, body } = addAdapterDocument(builder, { path: p.documentPath, markdown: text, additions, origin: 'the source' }, warnings);
    let chunk: AddedSource['chunk'];
    if (body.trim() !== '') {
      const id = builder.ids.chunk(`ingest:${p.uri}#full-text`);
      builder.addChunk<IngestChunk>({ id, document_id: documentId, ordinal: 0, text: body, 'x-ingest': { chunk: 'full-text' } });
      chunk = { id, text: body };
    } else {
      warnings.push(`knowledge/${p.documentPath}: the body is empty, so the document has no chunk (and cannot be part of a complete structure)`);
    }
    added.push({ p, documentId, body, hash, ...(chunk ? { chunk } : {}) });
  }
  throwInputProblems('some sources do not match their envelopes:', hashProblems);
  return added;
}

// ── events, entities ────────────────────────────────────────────────────────────────────

/** What {@link addEvents} added. */
interface IngestEvents {
  readonly sources: Record<string, IngestSourceOutcome>;
  readonly refusedLinks: RefusedEntityLink[];
  /** Entities by node id or name. */
  readonly entityByKey: Map<string, { id: string; type: string; fromNode: boolean }>;
  readonly eventIds: Set<string>;
  readonly withoutEntities: string[];
  readonly fromExtractor: number;
  readonly fromTriplets: number;
  readonly linkedNodes: Set<IngestNode>;
  readonly chunksWithoutEvents: number;
}

/**
 * Adds each source's events — from the caller's extractor, and one per triplet with
 * `triplesAsEvents` — linked to its full-text chunk, and the entities they name (envelope
 * nodes by id, name or alias, or named entities); links that cannot be made are refused and
 * reported, never filled in.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (invalid extractor output)
 */
async function addEvents(builder: PackageBuilder, added: readonly AddedSource[], options: FromIngestOptions, warnings: string[]): Promise<IngestEvents> {
  const sources: Record<string, IngestSourceOutcome> = {};
  const refusedLinks: RefusedEntityLink[] = [];
  const entityByKey = new Map<string, { id: string; type: string; fromNode: boolean }>();
  const eventIds = new Set<string>();
  const withoutEntities: string[] = [];
  let fromExtractor = 0;
  let fromTriplets = 0;
  const linkedNodes = new Set<IngestNode>();
  let chunksWithoutEvents = 0;

  for (const a of added) {
    const { envelope, uri } = a.p;
    const nodes = envelope.nodes ?? [];
    const extracted = await gatherEvents(a, options, warnings, refusedLinks);
    let events = 0;
    for (const { event, triplet } of extracted) {
      const id = builder.ids.event(event.key ?? `ingest:${uri}#event:${sha256(`${event.title}\n${event.content}`)}`);
      if (eventIds.has(id)) {
        warnings.push(`${uri}: event "${event.title}" was extracted twice; kept once`);
        continue;
      }
      eventIds.add(id);
      const xingest: Record<string, JsonValue> = stripUndefined({
        extractor: stripUndefined({ model: envelope.extractor.model, tier: envelope.extractor.tier, extracted_at: envelope.extractor.extracted_at }),
        anchor: envelope.source.anchor,
        block_id: envelope.source.block_id,
        triplet: triplet ? stripUndefined({ subject: triplet.subject, predicate: triplet.predicate, object: triplet.object, confidence: triplet.confidence }) : undefined,
      }) as Record<string, JsonValue>;
      builder.addEvent(stripUndefined({ id, title: event.title, content: event.content, summary: event.summary, category: event.category, 'x-ingest': xingest }));
      if (a.chunk) builder.linkChunkEvent({ chunk_id: a.chunk.id, event_id: id });
      events++;
      if (triplet) fromTriplets++;
      else fromExtractor++;
      const linked = new Set<string>();
      for (const ref of event.entities) {
        const node = ref.node !== undefined ? findNode(nodes, ref.node) : undefined;
        if (ref.node !== undefined && !node) {
          refusedLinks.push({ uri, event: event.title, entity: ref.node, reason: 'no node of the envelope has this id, name or alias' });
          continue;
        }
        const name = node ? node.name : ref.name!;
        const type = ref.type ?? node?.entity_type;
        if (type === undefined) {
          refusedLinks.push({
            uri,
            event: event.title,
            entity: name,
            reason: 'no entity type (the node has no entity_type and the extractor gave none); no placeholder type is written',
          });
          continue;
        }
        const key = node ? (node.id ?? node.name) : name;
        let entity = entityByKey.get(key);
        if (!entity) {
          const description = node?.gloss ?? ref.entityDescription;
          const extras = node ? stripUndefined({ node_key: node.id, aliases: node.aliases }) : {};
          entity = { id: builder.ids.entity(`ingest:${key}`), type, fromNode: node !== undefined };
          builder.addEntity(stripUndefined({ id: entity.id, name, type, description, ...(Object.keys(extras).length > 0 ? { 'x-ingest': extras } : {}) }));
          entityByKey.set(key, entity);
        } else if (entity.type !== type) {
          warnings.push(`entity "${name}" is typed ${entity.type} and also ${type}; the first type is kept`);
        }
        if (node) linkedNodes.add(node);
        if (linked.has(entity.id)) continue;
        linked.add(entity.id);
        builder.linkEventEntity(stripUndefined({ event_id: id, entity_id: entity.id, weight: ref.weight, description: ref.description }));
      }
      if (linked.size === 0) withoutEntities.push(id);
    }
    if (a.chunk && events === 0) chunksWithoutEvents++;
    sources[uri] = {
      documentPath: `knowledge/${a.p.documentPath}`,
      documentId: a.documentId,
      ...(a.chunk ? { chunkId: a.chunk.id } : {}),
      contentHash: a.hash,
      events,
      triplets: envelope.triplets.length,
      nodes: nodes.length,
    };
  }
  return { sources, refusedLinks, entityByKey, eventIds, withoutEntities, fromExtractor, fromTriplets, linkedNodes, chunksWithoutEvents };
}

/**
 * One source's events before they are added: the caller's extractor output (checked; none for an
 * empty document), then, with `triplesAsEvents`, one event per triplet linked to its subject and
 * object nodes (a subject that is no node is a refused link).
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (invalid extractor output)
 */
async function gatherEvents(
  a: AddedSource,
  options: FromIngestOptions,
  warnings: string[],
  refusedLinks: RefusedEntityLink[],
): Promise<{ event: ExtractedEvent; triplet?: IngestTriplet }[]> {
  const { envelope, uri } = a.p;
  const nodes = envelope.nodes ?? [];
  const extracted: { event: ExtractedEvent; triplet?: IngestTriplet }[] = [];
  if (options.extractEvents) {
    if (!a.chunk) {
      warnings.push(`${uri}: no extraction for an empty document`);
    } else {
      const result = await options.extractEvents({ uri, envelope, documentPath: `knowledge/${a.p.documentPath}`, documentId: a.documentId, body: a.body, chunk: a.chunk });
      if (!Array.isArray(result))
        throw OctxError.of({ code: 'OCTX_ADAPTER_INPUT_INVALID', field: 'extractEvents', message: `${uri}: the extractor must return an array of events` });
      result.forEach((ev, i) => {
        const ok = extractedEventSchema.safeParse(ev);
        if (!ok.success) {
          const first = ok.error.issues[0]!;
          throw OctxError.of({
            code: 'OCTX_ADAPTER_INPUT_INVALID',
            field: `extractEvents[${i}].${first.path.join('.')}`,
            message: `${uri}: extracted event #${i + 1}: ${first.path.join('.')} ${first.message}`,
          });
        }
        // The schema accepted it; the extractor's own object is kept (it may carry extra fields).
        extracted.push({ event: ev as ExtractedEvent });
      });
    }
  }
  if (options.triplesAsEvents && a.chunk) {
    for (const t of envelope.triplets) {
      const refs: ExtractedEntityRef[] = [];
      if (findNode(nodes, t.subject)) refs.push({ node: t.subject, description: 'subject' });
      else refusedLinks.push({ uri, event: `${t.subject} ${t.predicate} ${t.object}`, entity: t.subject, reason: 'the subject is not one of the envelope nodes' });
      if (t.object !== t.subject && findNode(nodes, t.object)) refs.push({ node: t.object, description: 'object' });
      const sentence = `${t.subject} ${t.predicate} ${t.object}`;
      extracted.push({
        event: { key: `ingest:${uri}#triplet:${sha256(JSON.stringify([t.subject, t.predicate, t.object]))}`, title: sentence, content: sentence, entities: refs },
        triplet: t,
      });
    }
  }
  return extracted;
}

// ── the private extension ───────────────────────────────────────────────────────────────

/**
 * Writes every kept envelope's triplets and nodes, with their document id and source uri, to
 * `extensions/<namespace>/0.1/triplets.jsonl` and `nodes.jsonl` (a file only when it has lines).
 */
function addExtension(builder: PackageBuilder, added: readonly AddedSource[], namespace: string): { files: string[]; triplets: number; nodes: number } {
  const tripletLines: string[] = [];
  const nodeLines: string[] = [];
  for (const a of added) {
    const { envelope, uri } = a.p;
    const extractor = stripUndefined({ model: envelope.extractor.model, tier: envelope.extractor.tier, extracted_at: envelope.extractor.extracted_at });
    for (const t of envelope.triplets) {
      tripletLines.push(
        JSON.stringify(
          stripUndefined({
            document_id: a.documentId,
            source_uri: uri,
            content_hash: envelope.source.content_hash,
            subject: t.subject,
            predicate: t.predicate,
            object: t.object,
            confidence: t.confidence,
            predicate_embed: t.predicate_embed,
            extractor,
          }),
        ),
      );
    }
    for (const n of envelope.nodes ?? []) {
      nodeLines.push(
        JSON.stringify(
          stripUndefined({ document_id: a.documentId, source_uri: uri, name: n.name, id: n.id, gloss: n.gloss, aliases: n.aliases, embed: n.embed, entity_type: n.entity_type }),
        ),
      );
    }
  }
  const files: string[] = [];
  if (tripletLines.length > 0) {
    const path = `extensions/${namespace}/0.1/triplets.jsonl`;
    builder.addExtensionFile(path, `${tripletLines.join('\n')}\n`);
    files.push(path);
  }
  if (nodeLines.length > 0) {
    const path = `extensions/${namespace}/0.1/nodes.jsonl`;
    builder.addExtensionFile(path, `${nodeLines.join('\n')}\n`);
    files.push(path);
  }
  return { files, triplets: tripletLines.length, nodes: nodeLines.length };
}

// ── what the coverage gate will say ─────────────────────────────────────────────────────

/** Whether the added records form a complete structure (seed 001 §6), and what is missing if not. */
function expectedStructure(added: readonly AddedSource[], events: IngestEvents, options: FromIngestOptions): IngestAdapterReport['structure'] {
  const { eventIds, chunksWithoutEvents, withoutEntities } = events;
  const emptyDocs = added.filter((a) => !a.chunk).length;
  let structure: IngestAdapterReport['structure'];
  if (added.length === 0) structure = { expected: 'documents-only', reason: 'no source was exported' };
  else if (eventIds.size === 0) {
    structure = {
      expected: 'documents-only',
      reason:
        options.extractEvents || options.triplesAsEvents
          ? 'the extraction produced no event'
          : 'no event extractor was given (and triplesAsEvents is off): envelopes carry nodes and triplets but no events, so there is no sag-structured layer; triplets are kept in the extension',
    };
  } else if (emptyDocs > 0 || chunksWithoutEvents > 0 || withoutEntities.length > 0) {
    const parts = [
      emptyDocs ? `${emptyDocs} document(s) without a chunk (empty body)` : '',
      chunksWithoutEvents ? `${chunksWithoutEvents} document(s) whose extraction gave no event` : '',
      withoutEntities.length ? `${withoutEntities.length} event(s) without an entity` : '',
    ].filter(Boolean);
    structure = { expected: 'documents-only', reason: `coverage is incomplete: ${parts.join(', ')}; no filler records are invented` };
  } else structure = { expected: 'complete', reason: 'every document has its full-text chunk, every chunk an event, every event an entity' };
  return structure;
}
