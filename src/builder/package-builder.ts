import { join } from 'node:path';
import { OctxError, type OctxIssue } from '../model/errors.js';
import { newId } from '../model/ids.js';
import type { ChunkEventLink, ChunkRecord, EntityRecord, EventEntityLink, EventRecord, RecordKind } from '../model/records.js';
import { prepareDocument, knowledgePath, type DocumentInput } from '../knowledge/document.js';
import { BackgroundDeflate } from '../package/background-deflate.js';
import { PayloadSpill, type SpilledEntry } from '../package/payload-spill.js';
import type { CopiedFile } from '../package/payload-source.js';
import type { DerivedFrom } from '../package/manifest.js';
import { IdLedger, nextVersion, ProducerState } from '../release/producer-state.js';
import { EXTENSION_PATH_PATTERN, entryNameProblem, logicalPathProblem } from '../model/paths.js';
import { exportCollected, type ExportProducer, type ExportResult } from '../export/export-collected.js';
import { IdKind } from '../model/id-kind.js';
import { consumerProfile } from '../consumers/index.js';
import { IdRegistry } from '../structure/id-registry.js';
import { FrozenIds, definedCounts } from '../structure/frozen-ids.js';
import { StructureStore } from '../structure/structure-store.js';
import type { PreparedVectorConfig, VectorConfigInput } from '../vectors/config.js';
import type { Embedder } from '../vectors/embedder.js';
import type { VectorTarget } from '../vectors/targets.js';
import type { Collected, CollectedDocument, CollectedExtension } from '../plan/collected.js';
import { resolveBuilderOptions, resolveExportOptions, type ExportOptions, type PackageBuilderOptions, type ResolvedBuilderOptions } from './options.js';
import { createSpillDir, removeSpillDir } from '../package/spill-dir.js';
import { deriveBuilder, type DeriveOptions, type DerivationSummary } from './derive.js';
import { keepOverwrittenPrevious, previousAtStart, refuseUnreadablePrevious, withChanges, type KeptPrevious, type PreviousAtStart } from './previous-changes.js';
import { stateReleaseKeeper } from './release-keeper.js';
import { VectorCollector, type AddVectorOptions, type EmbedOptions } from './vector-collector.js';

/**
 * Collects documents, structure records and vectors, then exports one `.octx` package.
 *
 * The builder only collects and fails fast on bad input; at `export()` a planner decides what goes
 * in (the coverage gate, vector completeness) and a writer writes, verifies and publishes the
 * bytes. Record payloads are spilled to a private temporary folder as they arrive, so memory holds
 * only ids and the reference graph. A builder exports once: the spill folder is removed when the
 * export ends, successfully or not (call {@link PackageBuilder.dispose} to abandon one).
 *
 * @example
 * const result = await new PackageBuilder({ asset: { name: 'Product Guide' }, release: { version: '1.0.0' } })
 *   .addDocument({ path: 'guide.md', markdown: '# Guide\n\nBody.' })
 *   .export({ output: 'out/guide.octx' });
 */
export class PackageBuilder {
  readonly #options: ResolvedBuilderOptions;
  readonly #assetId: string;
  readonly #ids = new IdRegistry();
  readonly #dir: string;
  readonly #documents: CollectedDocument[] = [];
  readonly #documentIds = new Map<string, string>();
  readonly #paths = new Set<string>();
  readonly #extensions: CollectedExtension[] = [];
  readonly #structure: StructureStore;
  /** Compresses text payloads on the thread pool while they are collected (absent at level 0). */
  readonly #background: BackgroundDeflate | undefined;
  /** Documents and extension files, back to back, each one an entry. */
  readonly #payloads: PayloadSpill;
  /** The vector config, the vectors and which targets got caller digests. */
  readonly #vectors: VectorCollector;
  #consumed = false;
  #cleaned = false;
  /** The I/O error that made the collected input unreliable (see `#collect`). */
  #poisoned: OctxError | undefined;
  /** The export in progress: `dispose()` waits for it instead of pulling files from under it. */
  #running: Promise<ExportResult> | undefined;
  /** Records being read by addRecord (a getter of one may call export(), which is refused then). */
  #readingRecord = 0;
  readonly #state: ProducerState | undefined;
  readonly #ledger: IdLedger;
  #derivation: DerivationSummary | undefined;
  readonly #reported: OctxIssue[] = [];

  /**
   * Starts a Derived Asset from an existing package (OCTX-REFERENCE §5.4, §12.5): the source is
   * opened and fully validated; the builder is pre-filled with its documents, extension files and
   * every valid layer (ids kept), gets a new asset id, and `asset.derived_from` names the source
   * release. An invalid source is refused (`OCTX_DERIVATION_REQUIRED`) unless `documentsOnly:
   * true`, which recovers its readable Markdown with new document ids. Unknown manifest fields of
   * the source are not carried.
   * @throws OctxError `OCTX_DERIVATION_REQUIRED`, open errors of the source, builder option errors
   */
  static async derive(source: string, options: DeriveOptions): Promise<PackageBuilder> {
    const { builder, summary } = await deriveBuilder((o) => new PackageBuilder(o), source, options);
    builder.#derivation = summary;
    // Everything in the builder so far came from the validated source, digests included.
    builder.#vectors.forgetCallerDigests();
    return builder;
  }

  /** For a builder made by {@link PackageBuilder.derive}: what was carried over and what was not. */
  get derivation(): DerivationSummary | undefined {
    return this.#derivation;
  }

  /**
   * @throws OctxError `OCTX_OPTIONS_INVALID`, `OCTX_ID_INVALID`, `OCTX_VERSION_INVALID`,
   *   `OCTX_RELEASE_CREATED_AT_INVALID`, `OCTX_ASSET_INVALID`
   */
  constructor(options: PackageBuilderOptions) {
    this.#options = resolveBuilderOptions(options);
    this.#state = this.#options.state !== undefined ? ProducerState.load(this.#options.state) : undefined;
    const remembered = this.#state?.asset?.id;
    if (remembered !== undefined && this.#options.assetId !== undefined && remembered !== this.#options.assetId) {
      throw OctxError.of({
        code: 'OCTX_STATE_INVALID',
        path: this.#state!.path,
        field: 'asset.id',
        message: `the producer state belongs to asset ${remembered}, not ${this.#options.assetId}; use another state file for another asset`,
      });
    }
    // With a shared store the store is the ledger; the state's ids are only proposals to it.
    const store = this.#options.ledger;
    this.#ledger = store === undefined ? (this.#state?.ids ?? new IdLedger()) : new IdLedger(this.#state?.ids.toJSON(), { store });
    this.#assetId = this.#options.assetId ?? remembered ?? newId();
    if (this.#options.derivedFrom?.asset_id === this.#assetId) {
      throw OctxError.of({ code: 'OCTX_ASSET_INVALID', field: 'asset.id', message: 'a Derived Asset needs a new asset id, different from its source' });
    }
    this.#ids.define(this.#assetId, IdKind.asset, 0);
    this.#dir = createSpillDir(this.#options.tempDir);
    this.#background = this.#options.compressionLevel > 0 ? new BackgroundDeflate({ level: this.#options.compressionLevel }) : undefined;
    const background = this.#background ? { background: this.#background } : {};
    this.#payloads = new PayloadSpill({ rawFile: join(this.#dir, 'payloads'), deflatedFile: join(this.#dir, 'payloads.deflate'), ...background });
    const consumer = this.#options.consumer;
    const whiteSpace = consumer !== undefined && consumerProfile(consumer).acceptsWhiteSpaceText === true ? { whiteSpaceTextFor: consumer } : {};
    this.#structure = new StructureStore(this.#ids, this.#dir, { ...background, strictFields: this.#options.strict, ...whiteSpace });
    this.#vectors = new VectorCollector(this.#ids, this.#dir, this.#background, {
      assertOpen: () => this.#assertOpen(),
      poison: (e) => {
        this.#poisoned = e;
      },
    });
  }

  /** The asset id (given, remembered by the producer state, or minted). */
  get assetId(): string {
    return this.#assetId;
  }

  /**
   * The id ledger: `ids.chunk(key)` returns the same UUIDv7 for the same producer key on every
   * run once it is persisted in the producer `state` file (without a state file, ids live only
   * as long as this builder).
   */
  get ids(): IdLedger {
    return this.#ledger;
  }

  /** The producer state, when the builder was given a `state` file. */
  get state(): ProducerState | undefined {
    return this.#state;
  }

  /**
   * The release version requested, or the one the export will choose: `1.0.0` without state;
   * with a producer state, the next patch version (an export whose content equals the latest
   * release rebuilds that release instead — see `ProducerState.resolveRelease`).
   */
  get version(): string {
    return this.#options.version ?? (this.#state ? nextVersion(this.#state) : '1.0.0');
  }

  #assertOpen(): void {
    if (this.#poisoned) throw this.#poisoned;
    // The export in progress reads a snapshot taken when it started; a record accepted now could
    // reach no package (a successful export consumes the builder), so it is refused, loudly.
    if (this.#running) {
      throw new OctxError(
        'OCTX_BUILDER_BUSY',
        'an export of this PackageBuilder is running and exports what was added before export() was called; add records before export(), or after a refused export (await it first)',
      );
    }
    if (this.#consumed) throw new OctxError('OCTX_BUILDER_CONSUMED', 'this PackageBuilder was already exported or disposed; create a new one');
  }

  /**
   * Runs a collecting step. A failed spill write (`OCTX_IO_ERROR`, e.g. a full disk) may have
   * lost buffered records whose ids stay registered: from then on the builder refuses every
   * call and `export()` with that error, so nothing incomplete can be published.
   */
  #collect<T>(step: () => T): T {
    try {
      return step();
    } catch (e) {
      if (e instanceof OctxError && e.code === 'OCTX_IO_ERROR') this.#poisoned = e;
      throw e;
    }
  }

  /**
   * Adds a knowledge document. Missing frontmatter keys are filled (`type`, `title`,
   * `octx.document_id`); existing keys are never overwritten. `index.md`/`log.md` must follow the
   * OKF reserved-file structure and get no id.
   * @throws OctxError `OCTX_PATH_INVALID`, `OCTX_FILE_PATH_DUPLICATE`, `OCTX_DOCUMENT_FRONTMATTER`,
   *   `OCTX_FRONTMATTER_TOO_LARGE` (a block above the `maxFrontmatterBytes` option), `OCTX_FRONTMATTER_TOO_COMPLEX` (above `maxFrontmatterNodes`), `OCTX_DOCUMENT_TYPE_MISSING`, `OCTX_ID_INVALID`, `OCTX_ID_DUPLICATE`, `OCTX_OKF_RESERVED_INVALID`
   */
  addDocument(input: DocumentInput): this {
    return this.#addDocument(input, undefined);
  }

  /**
   * Adds a document (`knowledge/…`) or extension file (`extensions/…`) that is an entry of another
   * archive (a shard, at a merge): `bytes` are the entry inflated, `copy` where its DEFLATE stream
   * lies and its SHA-256, all checked by the caller (CRC-32, manifest digest). The package gets
   * that stream as it is, not compressed again. A document that `addDocument` would change (a
   * frontmatter key filled) is added as `addDocument` adds it.
   * @throws OctxError as `addDocument` and `addExtensionFile`
   * @internal
   */
  addCopiedFile(path: string, bytes: Buffer, copy: CopiedFile): this {
    if (path.startsWith('knowledge/')) return this.#addDocument({ path: path.slice('knowledge/'.length), markdown: bytes }, copy);
    return this.#addExtensionFile(path, bytes, copy);
  }

  #addDocument(input: DocumentInput, copy: CopiedFile | undefined): this {
    this.#assertOpen();
    const path = knowledgePath(input?.path);
    if (this.#paths.has(path)) {
      throw OctxError.of({
        code: 'OCTX_FILE_PATH_DUPLICATE',
        path,
        field: 'path',
        message: `a document with path ${path} was already added (paths are compared after NFC normalisation)`,
      });
    }
    const doc = prepareDocument(input, {
      // With a shared store its id wins, as for every kind (the state's is only its proposal).
      mintId: (p) => (this.#ledger.store !== undefined ? this.#ledger.document(p) : (this.#state?.documentIdFor(p) ?? newId())),
      ...(this.#options.defaultDocumentType ? { defaultType: this.#options.defaultDocumentType } : {}),
      maxFrontmatterBytes: this.#options.maxFrontmatterBytes,
      maxFrontmatterNodes: this.#options.maxFrontmatterNodes,
    });
    let dense: number | undefined;
    if (doc.documentId !== undefined) {
      this.#ids.assertFree(doc.documentId, IdKind.document, 'octx.document_id');
      dense = this.#ids.define(doc.documentId, IdKind.document, this.#documents.length);
      this.#documentIds.set(path, doc.documentId);
    }
    const copied = copy !== undefined && doc.bytes.equals(input.markdown as Buffer);
    const entry = copied
      ? copy.stream
      : this.#collect(() => {
          this.#payloads.write(doc.bytes);
          return this.#payloads.endEntry();
        });
    this.#paths.add(path);
    this.#documents.push({
      path,
      kind: doc.kind,
      entry,
      size: entry.size,
      sha256: copied ? copy.sha256 : (entry as SpilledEntry).sha256,
      ...(doc.documentId !== undefined ? { documentId: doc.documentId, dense: dense! } : {}),
      ...(doc.title !== undefined ? { title: doc.title } : {}),
      ...(doc.titleValue !== undefined ? { titleValue: doc.titleValue } : {}),
      ...(doc.titleFallback !== undefined ? { titleFallback: doc.titleFallback } : {}),
      ...(doc.frontmatterBytes !== undefined ? { frontmatterBytes: doc.frontmatterBytes } : {}),
      ...(doc.frontmatterNodes !== undefined ? { frontmatterNodes: doc.frontmatterNodes } : {}),
    });
    return this;
  }

  /**
   * The `octx.document_id` of an added Concept Document, by its path (relative to `knowledge/`,
   * or with the `knowledge/` prefix).
   * @throws OctxError `OCTX_PATH_INVALID` when no Concept Document has that path
   */
  documentId(path: string): string {
    // The path as given to addDocument (relative to knowledge/) first, then as a package path.
    const key = knowledgePath(path);
    const nfc = path.normalize('NFC');
    const id = this.#documentIds.get(key) ?? (nfc.startsWith('knowledge/') ? this.#documentIds.get(nfc) : undefined);
    if (id === undefined) throw OctxError.of({ code: 'OCTX_PATH_INVALID', path: key, message: `no Concept Document was added at ${key}` });
    return id;
  }

  /**
   * Adds a chunk (`{ id, document_id, ordinal, text }`).
   *
   * An object literal is checked by TypeScript against {@link ChunkRecord}, so a misspelt field
   * (`documentId`) is a compile error. Extra fields are kept verbatim; name their type to pass
   * them: `addChunk<MyChunk>({ …, x_source: 'wiki' })` with `interface MyChunk extends ChunkRecord`
   * (a variable of such a type needs no type argument). At run time, an unknown field that looks
   * like a misspelt known one is an `OCTX_RECORD_FIELD_SUSPECT` warning (an error under `strict`).
   * The same holds for every `add*`/`link*` method.
   * @throws OctxError
   */
  addChunk<R extends ChunkRecord = ChunkRecord>(record: NoInfer<R>): this {
    return this.addRecord('chunk', record);
  }

  /**
   * Adds an event (`{ id, title, content, summary?, category?, parent_id?, level? }`); extra
   * fields through a named type, `addEvent<MyEvent>(…)` (see {@link PackageBuilder.addChunk}).
   * @throws OctxError
   */
  addEvent<R extends EventRecord = EventRecord>(record: NoInfer<R>): this {
    return this.addRecord('event', record);
  }

  /**
   * Adds an entity (`{ id, name, type, description? }`); extra fields through a named type,
   * `addEntity<MyEntity>(…)` (see {@link PackageBuilder.addChunk}).
   * @throws OctxError
   */
  addEntity<R extends EntityRecord = EntityRecord>(record: NoInfer<R>): this {
    return this.addRecord('entity', record);
  }

  /** Links a chunk to an event it supports (`{ chunk_id, event_id }`; see {@link PackageBuilder.addChunk} for extra fields). @throws OctxError */
  linkChunkEvent<R extends ChunkEventLink = ChunkEventLink>(link: NoInfer<R>): this {
    return this.addRecord('chunk-event', link);
  }

  /** Links an event to an entity taking part in it (`{ event_id, entity_id, weight?, description? }`; see {@link PackageBuilder.addChunk} for extra fields). @throws OctxError */
  linkEventEntity<R extends EventEntityLink = EventEntityLink>(link: NoInfer<R>): this {
    return this.addRecord('event-entity', link);
  }

  /**
   * Adds one record of `kind` (the call the typed `addChunk`/`addEvent`/`addEntity`/
   * `linkChunkEvent`/`linkEventEntity` make): for callers that hold records by kind, such as a
   * working-folder loader. The record is read once, checked against its `RECORD_KINDS` row and
   * written; the caller may change the object afterwards.
   * @throws OctxError
   */
  addRecord(kind: RecordKind, record: object): this {
    this.#assertOpen();
    // A getter of the record may call export(): refused while the record is read, since the
    // snapshot export() takes would miss the record this call then stores.
    this.#readingRecord++;
    try {
      this.#collect(() => this.#structure.add(kind, record));
    } finally {
      this.#readingRecord--;
    }
    return this;
  }

  /**
   * Where the records added next come from (file and line of a working folder), so their
   * warnings carry it; `undefined` to clear. Used by `loadWorkdir`.
   * @internal
   */
  recordSource(source: { readonly path: string; readonly line: number } | undefined): void {
    this.#structure.setRecordSource(source);
  }

  /**
   * Reports a warning of whoever fills this builder (the adapters), so that the export's
   * `report.warnings` lists it and `strict` refuses it like any other warning. Severity is
   * always `warning`.
   * @internal
   */
  reportWarning(warning: OctxIssue): this {
    this.#assertOpen();
    this.#reported.push({ ...warning, severity: 'warning' });
    return this;
  }

  /**
   * Adds a private extension file at `extensions/<reverse-dns>/<major.minor>/…` (listed and
   * hashed like every payload).
   * @throws OctxError `OCTX_PATH_INVALID`, `OCTX_FILE_PATH_DUPLICATE`, `OCTX_DOCUMENT_INVALID`
   *   (content that is neither a string nor a Uint8Array)
   */
  addExtensionFile(path: string, content: string | Uint8Array): this {
    return this.#addExtensionFile(path, content, undefined);
  }

  #addExtensionFile(path: string, content: string | Uint8Array, copy: CopiedFile | undefined): this {
    this.#assertOpen();
    const problem = typeof path === 'string' ? (logicalPathProblem(path) ?? entryNameProblem(path)) : 'path must be a string';
    if (problem || !EXTENSION_PATH_PATTERN.test(path)) {
      throw OctxError.of({
        code: 'OCTX_PATH_INVALID',
        path: String(path),
        field: 'path',
        message: `${problem ?? 'not an extension path'}; extension files live at extensions/<lower-case reverse-DNS namespace>/<major.minor>/<file>, e.g. extensions/com.example.pipeline/0.1/data.jsonl`,
      });
    }
    if (this.#paths.has(path)) throw OctxError.of({ code: 'OCTX_FILE_PATH_DUPLICATE', path, message: `extension file ${path} was already added` });
    // Bytes or text only: Buffer.from() would turn an array-like object ({ length: 3 }) into NUL
    // bytes and throw a raw TypeError for a number or null.
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      throw OctxError.of({
        code: 'OCTX_DOCUMENT_INVALID',
        path,
        field: 'content',
        message: `extension file content must be a string or a Uint8Array (got ${content === null ? 'null' : Array.isArray(content) ? 'an array' : typeof content})`,
      });
    }
    const entry =
      copy?.stream ??
      this.#collect(() => {
        // A copy: the caller may reuse its array, and the spill keeps the bytes until compressed.
        this.#payloads.write(typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content));
        return this.#payloads.endEntry();
      });
    this.#extensions.push({ path, entry, size: entry.size, sha256: copy?.sha256 ?? (entry as SpilledEntry).sha256 });
    this.#paths.add(path);
    return this;
  }

  /**
   * Sets the one vector config of the package (`vectors/config.json`); its fingerprint is
   * computed. Setting an identical config again is a no-op; a different one is refused.
   * @throws OctxError `OCTX_VECTOR_CONFIG_INVALID`, `OCTX_VECTOR_CONFIG_FORBIDDEN`,
   *   `OCTX_VECTOR_FINGERPRINT_MISMATCH`
   */
  setVectorConfig(config: VectorConfigInput): this {
    this.#vectors.setConfig(config);
    return this;
  }

  /** The prepared vector config, when one is set. */
  get vectorConfig(): PreparedVectorConfig | undefined {
    return this.#vectors.config;
  }

  /**
   * Adds the vector of one record of a target. The record may be added before or after; at
   * export, a target whose vectors do not cover every record is omitted (never padded).
   *
   * With `{ input }` (the text embedded) or `{ inputSha256 }` the row gets an `input_sha256`
   * (see `vectors/input-digest.ts` for the recipe); the config must then declare it
   * (`input_hash`, see `INPUT_HASH_DECLARATION`). All or none: within one target every vector
   * has a digest or none has. Such a digest is a claim the validator checks: when the config
   * also has an `input_template`, `export()` renders each record of the target, hashes it and
   * refuses the export (`OCTX_VECTOR_INPUT_MISMATCH`, one issue per record, nothing written, the
   * builder still usable) when a given digest differs. So `{ input }` must be the template
   * rendered for the record (CRLF/CR and Unicode form may differ: both sides are normalised);
   * `embed({ only: 'stale' })` replaces such vectors.
   * @throws OctxError `OCTX_VECTOR_CONFIG_REQUIRED`, `OCTX_ID_INVALID`, `OCTX_REFERENCE_UNKNOWN`,
   *   `OCTX_VECTOR_VALUE_INVALID`, `OCTX_VECTOR_RECORD_ID_DUPLICATE`,
   *   `OCTX_VECTOR_INPUT_SHA256_INVALID` (malformed digest, or digests on only some rows),
   *   `OCTX_VECTOR_CONFIG_INVALID` (a digest without `input_hash` in the config), `OCTX_OPTIONS_INVALID`
   */
  addVector(target: VectorTarget, recordId: string, vector: Float32Array | Float64Array | readonly number[], options?: AddVectorOptions): this {
    this.#vectors.addFromCaller(target, recordId, vector, options);
    return this;
  }

  /**
   * Embeds the records of a target with `embedder` and adds the vectors. The embedder's
   * `config`, with `input_hash` (see `INPUT_HASH_DECLARATION`) added, becomes the package's
   * vector config (or must equal the one already set); each record's input is rendered from its
   * `input_template`, normalised (CRLF/CR → LF, NFC), embedded, and its SHA-256 is stored as
   * the row's `input_sha256`. Add the target's records first.
   *
   * `options.only` picks the records (see {@link EmbedOptions.only}). When the config already
   * set is the embedder's config *without* `input_hash` (set by the caller, or carried over by
   * `derive` from a package made before input digests), the vectors are added without digests,
   * and `only: 'stale'` is refused; likewise `only: 'missing'` on a target whose vectors carry no
   * digest adds the new ones without one (all or none per target).
   * @throws OctxError `OCTX_TEMPLATE_FIELD_MISSING`, `OCTX_EMBEDDER_FAILED`, `OCTX_ABORTED`,
   *   `OCTX_OPTIONS_INVALID`, and the errors of {@link PackageBuilder.addVector}
   */
  async embed(target: VectorTarget, embedder: Embedder, options: EmbedOptions = {}): Promise<this> {
    await this.#vectors.embed(target, embedder, options, (kind) => this.#collect(() => this.#structure.spillFile(kind)));
    return this;
  }

  /**
   * Plans, writes, verifies and atomically publishes the package.
   *
   * **One snapshot.** The package holds exactly what was added before `export()` was called: the
   * builder's records, links, documents, extension files and vectors are frozen synchronously,
   * before the first await or `onProgress` call, and the coverage gate, vector completeness, the
   * consumer profile's checks, the report's counts, the degradations and the written bytes are all
   * taken from that one snapshot. While the export runs, every collecting call (`add*`, `link*`,
   * `addVector`, `setVectorConfig`, `embed`, `addExtensionFile`, `reportWarning`) — from an
   * `onProgress` callback or a concurrent task — throws `OCTX_BUILDER_BUSY` and changes nothing;
   * a second `export()` throws `OCTX_BUILDER_CONSUMED`. After a refused export the builder takes
   * records again; a successful one consumes it.
   * @throws OctxError — `OCTX_OPTIONS_INVALID`, `OCTX_OUTPUT_EXISTS`, `OCTX_CONCEPT_REQUIRED`,
   *   `OCTX_STRUCTURE_INVALID` (aggregated), `OCTX_STRUCTURE_INCOMPLETE` (with the report),
   *   `OCTX_VECTOR_INPUT_MISMATCH` (aggregated: input digests given to `addVector` that differ
   *   from the records' rendered text), `OCTX_VALIDATION_ERROR`, `OCTX_ABORTED`, `OCTX_IO_ERROR`,
   *   `OCTX_BUILDER_CONSUMED` (exported or disposed, or an export is running)
   */
  async export(options: ExportOptions): Promise<ExportResult> {
    if (this.#running) throw new OctxError('OCTX_BUILDER_CONSUMED', 'an export of this PackageBuilder is already running; await it');
    if (this.#readingRecord > 0) {
      throw new OctxError(
        'OCTX_BUILDER_BUSY',
        'export() was called while a record was being read (from a getter of the record being added); call export() after addRecord returns',
      );
    }
    this.#assertOpen();
    // Synchronously, before anything can run in between: from here on the export sees only this.
    const snapshot = this.#snapshot();
    let kept: KeptPrevious | undefined;
    let before: PreviousAtStart = { exists: true };
    const run = (async () => {
      const resolved = resolveExportOptions(options);
      before = await previousAtStart(options?.previous);
      if ((resolved.strict ?? this.#options.strict) && options.previous !== undefined) refuseUnreadablePrevious(options.previous, before);
      // A previous package this export overwrites is kept aside first: compared after publishing, it would be gone.
      kept = await keepOverwrittenPrevious(options?.previous, options?.output, this.#options.tempDir);
      try {
        return await exportCollected(snapshot.collected, resolved, this.#producer());
      } finally {
        if (this.#consumed) await this.#cleanup();
      }
    })();
    this.#running = run;
    try {
      const result = await run;
      // After publishing, so a failing comparison never costs the package (it becomes a warning).
      return options.previous === undefined ? result : await withChanges(result, options.previous, options.limits, kept?.path, before);
    } finally {
      this.#running = undefined;
      snapshot.release();
      await kept?.remove();
    }
  }

  /** The builder's side of an export: its identity, defaults and producer state (see `exportCollected`). */
  #producer(): ExportProducer {
    const o = this.#options;
    return {
      assetId: this.#assetId,
      assetName: o.assetName,
      ...(o.derivedFrom ? { derivedFrom: o.derivedFrom } : {}),
      ...(o.version ? { version: o.version } : {}),
      ...(o.createdAt ? { createdAt: o.createdAt } : {}),
      ...(o.consumer !== undefined ? { consumer: o.consumer } : {}),
      strict: o.strict,
      compressionLevel: o.compressionLevel,
      ...(this.#state ? { releases: stateReleaseKeeper(this.#state, { id: this.#assetId, name: o.assetName }) } : {}),
      onCommit: () => {
        this.#consumed = true;
      },
    };
  }

  /**
   * Freezes what was collected (see {@link Collected}): the one view the export plans and writes
   * from. Cheap and copy-free but for the document list: spills only grow, so their lengths,
   * sizes and digests now are the snapshot. `release()` ends the vector views.
   */
  #snapshot(): { readonly collected: Collected; release(): void } {
    const structure = this.#collect(() => this.#structure.freeze());
    const vectors = this.#collect(() => this.#vectors.freeze());
    const ids = new FrozenIds(this.#ids, definedCounts(this.#documents.length, structure));
    const collected: Collected = {
      ids,
      documents: this.#documents.slice(),
      extensions: this.#extensions.slice(),
      structure,
      ...(this.#vectors.config ? { vectorConfig: this.#vectors.config } : {}),
      vectorSpills: vectors,
      callerDigests: this.#vectors.callerDigestTargets(),
      workDir: this.#dir,
      ...(this.#reported.length > 0 ? { warnings: this.#reported.slice() } : {}),
    };
    return {
      collected,
      release: () => {
        for (const v of vectors.values()) v.release();
      },
    };
  }

  /**
   * Resolves once background compression has caught up (at most three quarters of its memory
   * bound in flight). Text is compressed on the thread pool while records are added, but a loop that
   * never yields to the event loop only gets as far as that bound; the rest is compressed at
   * export. A CPU-bound producer can `await builder.drain()` every few thousand records (or per
   * document) so compression keeps pace on the other cores. While less than half the bound is in
   * flight it resolves at once, without an event-loop turn (finished work is then delivered by a
   * later call). Optional: awaiting anything that does I/O has the same effect.
   */
  async drain(): Promise<void> {
    await this.#background?.drain();
  }

  /**
   * Abandons the builder and removes its temporary files. During an export it waits for that
   * export to end (which removes them itself).
   */
  async dispose(): Promise<void> {
    await this.#running?.catch(() => undefined);
    this.#consumed = true;
    await this.#cleanup();
  }

  async #cleanup(): Promise<void> {
    if (this.#cleaned) return;
    this.#cleaned = true;
    // Jobs still running would write into files about to be removed.
    await this.#background?.settle().catch(() => undefined);
    this.#payloads.close();
    this.#structure.close();
    this.#vectors.close();
    await removeSpillDir(this.#dir);
  }
}

export type { DerivedFrom, ExportResult, EmbedOptions, AddVectorOptions };
