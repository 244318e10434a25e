/**
 * `diffPackages`: what changed from one package to another, by identity — documents by
 * `octx.document_id` (a renamed file is *moved*), records by `id`, links by their id pair,
 * vector rows by `record_id`.
 *
 * Memory is bounded by the record count of one kind, not by the packages: per kind, the old
 * package is streamed into a {@link KeyDigestTable} (the key and the first 128 bits of the
 * SHA-256 of the record's RFC 8785 canonical JSON, ~45 bytes a record), then the new package is
 * streamed against it, one record at a time. Neither package's records are held as objects. At
 * most two tables live at once (a record kind and its vector target, to tell stale vectors), so
 * two packages of a million chunks need ~100 MB for the tables. Knowledge documents are read one
 * at a time; their ids, paths and digests are kept (a package holds at most `maxEntries` files).
 *
 * This compares; it does not validate. Both packages are read through `openPackage`, so every
 * byte is still checked against the manifest digests and the resource limits.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { OctxError } from '../../model/errors.js';
import { jcsBytes } from '../../model/json.js';
import { assertKnownKeys, keysOf } from '../../model/option-keys.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKindSpec } from '../../model/record-kinds.js';
import { VECTOR_TARGET_PATHS } from '../../model/paths.js';
import { uuidToWords, wordsToUuid } from '../../model/uuid-words.js';
import { computeVectorFingerprint } from '../../vectors/config.js';
import { VECTOR_TARGETS, type VectorTarget } from '../../vectors/targets.js';
import { openPackage, sourceOf, type JsonlRecord, type OctxPackage, type VectorRow } from '../open-package.js';
import { ADDED, CHANGED, KeyDigestTable, SAME, UNSEEN } from './key-digest-table.js';
import { diffKey } from './diff-result.js';
import type {
  DiffOptions,
  DiffRelation,
  DiffSide,
  DocumentChanges,
  DocumentMove,
  DocumentRef,
  FileChanges,
  LinkPair,
  PackageDiff,
  RecordChangeCounts,
  VectorChangeCounts,
} from './diff-result.js';

const DEFAULT_SAMPLE_SIZE = 10;
const MAX_SAMPLE_SIZE = 1000;
/** Records between two progress events. */
const PROGRESS_STEP = 50_000;

/** The first `limit` items of a category; the item is only made while there is room. */
class Sample<T> {
  readonly items: T[] = [];
  constructor(private readonly limit: number) {}
  offer(make: () => T): void {
    if (this.items.length < this.limit) this.items.push(make());
  }
}

/**
 * Record ids as table keys: a canonical UUIDv7 is its 128 bits; anything else (a package that
 * would not validate) is the first 128 bits of its SHA-256, remembered here to be named again.
 */
class IdKeys {
  readonly #odd = new Map<string, string>();
  put(id: string, out: Uint32Array, o: number): void {
    if (uuidToWords(id, out, o)) return;
    const d = createHash('sha256').update(id, 'utf8').digest();
    for (let k = 0; k < 4; k++) out[o + k] = d.readUInt32BE(4 * k);
    this.#odd.set(`${out[o]},${out[o + 1]},${out[o + 2]},${out[o + 3]}`, id);
  }
  text(w: Uint32Array, o: number): string {
    if (this.#odd.size > 0) {
      const odd = this.#odd.get(`${w[o]},${w[o + 1]},${w[o + 2]},${w[o + 3]}`);
      if (odd !== undefined) return odd;
    }
    return wordsToUuid(w, o);
  }
}

/** The first 128 bits of a SHA-256 as four words. */
function digestWords(d: Buffer, out: Uint32Array): void {
  out[0] = d.readUInt32BE(0);
  out[1] = d.readUInt32BE(4);
  out[2] = d.readUInt32BE(8);
  out[3] = d.readUInt32BE(12);
}

/** What one pass needs to read a row: its key, its digest, and where it is for errors. */
interface RowReader<R> {
  /** Writes the row's key; throws a typed error when the row has none. */
  key(row: R, out: Uint32Array, index: number): void;
  digest(row: R, out: Uint32Array): void;
  /** The row's id for a duplicate error. */
  where(row: R, index: number): { line?: number; recordId: string };
}

interface PassResult<S> {
  readonly counts: RecordChangeCounts;
  readonly added: readonly S[];
  readonly removed: readonly S[];
  readonly changed: readonly S[];
  readonly table: KeyDigestTable;
}

/** Everything one diff run shares. */
interface Run {
  readonly sampleSize: number;
  readonly ids: IdKeys;
  /** `total` is an estimate (the old side's count, for the new side); the count so far otherwise. */
  readonly progress: (kind: string, n: number, total?: number) => void;
}

/**
 * Streams the old side into a table, then the new side against it.
 * @param onUnchanged called for each new row whose digest matches (the stale-vector check)
 */
async function comparePass<R, S>(
  run: Run,
  name: string,
  path: string,
  rows: (pkg: OctxPackage) => AsyncIterable<R>,
  pkgs: readonly [OctxPackage, OctxPackage],
  keyWords: number,
  reader: RowReader<R>,
  text: (key: Uint32Array) => S,
  onUnchanged?: (key: Uint32Array, text: () => S) => void,
): Promise<PassResult<S>> {
  const table = new KeyDigestTable(keyWords);
  const key = new Uint32Array(keyWords);
  const digest = new Uint32Array(4);
  const duplicate = (row: R, index: number, side: string): OctxError => {
    const w = reader.where(row, index);
    return OctxError.of({
      code: 'OCTX_ID_DUPLICATE',
      path,
      ...(w.line !== undefined ? { line: w.line } : {}),
      recordId: w.recordId,
      message: `the ${side} package holds ${name} ${w.recordId} twice; records are compared by id (run validatePackage on it)`,
    });
  };
  const counts = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  let n = 0;
  const oldSize = (): number => table.size - counts.added;
  for await (const row of rows(pkgs[0])) {
    reader.key(row, key, n);
    reader.digest(row, digest);
    if (table.add(key, digest) < 0) throw duplicate(row, n, 'old');
    if (++n % PROGRESS_STEP === 0) run.progress(`old ${name}`, n);
  }
  run.progress(`old ${name}`, n);
  const added = new Sample<S>(run.sampleSize);
  const changed = new Sample<S>(run.sampleSize);
  const removed = new Sample<S>(run.sampleSize);
  n = 0;
  for await (const row of rows(pkgs[1])) {
    reader.key(row, key, n);
    reader.digest(row, digest);
    const e = table.find(key);
    if (e < 0) {
      // Kept in the table, so that the same id twice in the new package is found as in the old one.
      table.setMark(table.add(key, digest), ADDED);
      counts.added++;
      added.offer(() => text(key));
    } else if (table.mark(e) !== UNSEEN) {
      throw duplicate(row, n, 'new');
    } else if (table.sameDigest(e, digest)) {
      table.setMark(e, SAME);
      counts.unchanged++;
      onUnchanged?.(key, () => text(key));
    } else {
      table.setMark(e, CHANGED);
      counts.changed++;
      changed.offer(() => text(key));
    }
    if (++n % PROGRESS_STEP === 0) run.progress(`new ${name}`, n, oldSize());
  }
  run.progress(`new ${name}`, n, n);
  for (let e = 0; e < table.size; e++) {
    if (table.mark(e) !== UNSEEN) continue;
    counts.removed++;
    removed.offer(() => {
      table.keyAt(e, key);
      return text(key);
    });
  }
  return { counts, added: added.items, removed: removed.items, changed: changed.items, table };
}

/** The SHA-256 of a record's canonical JSON, as the row digest. */
function recordDigest(row: JsonlRecord<unknown>, out: Uint32Array): void {
  digestWords(createHash('sha256').update(jcsBytes(row.record)).digest(), out);
}

/** The string id field of a record, or a typed error naming the file, line and field. */
function idField(row: JsonlRecord<unknown>, field: string, path: string): string {
  const rec = row.record as Record<string, unknown> | null;
  const v = rec !== null && typeof rec === 'object' ? rec[field] : undefined;
  if (typeof v !== 'string') {
    throw OctxError.of({ code: 'OCTX_SCHEMA_VALIDATION', path, line: row.line, field, message: `line ${row.line}: ${field} must be a string to compare records by id` });
  }
  return v;
}

/** A manifest's side of the diff. */
async function sideOf(pkg: OctxPackage): Promise<DiffSide> {
  const i = pkg.info;
  let size = 0;
  if (pkg.kind === 'zip') size = (await stat(pkg.path)).size;
  else {
    const source = sourceOf(pkg);
    for (const name of source.names()) size += source.size(name);
  }
  const d = i.derivedFrom;
  return {
    path: pkg.path,
    assetId: i.assetId ?? null,
    assetName: i.assetName ?? null,
    version: i.version ?? null,
    createdAt: i.createdAt ?? null,
    packageDigest: i.packageDigest ?? null,
    size,
    derivedFrom: d ? { assetId: d.assetId ?? null, version: d.version ?? null, packageDigest: d.packageDigest ?? null } : null,
  };
}

/** `derived` when the new package names the old one as its source; `same-asset` for one asset id. */
function relationOf(oldSide: DiffSide, newSide: DiffSide): DiffRelation {
  const d = newSide.derivedFrom;
  if (d && oldSide.assetId !== null && d.assetId === oldSide.assetId && d.version === oldSide.version && d.packageDigest === oldSide.packageDigest) return 'derived';
  if (oldSide.assetId !== null && oldSide.assetId === newSide.assetId) return 'same-asset';
  return 'unrelated';
}

interface DocEntry {
  readonly id: string | null;
  readonly path: string;
  readonly sha256: string | undefined;
}

/** The documents of a package, keyed by id (or by path when they have no valid id), in manifest order. */
async function documentsOf(pkg: OctxPackage): Promise<Map<string, DocEntry>> {
  const sha = new Map<string, string>();
  for (const f of pkg.info.files) if (!sha.has(f.path)) sha.set(f.path, f.sha256);
  const out = new Map<string, DocEntry>();
  for await (const d of pkg.documents()) {
    const id = d.kind === 'concept' ? (d.documentId ?? null) : null;
    // A second document claiming the same id (an invalid package) is matched by its path.
    const key = id !== null && !out.has(`id:${id}`) ? `id:${id}` : `path:${d.path}`;
    out.set(key, { id, path: d.path, sha256: sha.get(d.path) });
  }
  return out;
}

function diffDocuments(before: Map<string, DocEntry>, after: Map<string, DocEntry>): DocumentChanges {
  const ref = (e: DocEntry): DocumentRef => ({ id: e.id, path: e.path });
  const added: DocumentRef[] = [];
  const changed: DocumentRef[] = [];
  const moved: DocumentMove[] = [];
  let unchanged = 0;
  for (const [key, now] of after) {
    const was = before.get(key);
    if (!was) {
      added.push(ref(now));
      continue;
    }
    const isMoved = was.path !== now.path;
    if (isMoved) moved.push({ id: now.id!, from: was.path, to: now.path });
    if (was.sha256 !== now.sha256) changed.push(ref(now));
    else if (!isMoved) unchanged++;
  }
  const removed = [...before].filter(([key]) => !after.has(key)).map(([, e]) => ref(e));
  return { added, removed, changed, moved, unchanged };
}

/** Extension files by path, compared by their listed SHA-256. */
function diffExtensions(a: OctxPackage, b: OctxPackage): FileChanges {
  const listed = (p: OctxPackage): Map<string, string> => {
    const m = new Map<string, string>();
    for (const f of p.info.files) if (f.path.startsWith('extensions/') && !m.has(f.path)) m.set(f.path, f.sha256);
    return m;
  };
  const before = listed(a);
  const after = listed(b);
  return {
    added: [...after.keys()].filter((p) => !before.has(p)),
    removed: [...before.keys()].filter((p) => !after.has(p)),
    changed: [...after].filter(([p, sha]) => before.has(p) && before.get(p) !== sha).map(([p]) => p),
  };
}

/** The config fingerprint, or null without a config. */
async function configFingerprint(pkg: OctxPackage): Promise<string | null> {
  const config = await pkg.vectorConfig();
  return config === undefined ? null : computeVectorFingerprint(config);
}

async function withPackage<T>(source: string | OctxPackage, options: DiffOptions, use: (pkg: OctxPackage) => Promise<T>): Promise<T> {
  if (typeof source !== 'string') return use(source);
  const pkg = await openPackage(source, options.limits ? { limits: options.limits } : {});
  try {
    return await use(pkg);
  } finally {
    await pkg.close();
  }
}

/**
 * Compares two packages — typically two releases of one asset, or a derived asset and its
 * source — and returns what changed from `oldSource` to `newSource`: documents added, removed,
 * changed (bytes) and moved (same `octx.document_id`, new path); counts of records and links
 * added, removed, changed (canonical JSON differs) and unchanged; vector rows per target (values
 * or `input_sha256` differ, stale rows, config change); capabilities; extension files; and the
 * first ids of every category in `samples`.
 *
 * Streaming: per record kind only a compact id → digest table of the old package is held (about
 * 45 bytes a record, 61 a link), so two packages of a million chunks diff in ~100 MB.
 *
 * @param oldSource a path (`.octx` file or package folder) or a package from `openPackage` (left open)
 * @param newSource the same for the newer package
 * @throws OctxError `OCTX_OPTIONS_INVALID` (unknown option, bad `sampleSize`); every error of
 *   `openPackage` and of reading (`OCTX_FILE_DIGEST_MISMATCH`, `OCTX_JSON_INVALID`,
 *   `OCTX_RESOURCE_LIMIT`, …); `OCTX_SCHEMA_VALIDATION` for a record without a string id
 *   (or link id); `OCTX_ID_DUPLICATE` for an id (or link pair) found twice in one package.
 */
export async function diffPackages(oldSource: string | OctxPackage, newSource: string | OctxPackage, options: DiffOptions = {}): Promise<PackageDiff> {
  assertKnownKeys(options, keysOf<DiffOptions>({ sampleSize: true, onProgress: true, limits: true }), 'diffPackages options');
  const sampleSize = options.sampleSize ?? DEFAULT_SAMPLE_SIZE;
  if (!Number.isInteger(sampleSize) || sampleSize < 0 || sampleSize > MAX_SAMPLE_SIZE) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'sampleSize', message: `sampleSize must be an integer from 0 to ${MAX_SAMPLE_SIZE} (got ${String(sampleSize)})` });
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'onProgress', message: 'onProgress must be a function' });
  }
  const onProgress = options.onProgress;
  const run: Run = {
    sampleSize,
    ids: new IdKeys(),
    progress: (kind, n, total) => onProgress?.({ phase: 'diff', kind, completed: n, total: Math.max(n, total ?? n) }),
  };
  return withPackage(oldSource, options, (a) => withPackage(newSource, options, (b) => diffOpen(run, a, b)));
}

async function diffOpen(run: Run, a: OctxPackage, b: OctxPackage): Promise<PackageDiff> {
  const pkgs = [a, b] as const;
  const oldSide = await sideOf(a);
  const newSide = await sideOf(b);
  const documents = diffDocuments(await documentsOf(a), await documentsOf(b));
  run.progress('documents', documents.added.length + documents.changed.length + documents.unchanged + documents.moved.length);
  const extensions = diffExtensions(a, b);
  const [oldFp, newFp] = [await configFingerprint(a), await configFingerprint(b)];

  const idText = (key: Uint32Array): string => run.ids.text(key, 0);
  const records = {} as Record<string, RecordChangeCounts>;
  const vectors = {} as Record<string, VectorChangeCounts>;
  const samples: Record<string, unknown> = {};
  const vectorSamples: Record<string, unknown> = {};

  // Every kind of the table, in its order: a record by its id (then its vectors, while the
  // record table is at hand to tell stale rows), a relation by the pair of its two references.
  for (const kind of RECORD_KIND_ORDER) {
    const row: RecordKindSpec = RECORD_KINDS[kind];
    const key = diffKey(kind);
    const rowsOf = (pkg: OctxPackage): AsyncIterable<JsonlRecord<unknown>> => pkg.records(kind);
    if (row.role === 'record') {
      const reader: RowReader<JsonlRecord<unknown>> = {
        key: (r, out) => run.ids.put(idField(r, row.recordIdField, row.path), out, 0),
        digest: recordDigest,
        where: (r) => ({ line: r.line, recordId: idField(r, row.recordIdField, row.path) }),
      };
      const rec = await comparePass(run, key, row.path, rowsOf, pkgs, 4, reader, idText);
      records[key] = rec.counts;
      samples[key] = { added: rec.added, removed: rec.removed, changed: rec.changed };
      if (row.vectorTarget === undefined) continue;
      const v = await diffVectors(run, row.vectorTarget, pkgs, rec.table, oldFp !== newFp);
      vectors[row.vectorTarget] = v.counts;
      vectorSamples[row.vectorTarget] = v.samples;
      continue;
    }
    const [a, b] = row.idFields as readonly [string, string];
    const reader: RowReader<JsonlRecord<unknown>> = {
      key: (r, out) => {
        run.ids.put(idField(r, a, row.path), out, 0);
        run.ids.put(idField(r, b, row.path), out, 4);
      },
      digest: recordDigest,
      where: (r) => ({ line: r.line, recordId: `${idField(r, a, row.path)} ${idField(r, b, row.path)}` }),
    };
    const pair = (k: Uint32Array): LinkPair => [run.ids.text(k, 0), run.ids.text(k, 4)];
    const rec = await comparePass(run, key, row.path, rowsOf, pkgs, 8, reader, pair);
    records[key] = rec.counts;
    samples[key] = { added: rec.added, removed: rec.removed, changed: rec.changed };
  }

  samples.vectors = vectorSamples;
  const capsA = Object.keys(a.info.capabilities);
  const capsB = Object.keys(b.info.capabilities);
  const capabilities = { added: capsB.filter((c) => !capsA.includes(c)), removed: capsA.filter((c) => !capsB.includes(c)) };
  const result = {
    old: oldSide,
    new: newSide,
    relation: relationOf(oldSide, newSide),
    hasChanges: false,
    documents,
    extensions,
    records,
    vectors,
    capabilities,
    samples,
  } as unknown as PackageDiff;
  return { ...result, hasChanges: hasChanges(result) };
}

/** True when anything of the content differs (see {@link PackageDiff.hasChanges}). */
function hasChanges(d: PackageDiff): boolean {
  const doc = d.documents;
  if (doc.added.length + doc.removed.length + doc.changed.length + doc.moved.length > 0) return true;
  if (d.extensions.added.length + d.extensions.removed.length + d.extensions.changed.length > 0) return true;
  if (d.capabilities.added.length + d.capabilities.removed.length > 0) return true;
  for (const kind of RECORD_KIND_ORDER) {
    const c = d.records[diffKey(kind)];
    if (c.added + c.removed + c.changed > 0) return true;
  }
  for (const t of VECTOR_TARGETS) {
    const c = d.vectors[t];
    if (c.added + c.removed + c.changed > 0 || c.configChanged) return true;
  }
  return false;
}

/** One vector target: rows by record id, digest of the float32 bytes and `input_sha256`. */
async function diffVectors(
  run: Run,
  target: VectorTarget,
  pkgs: readonly [OctxPackage, OctxPackage],
  recordTable: KeyDigestTable,
  configDiffers: boolean,
): Promise<{ counts: VectorChangeCounts; samples: { added: readonly string[]; removed: readonly string[]; changed: readonly string[]; stale: readonly string[] } }> {
  const path = VECTOR_TARGET_PATHS[target];
  const reader: RowReader<VectorRow> = {
    key: (row, out) => run.ids.put(row.recordId, out, 0),
    digest: (row, out) => {
      const h = createHash('sha256').update(Buffer.from(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength));
      // A marker byte keeps "no input_sha256" apart from every digest string.
      h.update(row.inputSha256 === undefined ? '\u0000' : `\u0001${row.inputSha256}`);
      digestWords(h.digest(), out);
    },
    where: (row) => ({ recordId: row.recordId }),
  };
  const staleSample = new Sample<string>(run.sampleSize);
  let stale = 0;
  const onUnchanged = (key: Uint32Array, text: () => string): void => {
    const e = recordTable.find(key);
    if (e >= 0 && recordTable.mark(e) === CHANGED) {
      stale++;
      staleSample.offer(text);
    }
  };
  const v = await comparePass(
    run,
    `vectors ${target}`,
    path,
    (pkg) => pkg.vectors(target),
    pkgs,
    4,
    reader,
    (key) => run.ids.text(key, 0),
    onUnchanged,
  );
  const listed = pkgs.some((p) => p.info.files.some((f) => f.path === path));
  return {
    counts: { ...v.counts, stale, configChanged: configDiffers && listed },
    samples: { added: v.added, removed: v.removed, changed: v.changed, stale: staleSample.items },
  };
}
