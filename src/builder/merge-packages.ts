/**
 * The reduce step of a sharded build: several packages of one asset and release ("shards"), each
 * built on its own, merged into the one package a single build would have written. Every shard is
 * validated through the safe reader first; the union is then checked for what only the union can
 * break (a document or record in two shards that disagree, two entity ids for one identity) and
 * written through a builder and its export: the same planner (coverage, references, hierarchy,
 * vector completeness, limits) and the same writer, verification and atomic publish.
 *
 * The result depends on the shards' content only: records of each kind are written in the order
 * of their key (the id; a relation's pair), documents and files in path order (as every export
 * writes them), so the same shards in any order, or the same content cut into other shards, give
 * the same bytes.
 *
 * Each shard is read once for its records and vectors: the validator hands over what it decodes
 * (`validateCollecting`), and the merge keeps it only once the shard is found valid. Records and
 * vectors are not held: each shard's are sorted by key and spilled as runs, which are merged back
 * in key order at the end (`keyed-runs.ts`), where shared and conflicting entries meet.
 */
import canonicalize from 'canonicalize';
import { issue, OctxError, type OctxIssue } from '../model/errors.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind } from '../model/record-kinds.js';
import { resolveLimits, type ArchiveLimits } from '../model/limits.js';
import { keysOf, assertKnownKeys } from '../model/option-keys.js';
import { resolve } from 'node:path';
import { listedDigestProblem, openPackage, sourceOf, type OctxPackage } from '../read/open-package.js';
import { readKnowledgeDocument, type DocumentReading } from '../read/documents.js';
import { SMALL_ENTRY_BYTES } from '../export/verify-entries.js';
import { logicalPathProblem, payloadKind } from '../model/paths.js';
import { MAX_DEFLATE_RATIO } from '../export/archive-writer.js';
import type { CopiedFile } from '../package/payload-source.js';
import { validateCollecting } from '../read/validate-package.js';
import type { ValidationSink } from '../read/validation-sink.js';
import type { ValidationReport } from '../read/validate-package.js';
import { consumerProfile, CONSUMER_NAMES, type ConsumerName } from '../consumers/index.js';
import { VECTOR_TARGETS } from '../vectors/targets.js';
import { VECTOR_TARGET_PATHS } from '../model/paths.js';
import { inputHashDeclaration } from '../vectors/input-digest.js';
import type { VectorConfigInput } from '../vectors/config.js';
import type { DerivedFrom } from '../package/manifest.js';
import type { ProgressEvent } from '../plan/report.js';
import { PackageBuilder, type ExportResult } from './package-builder.js';
import { KeyedRuns } from './keyed-runs.js';

/** Options of {@link mergePackages}. */
export interface MergeOptions {
  /** The `.octx` file to write. */
  readonly output: string;
  /** Replace an existing file at `output` (default false: refuse with `OCTX_OUTPUT_EXISTS`). */
  readonly overwrite?: boolean;
  /** The consumer the package is for (default `seed`): its identity rules apply to the union, and its checks to the export. */
  readonly consumer?: ConsumerName;
  /** Limits for reading the shards and writing the result (default: the readers' defaults). */
  readonly limits?: Partial<ArchiveLimits>;
  /** Where the builder spills while merging (default: the OS temp folder). */
  readonly tempDir?: string;
  /** Export progress, as `builder.export({ onProgress })` reports it. */
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Cancels the merge; nothing is published. */
  readonly signal?: AbortSignal;
}

/** What {@link mergePackages} did: the export's result, and what the union held. */
export interface MergeResult extends ExportResult {
  /** The shards, as given. */
  readonly shards: readonly string[];
  /** Records (per kind), extension files and vector rows that two or more shards held, identical, and the package holds once (counted once per extra copy). */
  readonly shared: Readonly<Record<RecordKind | 'extensions' | 'vectors', number>>;
}

const MERGE_OPTION_KEYS = keysOf<MergeOptions>({ output: true, overwrite: true, consumer: true, limits: true, tempDir: true, onProgress: true, signal: true });

/** What must be equal in every shard, read from its manifest and vector config. */
interface ShardIdentity {
  readonly assetId: string;
  readonly assetName: string;
  readonly derivedFrom?: DerivedFrom;
  readonly version: string;
  readonly createdAt: string;
  readonly capabilities: string;
  readonly vectorConfig?: Record<string, unknown>;
}

/**
 * Merges shards of one asset and release into one package (see the module comment for the
 * rules). The shards are read one at a time, so any number of them holds only one open.
 * @throws OctxError `OCTX_MERGE_SHARD_INVALID` (a shard the validator refuses, truncated or
 *   unreadable: its issues, naming the shard), `OCTX_MERGE_MISMATCH` (asset, release,
 *   capabilities or vector config differ: the field and both shards), `OCTX_MERGE_DOCUMENT_OVERLAP`
 *   (a document path or id in two shards), `OCTX_MERGE_RECORD_CONFLICT` (one id, relation pair or
 *   extension path with different content in two shards), `OCTX_MERGE_ENTITY_IDENTITY` (two entity
 *   ids for one identity under the consumer's rules), `OCTX_OPTIONS_INVALID`, and the export's
 *   own codes (nothing is written on any of them)
 */
export async function mergePackages(inputs: readonly string[], options: MergeOptions): Promise<MergeResult> {
  assertKnownKeys(options, MERGE_OPTION_KEYS, 'mergePackages options');
  if (!isPathList(inputs)) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'inputs', message: 'mergePackages needs at least one shard path' });
  }
  if (options.consumer !== undefined && !CONSUMER_NAMES.includes(options.consumer)) consumerProfile(options.consumer);
  const duplicatePath = inputs.find((p, i) => inputs.indexOf(p) !== i);
  if (duplicatePath !== undefined) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'inputs', path: duplicatePath, message: `${duplicatePath} is given twice` });
  const limits = options.limits ? { limits: options.limits } : {};
  let identity: ShardIdentity | undefined;
  const documentPaths = new Map<string, number>();
  const documentIds = new Map<string, number>();
  const extensions = new Map<string, { json: string; shard: number }>();
  const shared = Object.fromEntries([...RECORD_KIND_ORDER, 'extensions', 'vectors'].map((k) => [k, 0])) as Record<RecordKind | 'extensions' | 'vectors', number>;
  const identityRules = consumerProfile(options.consumer ?? 'seed').rules.filter((r) => r.rule === 'unique' && r.subject === 'entity');
  const identities = identityRules.map(() => new Map<string, { id: string; shard: number }>());
  let builder: PackageBuilder | undefined;
  let digestsKnown = false;
  // An entry deflated beyond what the export would deflate is compressed again (and stored).
  const readLimits = resolveLimits(options.limits);
  const maxRatio = Math.min(MAX_DEFLATE_RATIO, options.limits?.maxCompressionRatio ?? MAX_DEFLATE_RATIO);
  // Created last before the try that disposes of it: nothing above may leave its folder behind.
  const runs = new KeyedRuns(options.tempDir);
  const sink = runSink(runs);
  try {
    for (let s = 0; s < inputs.length; s++) {
      const shard = inputs[s]!;
      const pkg = await openShard(shard, limits);
      const file = resolve(shard);
      try {
        const report = await validateCollecting(pkg, sink, limits);
        if (!report.valid || report.issues.some((i) => i.severity === 'error')) throw invalidShard(shard, report.issues, report);
        const found = await shardIdentity(pkg, report);
        if (identity === undefined) {
          identity = found;
          builder = new PackageBuilder({
            asset: { name: found.assetName, id: found.assetId, ...(found.derivedFrom ? { derivedFrom: found.derivedFrom } : {}) },
            release: { version: found.version, createdAt: found.createdAt },
            ...(options.consumer !== undefined ? { consumer: options.consumer } : {}),
            ...(options.tempDir !== undefined ? { tempDir: options.tempDir } : {}),
          });
          if (found.vectorConfig !== undefined) {
            builder.setVectorConfig(found.vectorConfig as unknown as VectorConfigInput);
            digestsKnown = inputHashDeclaration(found.vectorConfig) === 'supported';
          }
        } else {
          assertSameRelease(identity, found, inputs[0]!, shard);
        }
        // A layer the validator did not check (a capability version it does not know) handed
        // nothing over: read from the package, as before.
        await readUnchecked(pkg, report, runs);
        runs.commit(s);
        const digests = new Map<string, string>();
        for (const f of pkg.listedFiles()) if (!digests.has(f.path)) digests.set(f.path, f.sha256);
        await eachDocument(pkg, readLimits, (doc) => {
          const before = documentPaths.get(doc.path);
          if (before !== undefined) throw overlap(doc.path, 'path', inputs[before]!, shard);
          documentPaths.set(doc.path, s);
          if (doc.documentId !== undefined) {
            const sameId = documentIds.get(doc.documentId);
            if (sameId !== undefined) throw overlap(doc.path, `id ${doc.documentId}`, inputs[sameId]!, shard);
            documentIds.set(doc.documentId, s);
          }
          // eachDocument checked the bytes against the manifest digest and the entry's CRC-32.
          const copy = copiedFile(pkg, doc.path, digests.get(doc.path), file, maxRatio);
          if (copy) builder!.addCopiedFile(doc.path, doc.bytes, copy);
          else builder!.addDocument({ path: doc.path.slice('knowledge/'.length), markdown: doc.bytes });
        });
        for (const f of pkg.listedFiles()) {
          if (!f.path.startsWith('extensions/')) continue;
          const bytes = await pkg.readFile(f.path);
          if (hold(extensions, f.path, `sha256:${f.sha256}`, s, inputs, 'extension file', shard)) shared.extensions++;
          else {
            const copy = copiedFile(pkg, f.path, f.sha256, file, maxRatio);
            if (copy) builder!.addCopiedFile(f.path, bytes, copy);
            else builder!.addExtensionFile(f.path, bytes);
          }
        }
      } finally {
        runs.discard();
        await pkg.close();
      }
    }
    // Records in key order, whatever the shards' order: kinds in table order, so a relation
    // follows the records it names. Equal keys meet here, the first shard's entry first.
    for (const kind of RECORD_KIND_ORDER) {
      let first: { key: string; text: string; shard: number } | undefined;
      for (const e of runs.merged(kind)) {
        if (first !== undefined && e.key === first.key) {
          const text = e.payload.toString('utf8');
          if (text !== first.text && canonicalize(JSON.parse(text)) !== canonicalize(JSON.parse(first.text))) {
            throw conflict(`${kind} ${e.key}`, inputs[first.shard]!, inputs[e.shard]!, undefined, e.line);
          }
          shared[kind]++;
          continue;
        }
        first = { key: e.key, text: e.payload.toString('utf8'), shard: e.shard };
        const record = JSON.parse(first.text) as Record<string, unknown>;
        if (kind === 'entity') checkIdentity(record, e.shard);
        builder!.addRecord(kind, record);
      }
    }
    for (const target of VECTOR_TARGETS) {
      let first: { key: string; payload: Buffer; shard: number } | undefined;
      for (const e of runs.merged(target)) {
        if (first !== undefined && e.key === first.key) {
          if (!sameVector(first.payload, e.payload, digestsKnown))
            throw conflict(`${target} vector of ${e.key}`, inputs[first.shard]!, inputs[e.shard]!, VECTOR_TARGET_PATHS[target]);
          shared.vectors++;
          continue;
        }
        first = { key: e.key, payload: Buffer.from(e.payload), shard: e.shard };
        const row = decodeVector(first.payload);
        builder!.addVector(target, e.key, row.vector, digestsKnown && row.inputSha256 !== undefined ? { inputSha256: row.inputSha256 } : undefined);
      }
    }
    const result = await builder!.export({
      output: options.output,
      ...(options.overwrite !== undefined ? { overwrite: options.overwrite } : {}),
      // Every shard declared the layers the union declares: dropping one would lose what all of them hold.
      structure: identity!.capabilities.includes('"sag-structured"') ? 'require' : 'auto',
      ...(options.limits !== undefined ? { limits: options.limits } : {}),
      ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    builder = undefined;
    return { ...result, shards: [...inputs], shared };
  } finally {
    try {
      await builder?.dispose();
    } finally {
      await runs.dispose();
    }
  }

  function checkIdentity(record: Record<string, unknown>, s: number): void {
    identityRules.forEach((rule, r) => {
      if (rule.rule !== 'unique') return;
      const key = rule.key(record);
      if (key === undefined) return;
      const seen = identities[r]!.get(key);
      const id = String(record.id);
      if (seen === undefined) identities[r]!.set(key, { id, shard: s });
      else if (seen.id !== id) {
        throw OctxError.of({
          code: 'OCTX_MERGE_ENTITY_IDENTITY',
          path: inputs[s],
          field: rule.field,
          recordId: id,
          message: `entities ${seen.id} (${inputs[seen.shard]}) and ${id} (${inputs[s]}) have one ${rule.describe} under the ${options.consumer ?? 'seed'} consumer: shard builds must give one identity one id (share the id ledger)`,
        });
      }
    });
  }
}

/**
 * Gives each listed document of `pkg` to `each` (synchronously: the bytes are valid only during
 * the call), checked as `documents()` checks it (size, CRC-32, manifest digest). The small ones
 * are read in runs of adjacent entries, one read per run, as the export's verification reads
 * them: a stream per document costs several pool round trips each.
 */
async function eachDocument(pkg: OctxPackage, limits: ArchiveLimits, each: (doc: DocumentReading) => void): Promise<void> {
  const source = sourceOf(pkg);
  const paths = [...new Set(pkg.listedFiles().map((f) => f.path))].filter((p) => logicalPathProblem(p) === undefined && payloadKind(p) === 'knowledge');
  const options = { maxFrontmatterBytes: limits.maxFrontmatterBytes, maxFrontmatterNodes: limits.maxFrontmatterNodes };
  const small = new Set(source.readMany ? paths.filter((p) => source.has(p) && source.size(p) <= SMALL_ENTRY_BYTES) : []);
  const read = (path: string, bytes: Buffer): void => {
    const problem = listedDigestProblem(pkg, path, bytes);
    if (problem) throw problem;
    each(readKnowledgeDocument(path, bytes, options));
  };
  if (small.size > 0) {
    await source.readMany!([...small], (path, result) => {
      if (result instanceof OctxError) throw result;
      read(path, result);
    });
  }
  for (const path of paths) if (!small.has(path)) read(path, await pkg.readFile(path));
}

/**
 * The entry at `path` of `pkg` as a file to copy without compressing it again, when it is
 * deflated within `maxRatio` (the export's own rule for deflating); `undefined` for a stored entry
 * or a folder package. Its digest is `sha256`, the manifest's: the caller has read the entry
 * through `pkg`, which checks it and the CRC-32.
 */
function copiedFile(pkg: OctxPackage, path: string, sha256: string | undefined, file: string, maxRatio: number): CopiedFile | undefined {
  const stored = sourceOf(pkg).storedData?.(path);
  if (sha256 === undefined || stored === undefined || stored.method !== 'deflate' || stored.compressedSize >= stored.size || stored.size / stored.compressedSize > maxRatio)
    return undefined;
  return { stream: { file, offset: stored.offset, compressedSize: stored.compressedSize, size: stored.size, crc32: stored.crc32 }, sha256 };
}

/** A non-empty list of non-empty paths (what callers without types might not pass). */
function isPathList(v: unknown): v is readonly string[] {
  return Array.isArray(v) && v.length > 0 && v.every((p) => typeof p === 'string' && p.length > 0);
}

/** Adds `key` to `held`; true when an identical record was there already. */
function hold(
  held: Map<string, { json: string; shard: number }>,
  key: string,
  json: string,
  s: number,
  inputs: readonly string[],
  what: string,
  shard: string,
  line?: number,
): boolean {
  const before = held.get(key);
  if (before === undefined) {
    held.set(key, { json, shard: s });
    return false;
  }
  if (before.json === json) return true;
  throw conflict(what, inputs[before.shard]!, shard, undefined, line);
}

function conflict(what: string, first: string, second: string, path?: string, line?: number): OctxError {
  return OctxError.of({
    code: 'OCTX_MERGE_RECORD_CONFLICT',
    path: path ?? second,
    ...(line !== undefined ? { line } : {}),
    message: `${what} is in ${first} and in ${second} with different content: shards may share a record only when both hold it byte for byte (canonical JSON)`,
  });
}

function overlap(path: string, what: string, first: string, second: string): OctxError {
  return OctxError.of({
    code: 'OCTX_MERGE_DOCUMENT_OVERLAP',
    path,
    message: `document ${path} (${what}) is in ${first} and in ${second}: each document belongs to exactly one shard`,
  });
}

/** The key a record is unique by: its id, or a relation's pair. */
function recordKey(kind: RecordKind, record: Record<string, unknown>): string {
  const row = RECORD_KINDS[kind];
  return row.role === 'relation' ? row.idFields.map((f) => String(record[f])).join(' ') : String(record.id);
}

/**
 * Opens a shard; one that cannot be opened (truncated, not a ZIP) is refused as the validator
 * reports it: its one issue.
 * @throws OctxError `OCTX_MERGE_SHARD_INVALID`
 */
async function openShard(shard: string, limits: { limits?: Partial<ArchiveLimits> }): Promise<OctxPackage> {
  try {
    return await openPackage(shard, limits);
  } catch (e) {
    if (!(e instanceof OctxError)) throw e;
    throw invalidShard(shard, [e.issues[0] ?? issue({ code: e.code, message: e.message })]);
  }
}

/** The refusal of a shard the validator does not accept: its errors, each naming the shard. */
function invalidShard(shard: string, issues: readonly OctxIssue[], report?: ValidationReport): OctxError {
  return OctxError.aggregate(
    'OCTX_MERGE_SHARD_INVALID',
    `shard ${shard} is not a valid package, so it cannot be merged (rebuild it):`,
    issues.filter((i) => i.severity === 'error').map((i): OctxIssue => ({ ...i, message: `${shard}: ${i.message}` })),
    report,
  );
}

/** The key a vector run is ordered by, its row, and its bytes: a flag, the input digest when present, the values. */
function vectorPayload(values: Float32Array, inputSha256: string | null | undefined): Buffer {
  const digest = typeof inputSha256 === 'string' ? inputSha256 : '';
  const out = Buffer.allocUnsafe(1 + digest.length + values.byteLength);
  out[0] = digest.length;
  out.write(digest, 1, 'latin1');
  out.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), 1 + digest.length);
  return out;
}

/** A vector run entry's values (a copy) and input digest. */
function decodeVector(payload: Buffer): { vector: Float32Array; inputSha256?: string } {
  const at = 1 + payload[0]!;
  const vector = new Float32Array((payload.length - at) / 4);
  new Uint8Array(vector.buffer).set(payload.subarray(at));
  return payload[0]! > 0 ? { vector, inputSha256: payload.toString('latin1', 1, at) } : { vector };
}

/** True when two vector entries have the same values, bit for bit, and (when digests are kept) the same input digest. */
function sameVector(a: Buffer, b: Buffer, digestsKnown: boolean): boolean {
  if (digestsKnown) return a.equals(b);
  return a.subarray(1 + a[0]!).equals(b.subarray(1 + b[0]!));
}

/** Where the validator's records and vector rows go: the shard's runs, by kind and by target. */
function runSink(runs: KeyedRuns): ValidationSink {
  return {
    record(kind, record, bytes, start, end, line) {
      runs.add(kind, recordKey(kind, record), line, bytes.subarray(start, end));
    },
    vectors(target, b) {
      const dim = b.dimension;
      for (let r = 0; r < b.length; r++) {
        runs.add(target, b.recordId(r) ?? '', r, vectorPayload(b.values.subarray(r * dim, (r + 1) * dim), b.inputSha256?.text(r)));
      }
    },
  };
}

/**
 * Reads into `sink` the layers the validation did not decode although the shard holds them (a
 * capability version the validator does not know is not checked, only hashed).
 */
async function readUnchecked(pkg: OctxPackage, report: ValidationReport, runs: KeyedRuns): Promise<void> {
  if (report.capabilities['sag-structured']?.valid !== true) {
    for (const kind of RECORD_KIND_ORDER) {
      if (!pkg.hasFile(RECORD_KINDS[kind].path)) continue;
      for await (const { record, line } of pkg.records(kind)) {
        runs.add(kind, recordKey(kind, record as object as Record<string, unknown>), line, Buffer.from(JSON.stringify(record)));
      }
    }
  }
  if (report.capabilities.vectors?.valid !== true) {
    for (const target of VECTOR_TARGETS) {
      if (!pkg.hasFile(VECTOR_TARGET_PATHS[target])) continue;
      let r = 0;
      for await (const row of pkg.vectors(target)) runs.add(target, row.recordId, r++, vectorPayload(row.vector, row.inputSha256));
    }
  }
}

/** What every shard must share, from its validated manifest and its vector config. */
async function shardIdentity(pkg: OctxPackage, report: ValidationReport): Promise<ShardIdentity> {
  const m = report.manifest as {
    asset: { id: string; name: string; derived_from?: DerivedFrom };
    release: { version: string; created_at: string };
    capabilities?: Record<string, unknown>;
  };
  const vectorConfig = m.capabilities?.vectors !== undefined ? await pkg.vectorConfig() : undefined;
  return {
    assetId: m.asset.id,
    assetName: m.asset.name,
    ...(m.asset.derived_from ? { derivedFrom: m.asset.derived_from } : {}),
    version: m.release.version,
    createdAt: m.release.created_at,
    capabilities: canonicalize(m.capabilities ?? {})!,
    ...(vectorConfig !== undefined ? { vectorConfig } : {}),
  };
}

function assertSameRelease(first: ShardIdentity, other: ShardIdentity, firstPath: string, otherPath: string): void {
  const fields: [string, unknown, unknown][] = [
    ['asset.id', first.assetId, other.assetId],
    ['asset.name', first.assetName, other.assetName],
    ['asset.derived_from', canonicalize(first.derivedFrom ?? null), canonicalize(other.derivedFrom ?? null)],
    ['release.version', first.version, other.version],
    ['release.created_at', first.createdAt, other.createdAt],
    ['capabilities', first.capabilities, other.capabilities],
  ];
  fields.push(['vectors/config.json fingerprint', canonicalize(first.vectorConfig?.fingerprint ?? null), canonicalize(other.vectorConfig?.fingerprint ?? null)]);
  fields.push(['vectors/config.json', canonicalize(first.vectorConfig ?? null), canonicalize(other.vectorConfig ?? null)]);
  for (const [field, a, b] of fields) {
    if (a === b) continue;
    throw OctxError.of({
      code: 'OCTX_MERGE_MISMATCH',
      path: otherPath,
      field,
      message: `${otherPath} has ${field} ${String(b)}, but ${firstPath} has ${String(a)}: shards merge only within one asset and release (same asset id and name, version, created_at, capabilities and vector config)`,
    });
  }
}
