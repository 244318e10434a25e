import { join } from 'node:path';
import { OctxError, type OctxIssue } from '../model/errors.js';
import { isUuidV7, newId } from '../model/ids.js';
import type { ChunkEventLink, ChunkRecord, EntityRecord, EventEntityLink, EventRecord } from '../model/records.js';
import { prepareDocument, knowledgePath, type DocumentInput } from '../knowledge/document.js';
import { AtomicOutput } from '../package/atomic-output.js';
import { BackgroundDeflate } from '../package/background-deflate.js';
import { PayloadSpill } from '../package/payload-spill.js';
import { computeContentDigest, type DerivedFrom, type Manifest } from '../package/manifest.js';
import { IdLedger, nextVersion, ProducerState } from '../release/producer-state.js';
import { EXTENSION_PATH_PATTERN, entryNameProblem, logicalPathProblem } from '../model/paths.js';
import { writePackage } from '../export/package-writer.js';
import { planExport } from '../plan/planner.js';
import { scanForConsumer } from '../plan/consumer-scan.js';
import { consumerProfile } from '../consumers/index.js';
import type { ExportReport } from '../plan/report.js';
import { IdKind, idKindName } from '../model/id-kind.js';
import { IdRegistry, REFERENCED } from '../structure/id-registry.js';
import { StructureStore } from '../structure/structure-store.js';
import { readSpilledRecords } from '../structure/record-spill.js';
import { prepareVectorConfig, type PreparedVectorConfig, type VectorConfigInput } from '../vectors/config.js';
import { embedAll, type Embedder } from '../vectors/embedder.js';
import { TARGET_ID_KIND, isVectorTarget, type VectorTarget } from '../vectors/targets.js';
import { compileInputTemplate, templateForTarget } from '../vectors/template.js';
import { VectorSpill } from '../vectors/vector-spill.js';
import type { Collected, CollectedDocument, CollectedExtension } from '../plan/collected.js';
import { resolveBuilderOptions, resolveExportOptions, type ExportOptions, type PackageBuilderOptions, type ResolvedBuilderOptions } from './options.js';
import { createSpillDir, removeSpillDir } from '../package/spill-dir.js';
import { assertKnownKeys } from '../model/option-keys.js';
import { deriveBuilder, type DeriveOptions, type DerivationSummary } from './derive.js';

/** What `export()` returns. */
export interface ExportResult {
  /** Absolute path of the written `.octx`. */
  readonly output: string;
  readonly assetId: string;
  readonly version: string;
  /** `sha256:<hex>` package digest. */
  readonly packageDigest: string;
  /** The manifest as written. */
  readonly manifest: Manifest;
  /** What went in, what was left out and why. */
  readonly report: ExportReport;
}

/** Options of {@link PackageBuilder.embed}. */
export interface EmbedOptions {
  /** Texts per `embedder.embed()` call (default 64). */
  readonly batchSize?: number;
  /** Calls in flight at once (default 2). */
  readonly concurrency?: number;
  /** Retries of a failed call, with exponential backoff (default 3). */
  readonly retries?: number;
  readonly signal?: AbortSignal;
  /** Called with the number of records embedded so far. */
  readonly onProgress?: (embedded: number) => void;
}

/**
 * Every key of {@link EmbedOptions}; another one is a misspelling, refused. `only` (embed a
 * subset of the records) is handled by the embed step itself.
 */
const EMBED_OPTION_KEYS = ['batchSize', 'concurrency', 'retries', 'signal', 'onProgress', 'only'];

const TARGET_RECORD = { chunks: 'chunk', events: 'event', entities: 'entity' } as const;

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
  readonly #vectorSpills = new Map<VectorTarget, VectorSpill>();
  #vectorConfig: PreparedVectorConfig | undefined;
  #consumed = false;
  #cleaned = false;
  /** The I/O error that made the collected input unreliable (see `#collect`). */
  #poisoned: OctxError | undefined;
  /** The export in progress: `dispose()` waits for it instead of pulling files from under it. */
  #running: Promise<ExportResult> | undefined;
  readonly #state: ProducerState | undefined;
  readonly #ledger: IdLedger;
  #derivation: DerivationSummary | undefined;

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
    this.#ledger = this.#state?.ids ?? new IdLedger({ document: {}, chunk: {}, event: {}, entity: {} });
    this.#assetId = this.#options.assetId ?? remembered ?? newId();
    if (this.#options.derivedFrom?.asset_id === this.#assetId) {
      throw OctxError.of({ code: 'OCTX_ASSET_INVALID', field: 'asset.id', message: 'a Derived Asset needs a new asset id, different from its source' });
    }
    this.#ids.define(this.#assetId, IdKind.asset, 0);
    this.#dir = createSpillDir(this.#options.tempDir);
    this.#background = this.#options.compressionLevel > 0 ? new BackgroundDeflate({ level: this.#options.compressionLevel }) : undefined;
    const background = this.#background ? { background: this.#background } : {};
    this.#payloads = new PayloadSpill({ rawFile: join(this.#dir, 'payloads'), deflatedFile: join(this.#dir, 'payloads.deflate'), ...background });
    this.#structure = new StructureStore(this.#ids, this.#dir, this.#background);
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
   *   `OCTX_DOCUMENT_TYPE_MISSING`, `OCTX_ID_INVALID`, `OCTX_ID_DUPLICATE`, `OCTX_OKF_RESERVED_INVALID`
   */
  addDocument(input: DocumentInput): this {
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
      mintId: (p) => this.#state?.documentIdFor(p) ?? newId(),
      ...(this.#options.defaultDocumentType ? { defaultType: this.#options.defaultDocumentType } : {}),
    });
    let dense: number | undefined;
    if (doc.documentId !== undefined) {
      this.#ids.assertFree(doc.documentId, IdKind.document, 'octx.document_id');
      dense = this.#ids.define(doc.documentId, IdKind.document, this.#documents.length);
      this.#documentIds.set(path, doc.documentId);
    }
    const entry = this.#collect(() => {
      this.#payloads.write(doc.bytes);
      return this.#payloads.endEntry();
    });
    this.#paths.add(path);
    this.#documents.push({
      path,
      kind: doc.kind,
      entry,
      size: entry.size,
      sha256: entry.sha256,
      ...(doc.documentId !== undefined ? { documentId: doc.documentId, dense: dense! } : {}),
      ...(doc.title !== undefined ? { title: doc.title } : {}),
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

  /** Adds a chunk (`{ id, document_id, ordinal, text, ...extra }`). @throws OctxError */
  addChunk<R extends ChunkRecord>(record: R): this {
    this.#assertOpen();
    this.#collect(() => this.#structure.addChunk(record));
    return this;
  }

  /** Adds an event (`{ id, title, content, summary?, category?, parent_id?, level?, ...extra }`). @throws OctxError */
  addEvent<R extends EventRecord>(record: R): this {
    this.#assertOpen();
    this.#collect(() => this.#structure.addEvent(record));
    return this;
  }

  /** Adds an entity (`{ id, name, type, description?, ...extra }`). @throws OctxError */
  addEntity<R extends EntityRecord>(record: R): this {
    this.#assertOpen();
    this.#collect(() => this.#structure.addEntity(record));
    return this;
  }

  /** Links a chunk to an event it supports. @throws OctxError */
  linkChunkEvent<R extends ChunkEventLink>(link: R): this {
    this.#assertOpen();
    this.#collect(() => this.#structure.linkChunkEvent(link));
    return this;
  }

  /** Links an event to an entity taking part in it. @throws OctxError */
  linkEventEntity<R extends EventEntityLink>(link: R): this {
    this.#assertOpen();
    this.#collect(() => this.#structure.linkEventEntity(link));
    return this;
  }

  /**
   * Adds a private extension file at `extensions/<reverse-dns>/<major.minor>/…` (listed and
   * hashed like every payload).
   * @throws OctxError `OCTX_PATH_INVALID`, `OCTX_FILE_PATH_DUPLICATE`, `OCTX_DOCUMENT_INVALID`
   *   (content that is neither a string nor a Uint8Array)
   */
  addExtensionFile(path: string, content: string | Uint8Array): this {
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
    // A copy: the caller may reuse its array, and the spill keeps the bytes until compressed.
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    const entry = this.#collect(() => {
      this.#payloads.write(bytes);
      return this.#payloads.endEntry();
    });
    this.#extensions.push({ path, entry, size: entry.size, sha256: entry.sha256 });
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
    this.#assertOpen();
    const prepared = prepareVectorConfig(config);
    if (this.#vectorConfig) {
      if (this.#vectorConfig.fingerprint === prepared.fingerprint) return this;
      throw OctxError.of({
        code: 'OCTX_VECTOR_CONFIG_INVALID',
        field: 'vectorConfig',
        message: `a package has one vector config shared by all targets; one with fingerprint ${this.#vectorConfig.fingerprint} is already set`,
      });
    }
    this.#vectorConfig = prepared;
    return this;
  }

  /** The prepared vector config, when one is set. */
  get vectorConfig(): PreparedVectorConfig | undefined {
    return this.#vectorConfig;
  }

  /**
   * Adds the vector of one record of a target. The record may be added before or after; at
   * export, a target whose vectors do not cover every record is omitted (never padded).
   * @throws OctxError `OCTX_VECTOR_CONFIG_REQUIRED`, `OCTX_ID_INVALID`, `OCTX_REFERENCE_UNKNOWN`,
   *   `OCTX_VECTOR_VALUE_INVALID`, `OCTX_VECTOR_RECORD_ID_DUPLICATE`
   */
  addVector(target: VectorTarget, recordId: string, vector: Float32Array | readonly number[]): this {
    this.#assertOpen();
    if (!isVectorTarget(target))
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'target', message: `vector target must be chunks, events or entities (got ${JSON.stringify(target)})` });
    const config = this.#vectorConfig;
    if (!config)
      throw OctxError.of({ code: 'OCTX_VECTOR_CONFIG_REQUIRED', recordId, message: 'call setVectorConfig() (or embed()) before addVector(): the config fixes the dimensions' });
    if (!isUuidV7(recordId))
      throw OctxError.of({ code: 'OCTX_ID_INVALID', recordId: String(recordId), field: 'record_id', message: 'vector record ids must be canonical lowercase UUIDv7 record ids' });
    const dense = this.#ids.ref(recordId);
    const kind = this.#ids.kindOf(dense);
    if (kind !== REFERENCED && kind !== TARGET_ID_KIND[target]) {
      throw OctxError.of({ code: 'OCTX_REFERENCE_UNKNOWN', recordId, field: 'record_id', message: `${recordId} is a ${idKindName(kind)}, not one of the ${target}` });
    }
    let spill = this.#vectorSpills.get(target);
    if (!spill) {
      spill = new VectorSpill({ file: join(this.#dir, `${target}.f32`), target, dimensions: config.dimensions, normalized: config.normalized });
      this.#vectorSpills.set(target, spill);
    }
    const vectors = spill;
    this.#collect(() => vectors.add(dense, recordId, vector));
    return this;
  }

  /**
   * Embeds every record of a target with `embedder` and adds the vectors. The embedder's
   * `config` becomes the package's vector config (or must equal the one already set); each
   * record's input is rendered from its `input_template`. Add the target's records first.
   * @throws OctxError `OCTX_TEMPLATE_FIELD_MISSING`, `OCTX_EMBEDDER_FAILED`, `OCTX_ABORTED`, and
   *   the errors of {@link PackageBuilder.addVector}
   */
  async embed(target: VectorTarget, embedder: Embedder, options: EmbedOptions = {}): Promise<this> {
    this.#assertOpen();
    if (!isVectorTarget(target))
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'target', message: `vector target must be chunks, events or entities (got ${JSON.stringify(target)})` });
    assertKnownKeys(options, EMBED_OPTION_KEYS, 'embed options');
    if (embedder === null || typeof embedder !== 'object' || typeof embedder.embed !== 'function') {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'embedder', message: 'embed() needs an Embedder: an object with config and embed(texts)' });
    }
    await embedder.prepare?.({ signal: options.signal });
    this.setVectorConfig(embedder.config);
    const render = compileInputTemplate(templateForTarget(this.#vectorConfig!.config, target));
    const file = this.#collect(() => this.#structure.spillFile(TARGET_RECORD[target]));
    async function* items(): AsyncGenerator<{ id: string; text: string }> {
      for await (const { record } of readSpilledRecords(file)) {
        const id = record.id as string;
        yield { id, text: render(record, id) };
      }
    }
    await embedAll({
      items: items(),
      embedder,
      batchSize: options.batchSize,
      concurrency: options.concurrency,
      retries: options.retries,
      signal: options.signal,
      onProgress: options.onProgress,
      onBatch: (ids, vectors) => {
        for (let i = 0; i < ids.length; i++) this.addVector(target, ids[i]!, vectors[i]!);
      },
    });
    return this;
  }

  /**
   * Plans, writes, verifies and atomically publishes the package.
   * @throws OctxError — `OCTX_OPTIONS_INVALID`, `OCTX_OUTPUT_EXISTS`, `OCTX_CONCEPT_REQUIRED`,
   *   `OCTX_STRUCTURE_INVALID` (aggregated), `OCTX_STRUCTURE_INCOMPLETE` (with the report),
   *   `OCTX_VALIDATION_ERROR`, `OCTX_ABORTED`, `OCTX_IO_ERROR`
   */
  async export(options: ExportOptions): Promise<ExportResult> {
    this.#assertOpen();
    if (this.#running) throw new OctxError('OCTX_BUILDER_CONSUMED', 'an export of this PackageBuilder is already running; await it');
    const run = this.#export(options);
    this.#running = run;
    try {
      return await run;
    } finally {
      this.#running = undefined;
    }
  }

  async #export(options: ExportOptions): Promise<ExportResult> {
    const opts = resolveExportOptions(options);
    const output = await AtomicOutput.prepare(opts.output, opts.overwrite);
    const state = this.#state;
    // A lock left by a killed export is taken over; that is reported as a warning.
    const lockWarnings: OctxIssue[] = [];
    const unlock = state
      ? await state
          .lock((w) => lockWarnings.push(w))
          .catch(async (e: unknown) => {
            await output.discard();
            throw e;
          })
      : undefined;
    const timings: Record<string, number> = {};
    let stateBackup: string | undefined;
    let stateWritten = false;
    try {
      if (opts.signal?.aborted) throw new OctxError('OCTX_ABORTED', 'export cancelled before it started');
      let t = performance.now();
      // Planning reads the spills without closing them: if it refuses the input (invalid
      // structure, incomplete coverage under 'require', limits), the builder stays usable.
      const structureFiles = this.#collect(() => this.#structure.snapshot());
      this.#collect(() => {
        for (const spill of this.#vectorSpills.values()) spill.flush();
      });
      opts.onProgress?.({ phase: 'validate', kind: 'structure', completed: 0, total: 1 });
      // A consumer profile's rules run over the spills before the planner decides (the seed profile has none).
      const profile = consumerProfile(opts.consumer ?? this.#options.consumer ?? 'seed');
      const consumer = profile.rules.length > 0 ? { consumer: await scanForConsumer(profile, this.#collected(), structureFiles, !opts.documentsOnly) } : {};
      const vectors = opts.vectors ?? (profile.vectors.policy === 'omit' ? 'omit' : undefined);
      const plan = planExport(this.#collected(), structureFiles, {
        documentsOnly: opts.documentsOnly,
        structure: opts.structure,
        limits: opts.limits,
        ...consumer,
        ...(vectors !== undefined ? { vectors } : {}),
      });
      opts.onProgress?.({ phase: 'validate', kind: 'structure', completed: 1, total: 1 });
      const warnings = [...lockWarnings, ...plan.warnings];
      for (const w of warnings) opts.onProgress?.({ phase: 'warning', issue: w });
      timings.plan = performance.now() - t;
      t = performance.now();
      this.#consumed = true;
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const requested = { ...(this.#options.version ? { version: this.#options.version } : {}), ...(this.#options.createdAt ? { createdAt: this.#options.createdAt } : {}) };
      let release = { version: '', createdAt: '' };
      const written = await writePackage(
        plan,
        {
          assetId: this.#assetId,
          assetName: this.#options.assetName,
          ...(this.#options.derivedFrom ? { derivedFrom: this.#options.derivedFrom } : {}),
          release: (contentDigest) => {
            release = state ? state.resolveRelease(requested, contentDigest, now) : { version: requested.version ?? '1.0.0', createdAt: requested.createdAt ?? now };
            return release;
          },
        },
        {
          output,
          workDir: this.#dir,
          compressionLevel: opts.compressionLevel ?? this.#options.compressionLevel,
          verify: opts.verify,
          limits: opts.customLimits,
          signal: opts.signal,
          onProgress: opts.onProgress,
          ...(state
            ? {
                beforeWrite: (m: Manifest) => state.assertPublishable(release.version, m.release.package_digest, computeContentDigest(m)),
                // The release is recorded before the package is published (under the lock); if
                // publishing fails, the previous state file is put back.
                beforePublish: async (m: Manifest) => {
                  stateBackup = await state.backup();
                  stateWritten = true;
                  await state.recordRelease({
                    assetId: this.#assetId,
                    assetName: this.#options.assetName,
                    version: release.version,
                    release: { created_at: release.createdAt, package_digest: m.release.package_digest, content_digest: computeContentDigest(m) },
                    documents: Object.fromEntries(this.#documents.filter((d) => d.documentId !== undefined).map((d) => [d.path, d.documentId!])),
                  });
                },
              }
            : {}),
        },
      );
      const report: ExportReport = {
        documents: plan.documents,
        structure: plan.structure,
        vectors: plan.vectors,
        capabilities: Object.keys(written.manifest.capabilities ?? {}),
        files: written.files,
        archive: { size: written.archiveSize },
        warnings,
        timings: { ...timings, ...written.timings, total: timings.plan + (performance.now() - t) },
      };
      return { output: output.path, assetId: this.#assetId, version: release.version, packageDigest: written.manifest.release.package_digest, manifest: written.manifest, report };
    } catch (e) {
      await output.discard();
      if (state && stateWritten) await state.restore(stateBackup);
      throw e;
    } finally {
      await unlock?.();
      if (this.#consumed) await this.#cleanup();
    }
  }

  /**
   * Resolves once background compression has caught up (at most three quarters of its memory
   * bound in flight). Text is compressed on the thread pool while records are added, but a loop that
   * never yields to the event loop only gets as far as that bound; the rest is compressed at
   * export. A CPU-bound producer can `await builder.drain()` every few thousand records (or per
   * document) so compression keeps pace on the other cores. Optional: awaiting anything that
   * does I/O has the same effect.
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
    for (const spill of this.#vectorSpills.values()) spill.close();
    await removeSpillDir(this.#dir);
  }

  #collected(): Collected {
    return {
      ids: this.#ids,
      documents: this.#documents,
      extensions: this.#extensions,
      structure: this.#structure,
      ...(this.#vectorConfig ? { vectorConfig: this.#vectorConfig } : {}),
      vectorSpills: this.#vectorSpills,
      workDir: this.#dir,
    };
  }
}

export type { DerivedFrom };
