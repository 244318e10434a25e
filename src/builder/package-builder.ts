import { join } from 'node:path';
import { OctxError, type OctxIssue } from '../model/errors.js';
import { isUuidV7, newId } from '../model/ids.js';
import type { ChunkEventLink, ChunkRecord, EntityRecord, EventEntityLink, EventRecord, RecordKind } from '../model/records.js';
import { prepareDocument, knowledgePath, type DocumentInput } from '../knowledge/document.js';
import { AtomicOutput } from '../package/atomic-output.js';
import { BackgroundDeflate } from '../package/background-deflate.js';
import { preloadArrowWriter } from '../vectors/arrow-writer-loader.js';
import { PayloadSpill } from '../package/payload-spill.js';
import { computeContentDigest, type DerivedFrom, type Manifest } from '../package/manifest.js';
import { IdLedger, nextVersion, ProducerState } from '../release/producer-state.js';
import { EXTENSION_PATH_PATTERN, entryNameProblem, logicalPathProblem } from '../model/paths.js';
import { writePackage } from '../export/package-writer.js';
import { planExport } from '../plan/planner.js';
import { scanForConsumer } from '../plan/consumer-scan.js';
import { checkCallerDigests, checkDigestTemplates } from '../plan/input-digest-check.js';
import { consumerProfile } from '../consumers/index.js';
import type { Degradation, ExportReport } from '../plan/report.js';
import { IdKind, idKindName } from '../model/id-kind.js';
import { IdRegistry, REFERENCED } from '../structure/id-registry.js';
import { FrozenIds, definedCounts } from '../structure/frozen-ids.js';
import { StructureStore } from '../structure/structure-store.js';
import { readSpilledRecords } from '../structure/record-spill.js';
import { prepareVectorConfig, type PreparedVectorConfig, type VectorConfigInput } from '../vectors/config.js';
import { embedAll, type Embedder } from '../vectors/embedder.js';
import { TARGET_ID_KIND, TARGET_RECORD_KIND, isVectorTarget, type VectorTarget } from '../vectors/targets.js';
import { compileInputTemplate, templateForTarget } from '../vectors/template.js';
import {
  INPUT_HASH_DECLARATION,
  checkInputSha256,
  inputHashDeclaration,
  inputSha256 as inputSha256Of,
  normalizeEmbeddingInput,
  sha256OfNormalized,
  withInputHash,
} from '../vectors/input-digest.js';
import { VectorSpill, type FrozenVectorRows, type VectorSpillAddOptions } from '../vectors/vector-spill.js';
import type { Collected, CollectedDocument, CollectedExtension } from '../plan/collected.js';
import { resolveBuilderOptions, resolveExportOptions, type ExportOptions, type PackageBuilderOptions, type ResolvedBuilderOptions } from './options.js';
import { createSpillDir, isStdoutStaging, removeSpillDir } from '../package/spill-dir.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import { deriveBuilder, type DeriveOptions, type DerivationSummary } from './derive.js';
import { keepOverwrittenPrevious, withChanges, type KeptPrevious } from './previous-changes.js';
import type { PackageChangeCounts } from '../read/diff/change-counts.js';

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
  /**
   * True when anything that was added is left out of the package (an incomplete structure layer,
   * a vector target missing some records' vectors, …); `degradations` says what and why. Pass
   * `strict: true` to make that an error instead. Same as `report.degraded`.
   */
  readonly degraded: boolean;
  /** What was left out, why, how many records cause it and the first of them (`report.degradations`). */
  readonly degradations: readonly Degradation[];
  /**
   * What went in, what was left out and why; with `export({ previous })`, `changes` holds the
   * counts of what changed since that package (see `diffPackages`).
   */
  readonly report: ExportReport & { readonly changes?: PackageChangeCounts };
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
  /**
   * Which records to embed. Absent: every record of the target (a record that already has a
   * vector is `OCTX_VECTOR_RECORD_ID_DUPLICATE`). `'missing'`: only records without a vector
   * (e.g. those added after `PackageBuilder.derive`). `'stale'`: those, and the records whose
   * vector's `input_sha256` differs from the digest of their current text (the old vector is
   * replaced); a target whose vectors carry no digest cannot be judged and is refused.
   */
  readonly only?: 'missing' | 'stale';
}

/** Options of {@link PackageBuilder.addVector}: the input digest of the row (one or the other). */
export interface AddVectorOptions {
  /** The text the vector was computed from (the rendered template); it is normalised and hashed. */
  readonly input?: string;
  /** The precomputed `input_sha256`: 64 lower-case hex digits of SHA-256 over the normalised text. */
  readonly inputSha256?: string;
}

/**
 * Every key of {@link EmbedOptions}; another one is a misspelling, refused. `only` (embed a
 * subset of the records) is handled by the embed step itself.
 */
const EMBED_OPTION_KEYS = keysOf<EmbedOptions>({ batchSize: true, concurrency: true, retries: true, signal: true, onProgress: true, only: true });

/** Every key of {@link AddVectorOptions}; another one (`inputSHA256`) is a misspelling, refused. */
const ADD_VECTOR_OPTION_KEYS = keysOf<AddVectorOptions>({ input: true, inputSha256: true });
/** Spill options of a vector without a digest (see `#addVector`). */
const ADD_VECTOR: VectorSpillAddOptions = Object.freeze({ replace: false });
const REPLACE_VECTOR: VectorSpillAddOptions = Object.freeze({ replace: true });

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
  /**
   * Targets that got an input digest from the caller (`addVector` with `{ input }` or
   * `{ inputSha256 }`): the export recomputes theirs. Digests from `embed()` are right by
   * construction and those carried by `derive` were validated, so they add nothing here.
   */
  readonly #callerDigests = new Set<VectorTarget>();
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
    builder.#callerDigests.clear();
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
    this.#structure = new StructureStore(this.#ids, this.#dir, { ...background, strictFields: this.#options.strict });
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
      maxFrontmatterBytes: this.#options.maxFrontmatterBytes,
      maxFrontmatterNodes: this.#options.maxFrontmatterNodes,
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
    this.#collect(() => this.#structure.add(kind, record));
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
    let digest: string | undefined;
    if (options !== undefined) {
      if (typeof options !== 'object' || options === null)
        throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', recordId, field: 'options', message: 'addVector options must be an object' });
      assertKnownKeys(options, ADD_VECTOR_OPTION_KEYS, 'addVector options');
      const { input, inputSha256 } = options;
      if (input !== undefined && inputSha256 !== undefined) {
        throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', recordId, field: 'input', message: 'give input or inputSha256, not both' });
      }
      if (input !== undefined) {
        if (typeof input !== 'string') throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', recordId, field: 'input', message: 'input must be the text that was embedded' });
        digest = inputSha256Of(input);
      } else if (inputSha256 !== undefined) digest = checkInputSha256(inputSha256, isVectorTarget(target) ? target : 'chunks', recordId);
      if (digest !== undefined && this.#vectorConfig !== undefined && inputHashDeclaration(this.#vectorConfig.config) !== 'supported') {
        throw OctxError.of({
          code: 'OCTX_VECTOR_CONFIG_INVALID',
          recordId,
          field: 'input_hash',
          message: `a vector with an input digest needs the config to declare how it is computed: add input_hash: ${JSON.stringify(INPUT_HASH_DECLARATION)}`,
        });
      }
    }
    this.#addVector(target, recordId, vector, digest, false);
    if (digest !== undefined) this.#callerDigests.add(target);
    return this;
  }

  #addVector(target: VectorTarget, recordId: string, vector: Float32Array | Float64Array | readonly number[], inputSha256: string | undefined, replace: boolean): this {
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
      // The export will write Arrow files: their writer loads while the caller goes on.
      preloadArrowWriter();
    }
    // The common call (no digest, no replace) shares one options object, and the try/catch of
    // #collect is inlined: no closure either, so nothing is allocated per vector.
    const addOptions = inputSha256 === undefined ? (replace ? REPLACE_VECTOR : ADD_VECTOR) : { inputSha256, replace };
    try {
      spill.add(dense, recordId, vector, addOptions);
      // Vectors make a build large: they count towards moving compression to its thread.
      this.#background?.countSpilled(config.dimensions * 4);
    } catch (e) {
      if (e instanceof OctxError && e.code === 'OCTX_IO_ERROR') this.#poisoned = e;
      throw e;
    }
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
    this.#assertOpen();
    if (!isVectorTarget(target))
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'target', message: `vector target must be chunks, events or entities (got ${JSON.stringify(target)})` });
    assertKnownKeys(options, EMBED_OPTION_KEYS, 'embed options');
    if (embedder === null || typeof embedder !== 'object' || typeof embedder.embed !== 'function') {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'embedder', message: 'embed() needs an Embedder: an object with config and embed(texts)' });
    }
    const only = options.only;
    if (only !== undefined && only !== 'missing' && only !== 'stale') {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'only', message: `only must be 'missing' or 'stale' (got ${JSON.stringify(only)})` });
    }
    await embedder.prepare?.({ signal: options.signal });
    const effective = withInputHash(embedder.config);
    let digests = true;
    const current = this.#vectorConfig;
    if (current !== undefined && inputHashDeclaration(current.config) !== 'supported' && current.fingerprint === prepareVectorConfig(embedder.config).fingerprint) {
      // The same pipeline, declared without input digests: keep that config, add no digests.
      digests = false;
    } else this.setVectorConfig(effective);
    const existing = this.#vectorSpills.get(target);
    if (existing !== undefined && existing.size > 0 && !existing.hasInputSha256) digests = false;
    if (only === 'stale' && !digests) {
      throw OctxError.of({
        code: 'OCTX_OPTIONS_INVALID',
        field: 'only',
        message: `only: 'stale' needs input digests to find changed records, but the ${target} vectors ${existing?.hasInputSha256 === false && existing.size > 0 ? 'carry no input_sha256' : "would get none (the package's vector config has no input_hash)"}; use only: 'missing', or embed into a builder without these vectors`,
      });
    }
    const render = compileInputTemplate(templateForTarget(this.#vectorConfig!.config, target));
    const file = this.#collect(() => this.#structure.spillFile(TARGET_RECORD_KIND[target]));
    const ids = this.#ids;
    const spills = this.#vectorSpills;
    // Digests (and whether a vector is replaced) of the records in flight: bounded by embedAll's window.
    const pending = new Map<string, { sha: string | undefined; replace: boolean }>();
    async function* items(): AsyncGenerator<{ id: string; text: string }> {
      for await (const { record } of readSpilledRecords(file)) {
        const id = record.id as string;
        const spill = spills.get(target);
        const dense = only !== undefined && spill !== undefined ? ids.find(id) : -1;
        const has = dense >= 0 && spill!.has(dense);
        if (has && only === 'missing') continue;
        const text = normalizeEmbeddingInput(render(record, id));
        const sha = digests ? sha256OfNormalized(text) : undefined;
        if (has && spill!.inputSha256Of(dense) === sha) continue;
        pending.set(id, { sha, replace: has });
        yield { id, text };
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
      onBatch: (batchIds, vectors) => {
        for (let i = 0; i < batchIds.length; i++) {
          const id = batchIds[i]!;
          const p = pending.get(id);
          pending.delete(id);
          this.#addVector(target, id, vectors[i]!, p?.sha, p?.replace === true);
        }
      },
    });
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
    this.#assertOpen();
    // Synchronously, before anything can run in between: from here on the export sees only this.
    const snapshot = this.#snapshot();
    let kept: KeptPrevious | undefined;
    const run = (async () => {
      // A previous package this export overwrites is kept aside first: compared after publishing, it would be gone.
      kept = await keepOverwrittenPrevious(options?.previous, options?.output, this.#options.tempDir);
      return this.#export(options, snapshot.collected);
    })();
    this.#running = run;
    try {
      const result = await run;
      // After publishing, so a failing comparison never costs the package (it becomes a warning).
      return options.previous === undefined ? result : await withChanges(result, options.previous, options.limits, kept?.path);
    } finally {
      this.#running = undefined;
      snapshot.release();
      await kept?.remove();
    }
  }

  /**
   * Freezes what was collected (see {@link Collected}): the one view the export plans and writes
   * from. Cheap and copy-free but for the document list: spills only grow, so their lengths,
   * sizes and digests now are the snapshot. `release()` ends the vector views.
   */
  #snapshot(): { readonly collected: Collected; release(): void } {
    const structure = this.#collect(() => this.#structure.freeze());
    const vectors = new Map<VectorTarget, FrozenVectorRows>();
    this.#collect(() => {
      for (const [target, spill] of this.#vectorSpills) {
        spill.flush();
        vectors.set(target, spill.freeze());
      }
    });
    const ids = new FrozenIds(this.#ids, definedCounts(this.#documents.length, structure));
    const collected: Collected = {
      ids,
      documents: this.#documents.slice(),
      extensions: this.#extensions.slice(),
      structure,
      ...(this.#vectorConfig ? { vectorConfig: this.#vectorConfig } : {}),
      vectorSpills: vectors,
      callerDigests: new Set(this.#callerDigests),
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

  async #export(options: ExportOptions, collected: Collected): Promise<ExportResult> {
    const opts = resolveExportOptions(options);
    const output = await AtomicOutput.prepare(opts.output, opts.overwrite);
    const state = this.#state;
    // A lock left by a killed export is taken over; that is reported as a warning.
    const lockWarnings: OctxIssue[] = [];
    const locked = state
      ? await state
          .lock((w) => lockWarnings.push(w))
          .catch(async (e: unknown) => {
            await output.discard();
            throw e;
          })
      : undefined;
    // Released once, before the output's folders are removed on failure: the lock file (and the
    // folders made for the state) would otherwise keep a shared new folder from being removed.
    let unlock = locked;
    const releaseLock = async (): Promise<void> => {
      const release = unlock;
      unlock = undefined;
      await release?.();
    };
    const timings: Record<string, number> = {};
    let stateBackup: string | undefined;
    let stateWritten = false;
    try {
      if (opts.signal?.aborted) throw new OctxError('OCTX_ABORTED', 'export cancelled before it started');
      let t = performance.now();
      // Planning reads the snapshot without closing the spills: if it refuses the input (invalid
      // structure, incomplete coverage under 'require', limits), the builder stays usable.
      const structureFiles = collected.structure.files;
      // The structure check is a step of its own only when there is structure to check.
      const structureRecords = Object.values(structureFiles).reduce((n, f) => n + f.lines, 0);
      const structureBytes = Object.values(structureFiles).reduce((n, f) => n + f.size, 0);
      const planStep = (completed: number): void => {
        if (structureRecords > 0 && !opts.documentsOnly)
          opts.onProgress?.({ phase: 'plan', kind: 'structure', completed, total: structureRecords, bytes: completed === 0 ? 0 : structureBytes, totalBytes: structureBytes });
      };
      planStep(0);
      // A consumer profile's rules run over the spills before the planner decides (the seed profile has none).
      const profile = consumerProfile(opts.consumer ?? this.#options.consumer ?? 'seed');
      const consumer = profile.rules.length > 0 ? { consumer: await scanForConsumer(profile, collected, !opts.documentsOnly) } : {};
      const vectors = opts.vectors ?? (profile.vectors.policy === 'omit' ? 'omit' : undefined);
      const plan = planExport(collected, {
        documentsOnly: opts.documentsOnly,
        structure: opts.structure,
        limits: opts.limits,
        strict: opts.strict ?? this.#options.strict,
        // A taken-over lock is a warning like the planner's: strict refuses it before anything is written.
        warnings: lockWarnings,
        ...consumer,
        ...(vectors !== undefined ? { vectors } : {}),
      });
      // Caller-supplied input digests the validator would refuse: refused here, nothing written.
      checkDigestTemplates(collected, plan.arrowTargets);
      await checkCallerDigests(collected, plan.arrowTargets, opts.limits.maxRenderedInputBytes, opts.signal);
      planStep(structureRecords);
      const warnings = plan.warnings;
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
                    release: {
                      created_at: release.createdAt,
                      package_digest: m.release.package_digest,
                      content_digest: computeContentDigest(m),
                      // A package staged for stdout leaves no file: keep what an identical rebuild recorded, if anything.
                      ...(isStdoutStaging(output.path)
                        ? state.releases[release.version]?.output !== undefined
                          ? { output: state.releases[release.version]!.output }
                          : {}
                        : { output: state.outputFor(output.path) }),
                    },
                    documents: Object.fromEntries(collected.documents.filter((d) => d.documentId !== undefined).map((d) => [d.path, d.documentId!])),
                  });
                },
              }
            : {}),
        },
      );
      const degradations = plan.degradations;
      const report: ExportReport = {
        degraded: degradations.length > 0,
        degradations,
        documents: plan.documents,
        structure: plan.structure,
        vectors: plan.vectors,
        capabilities: Object.keys(written.manifest.capabilities ?? {}),
        files: written.files,
        archive: { size: written.archiveSize },
        warnings,
        timings: { ...timings, ...written.timings, total: timings.plan + (performance.now() - t) },
      };
      return {
        output: output.path,
        assetId: this.#assetId,
        version: release.version,
        packageDigest: written.manifest.release.package_digest,
        manifest: written.manifest,
        degraded: report.degraded,
        degradations,
        report,
      };
    } catch (e) {
      try {
        if (state && stateWritten) await state.restore(stateBackup);
      } finally {
        await releaseLock();
        await output.discard();
      }
      throw e;
    } finally {
      await releaseLock();
      if (this.#consumed) await this.#cleanup();
    }
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
    for (const spill of this.#vectorSpills.values()) spill.close();
    await removeSpillDir(this.#dir);
  }
}

export type { DerivedFrom };
