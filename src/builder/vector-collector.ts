/**
 * The vectors a builder collects: the package's one vector config, a spill per target, and which
 * targets got input digests from the caller (the export recomputes theirs). `PackageBuilder`
 * keeps its public methods (`setVectorConfig`, `addVector`, `embed`) and hands the work here; the
 * builder's guard says whether it takes input now, and is told of an I/O failure that may have
 * lost some.
 */
import { join } from 'node:path';
import { OctxError } from '../model/errors.js';
import { isUuidV7 } from '../model/ids.js';
import { idKindName } from '../model/id-kind.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import type { RecordKind } from '../model/records.js';
import type { BackgroundDeflate } from '../package/background-deflate.js';
import { REFERENCED, type IdRegistry } from '../structure/id-registry.js';
import { readSpilledRecords } from '../structure/record-spill.js';
import { preloadArrowWriter } from '../vectors/arrow-writer-loader.js';
import { prepareVectorConfig, type PreparedVectorConfig, type VectorConfigInput } from '../vectors/config.js';
import { embedAll, type Embedder } from '../vectors/embedder.js';
import {
  INPUT_HASH_DECLARATION,
  checkInputSha256,
  inputHashDeclaration,
  inputSha256 as inputSha256Of,
  normalizeEmbeddingInput,
  sha256OfNormalized,
  withInputHash,
} from '../vectors/input-digest.js';
import { TARGET_ID_KIND, TARGET_RECORD_KIND, isVectorTarget, type VectorTarget } from '../vectors/targets.js';
import { compileInputTemplate, templateForTarget } from '../vectors/template.js';
import { VectorSpill, type FrozenVectorRows, type VectorSpillAddOptions } from '../vectors/vector-spill.js';

/** Options of `PackageBuilder.embed`. */
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

/** Options of `PackageBuilder.addVector`: the input digest of the row (one or the other). */
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
/** Spill options of a vector without a digest (see {@link VectorCollector.add}). */
const ADD_VECTOR: VectorSpillAddOptions = Object.freeze({ replace: false });
const REPLACE_VECTOR: VectorSpillAddOptions = Object.freeze({ replace: true });

/** What the collector needs of its builder. */
export interface CollectorGuard {
  /** Throws when the builder takes no input now (an export is running, it was exported, or poisoned). */
  assertOpen(): void;
  /** An I/O failure (`OCTX_IO_ERROR`) that may have lost input: the builder refuses everything from now on. */
  poison(e: OctxError): void;
}

/** The vector config, spills and caller digests of one builder. */
export class VectorCollector {
  readonly #ids: IdRegistry;
  readonly #dir: string;
  readonly #background: BackgroundDeflate | undefined;
  readonly #guard: CollectorGuard;
  readonly #spills = new Map<VectorTarget, VectorSpill>();
  /**
   * Targets that got an input digest from the caller (`addVector` with `{ input }` or
   * `{ inputSha256 }`): the export recomputes theirs. Digests from `embed()` are right by
   * construction and those carried by `derive` were validated, so they add nothing here.
   */
  readonly #callerDigests = new Set<VectorTarget>();
  #config: PreparedVectorConfig | undefined;

  /**
   * @param ids the builder's id registry (a vector names a record by id)
   * @param dir the builder's spill folder (one `<target>.f32` file per target)
   * @param background the builder's background compression (vectors count towards its thread)
   */
  constructor(ids: IdRegistry, dir: string, background: BackgroundDeflate | undefined, guard: CollectorGuard) {
    this.#ids = ids;
    this.#dir = dir;
    this.#background = background;
    this.#guard = guard;
  }

  /** The prepared vector config, when one is set. */
  get config(): PreparedVectorConfig | undefined {
    return this.#config;
  }

  /** `PackageBuilder.setVectorConfig`. */
  setConfig(config: VectorConfigInput): void {
    this.#guard.assertOpen();
    const prepared = prepareVectorConfig(config);
    if (this.#config) {
      if (this.#config.fingerprint === prepared.fingerprint) return;
      throw OctxError.of({
        code: 'OCTX_VECTOR_CONFIG_INVALID',
        field: 'vectorConfig',
        message: `a package has one vector config shared by all targets; one with fingerprint ${this.#config.fingerprint} is already set`,
      });
    }
    this.#config = prepared;
  }

  /** `PackageBuilder.addVector`: the caller's options checked, then {@link add}. */
  addFromCaller(target: VectorTarget, recordId: string, vector: Float32Array | Float64Array | readonly number[], options?: AddVectorOptions): void {
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
      if (digest !== undefined && this.#config !== undefined && inputHashDeclaration(this.#config.config) !== 'supported') {
        throw OctxError.of({
          code: 'OCTX_VECTOR_CONFIG_INVALID',
          recordId,
          field: 'input_hash',
          message: `a vector with an input digest needs the config to declare how it is computed: add input_hash: ${JSON.stringify(INPUT_HASH_DECLARATION)}`,
        });
      }
    }
    this.add(target, recordId, vector, digest, false);
    if (digest !== undefined) this.#callerDigests.add(target);
  }

  /**
   * Adds (or, with `replace`, replaces) one record's vector with its digest, if any. The builder
   * must be open; an I/O failure of the spill poisons it.
   */
  add(target: VectorTarget, recordId: string, vector: Float32Array | Float64Array | readonly number[], inputSha256: string | undefined, replace: boolean): void {
    this.#guard.assertOpen();
    if (!isVectorTarget(target))
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'target', message: `vector target must be chunks, events or entities (got ${JSON.stringify(target)})` });
    const config = this.#config;
    if (!config)
      throw OctxError.of({ code: 'OCTX_VECTOR_CONFIG_REQUIRED', recordId, message: 'call setVectorConfig() (or embed()) before addVector(): the config fixes the dimensions' });
    if (!isUuidV7(recordId))
      throw OctxError.of({ code: 'OCTX_ID_INVALID', recordId: String(recordId), field: 'record_id', message: 'vector record ids must be canonical lowercase UUIDv7 record ids' });
    const dense = this.#ids.ref(recordId);
    const kind = this.#ids.kindOf(dense);
    if (kind !== REFERENCED && kind !== TARGET_ID_KIND[target]) {
      throw OctxError.of({ code: 'OCTX_REFERENCE_UNKNOWN', recordId, field: 'record_id', message: `${recordId} is a ${idKindName(kind)}, not one of the ${target}` });
    }
    let spill = this.#spills.get(target);
    if (!spill) {
      spill = new VectorSpill({ file: join(this.#dir, `${target}.f32`), target, dimensions: config.dimensions, normalized: config.normalized });
      this.#spills.set(target, spill);
      // The export will write Arrow files: their writer loads while the caller goes on.
      preloadArrowWriter();
    }
    // The common call (no digest, no replace) shares one options object, and the try/catch is
    // inlined: no closure either, so nothing is allocated per vector.
    const addOptions = inputSha256 === undefined ? (replace ? REPLACE_VECTOR : ADD_VECTOR) : { inputSha256, replace };
    try {
      spill.add(dense, recordId, vector, addOptions);
      // Vectors make a build large: they count towards moving compression to its thread.
      this.#background?.countSpilled(config.dimensions * 4);
    } catch (e) {
      if (e instanceof OctxError && e.code === 'OCTX_IO_ERROR') this.#guard.poison(e);
      throw e;
    }
  }

  /**
   * `PackageBuilder.embed`; `recordsFile` gives the builder's spill file of a record kind (read
   * once the options are checked).
   */
  async embed(target: VectorTarget, embedder: Embedder, options: EmbedOptions, recordsFile: (kind: RecordKind) => string): Promise<void> {
    this.#guard.assertOpen();
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
    const current = this.#config;
    if (current !== undefined && inputHashDeclaration(current.config) !== 'supported' && current.fingerprint === prepareVectorConfig(embedder.config).fingerprint) {
      // The same pipeline, declared without input digests: keep that config, add no digests.
      digests = false;
    } else this.setConfig(effective);
    const existing = this.#spills.get(target);
    if (existing !== undefined && existing.size > 0 && !existing.hasInputSha256) digests = false;
    if (only === 'stale' && !digests) {
      throw OctxError.of({
        code: 'OCTX_OPTIONS_INVALID',
        field: 'only',
        message: `only: 'stale' needs input digests to find changed records, but the ${target} vectors ${existing?.hasInputSha256 === false && existing.size > 0 ? 'carry no input_sha256' : "would get none (the package's vector config has no input_hash)"}; use only: 'missing', or embed into a builder without these vectors`,
      });
    }
    const render = compileInputTemplate(templateForTarget(this.#config!.config, target));
    const file = recordsFile(TARGET_RECORD_KIND[target]);
    const ids = this.#ids;
    const spills = this.#spills;
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
          this.add(target, id, vectors[i]!, p?.sha, p?.replace === true);
        }
      },
    });
  }

  /** Forgets which targets got caller digests (`derive`: what came from a validated package is right). */
  forgetCallerDigests(): void {
    this.#callerDigests.clear();
  }

  /** The targets whose digests the export recomputes (a copy). */
  callerDigestTargets(): Set<VectorTarget> {
    return new Set(this.#callerDigests);
  }

  /** Each target's rows as of now (see `VectorSpill.freeze`): the export's view. */
  freeze(): Map<VectorTarget, FrozenVectorRows> {
    const vectors = new Map<VectorTarget, FrozenVectorRows>();
    for (const [target, spill] of this.#spills) {
      spill.flush();
      vectors.set(target, spill.freeze());
    }
    return vectors;
  }

  /** Closes the spills (their files go with the builder's folder). */
  close(): void {
    for (const spill of this.#spills.values()) spill.close();
  }
}
