import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { OctxError, type OctxIssue } from '../model/errors.js';
import { acquireStateLock } from './state-lock.js';
import { readRegularFileSync } from '../package/regular-file.js';
import { fsFailure } from '../model/fs-errors.js';
import { createMissingFolders, removeCreatedFolders } from '../package/created-folders.js';
import { UUID_V7_PATTERN } from '../model/ids.js';
import { bumpSemVer, compareSemVer, isSemVer } from '../model/semver.js';
import { isOctxTime } from '../model/time.js';
import { IdLedger } from './id-ledger.js';
import { perLedgerKind, type LedgerIds } from './ledger-kinds.js';

/** One released version, as the producer remembers it. */
export interface ReleaseRecord {
  readonly created_at: string;
  readonly package_digest: string;
  /** Digest of the manifest without `release`: what the package says apart from its version and time. */
  readonly content_digest: string;
  /**
   * Where the package was written, relative to the state file's folder (so a later build can
   * print what changed since it while it is still on disk). Absent in releases recorded before
   * it was kept, and for a package written to stdout.
   */
  readonly output?: string;
}

export { IdLedger, entityIdentityKey, type EntityIdentity } from './id-ledger.js';
export { LEDGER_KINDS, type LedgerKind, type LedgerIds } from './ledger-kinds.js';

/**
 * The producer state file: the asset's identity, every released version, the document ids by
 * path, and the id ledger (producer key → UUIDv7). It lives outside the package and is written
 * atomically, only after a successful export.
 */
export interface ProducerStateData {
  readonly format: 'octx-export/producer-state';
  readonly version: 1;
  readonly asset?: { readonly id: string; readonly name: string };
  readonly releases: Readonly<Record<string, ReleaseRecord>>;
  /** `knowledge/…` path → `octx.document_id` minted for it. */
  readonly documents: Readonly<Record<string, string>>;
  readonly ids: LedgerIds;
  /**
   * `knowledge/…` path → the similarity signature of its body in the latest release (written by a
   * folder build: the next build finds a renamed page by it and keeps its id). Opaque here.
   */
  readonly signatures?: Readonly<Record<string, string>>;
}

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const uuid = z.string().regex(UUID_V7_PATTERN);
/** A key → UUIDv7 map, checked by hand: a million-entry ledger must load in well under a second. */
function isIdMap(v: unknown): v is Record<string, string> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  for (const id of Object.values(v)) if (typeof id !== 'string' || !UUID_V7_PATTERN.test(id)) return false;
  return true;
}
const idMap = z.custom<Record<string, string>>(isIdMap, { error: 'must map keys to canonical UUIDv7 ids' });

const stateSchema = z.object({
  format: z.literal('octx-export/producer-state'),
  version: z.literal(1),
  asset: z.object({ id: uuid, name: z.string().min(1) }).optional(),
  releases: z.record(
    z.string().refine(isSemVer),
    z.object({ created_at: z.string().refine(isOctxTime), package_digest: digest, content_digest: digest, output: z.string().min(1).optional() }),
  ),
  documents: idMap,
  ids: z.object(perLedgerKind(() => idMap)),
  signatures: z.record(z.string(), z.string()).optional(),
});

function emptyState(): ProducerStateData {
  return { format: 'octx-export/producer-state', version: 1, releases: {}, documents: {}, ids: perLedgerKind(() => ({})) };
}

/**
 * A producer's memory between exports (OCTX-REFERENCE §7, §9, §13): which versions were released
 * with which digest, so a release can be protected and an unchanged rebuild is byte-identical.
 */
export class ProducerState {
  /** Absolute path of the state file. */
  readonly path: string;
  #data: ProducerStateData;
  /** The id ledger (persisted with the state). */
  readonly ids: IdLedger;

  private constructor(path: string, data: ProducerStateData) {
    this.path = path;
    this.#data = data;
    this.ids = new IdLedger(data.ids);
  }

  /**
   * Takes the state's exclusive lock (`<state>.lock`, which appears atomically holding the owner's
   * PID, host and start time: see `state-lock.ts`) so two exports cannot check and record releases
   * at the same time, then re-reads the releases from disk. Returns the function that releases the
   * lock. A stale lock — left by a process that is gone (same host, dead PID: a SIGKILLed or
   * crashed export), or recording no owner and older than `UNRECORDED_LOCK_STALE_MS` (5 s) — is
   * taken over atomically (one of two contenders wins), and `onTakeover` receives an
   * `OCTX_STATE_LOCK_TAKEN_OVER` warning naming it.
   *
   * The lock file needs the state's folder, so missing folders are created here; releasing the
   * lock removes the ones it created again (innermost first, only while empty) when no state file
   * was written there, so a refused or failed export leaves no empty folder behind. A state file
   * that was written keeps its folders.
   * @throws OctxError `OCTX_STATE_LOCKED` when another export holds the lock (the message names
   *   it, or says that no owner was recorded)
   */
  async lock(onTakeover?: (warning: OctxIssue) => void): Promise<() => Promise<void>> {
    const lockPath = `${this.path}.lock`;
    const folder = dirname(this.path);
    const createdDirs = await createMissingFolders(
      folder,
      (e) => new OctxError('OCTX_IO_ERROR', `cannot create the folder of producer state ${folder}: ${(e as Error).message}`, { cause: e }),
    );
    let unlock: () => Promise<void>;
    try {
      unlock = await acquireStateLock(lockPath, this.path, onTakeover);
    } catch (e) {
      await removeEmptyFolders(createdDirs, this.path);
      throw e;
    }
    const release = async (): Promise<void> => {
      await unlock();
      await removeEmptyFolders(createdDirs, this.path);
    };
    try {
      const fresh = ProducerState.load(this.path);
      this.#data = { ...fresh.#data, ids: this.ids.toJSON() };
    } catch (e) {
      await release();
      throw e;
    }
    return release;
  }

  /**
   * The version and time to publish. A requested version is used as given. Without one, content
   * identical to the latest release rebuilds that release (same version, same time: the same
   * bytes); changed content gets the next patch version. An already released version keeps its
   * recorded time unless `createdAt` is given.
   */
  resolveRelease(requested: { version?: string; createdAt?: string }, contentDigest: string, now: string): { version: string; createdAt: string } {
    const latest = this.latestVersion;
    const version = requested.version ?? (latest !== undefined && this.#data.releases[latest]!.content_digest === contentDigest ? latest : nextVersion(this));
    return { version, createdAt: requested.createdAt ?? this.#data.releases[version]?.created_at ?? now };
  }

  /** The state file's current text (to restore it if publishing fails after it was written). */
  async backup(): Promise<string | undefined> {
    try {
      return await readFile(this.path, 'utf8');
    } catch {
      return undefined;
    }
  }

  /** Puts back a state file saved by {@link ProducerState.backup}. */
  async restore(text: string | undefined): Promise<void> {
    if (text === undefined) await rm(this.path, { force: true });
    else await writeFileAtomic(this.path, text);
    const again = ProducerState.load(this.path);
    this.#data = { ...again.#data, ids: this.ids.toJSON() };
  }

  /**
   * Loads a state file, or starts an empty state when it does not exist.
   * @throws OctxError `OCTX_STATE_INVALID` when the file exists but is not a valid state
   */
  static load(path: string): ProducerState {
    const abs = resolve(path);
    let text: string;
    try {
      // Not readFileSync: a FIFO (or device) named as the state must be refused, not waited on.
      text = readRegularFileSync(abs);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new ProducerState(abs, emptyState());
      throw fsFailure(e, { path: abs, field: 'state', action: 'read producer state', invalidCode: 'OCTX_STATE_INVALID', ioCode: 'OCTX_STATE_INVALID' });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw OctxError.of({ code: 'OCTX_STATE_INVALID', path: abs, message: `producer state is not JSON: ${(e as Error).message}` });
    }
    const parsed = stateSchema.safeParse(raw);
    if (!parsed.success) {
      const first = parsed.error.issues[0]!;
      throw OctxError.of({ code: 'OCTX_STATE_INVALID', path: abs, field: first.path.join('.'), message: `producer state is not valid: ${first.path.join('.')} ${first.message}` });
    }
    return new ProducerState(abs, parsed.data);
  }

  /** The asset recorded by earlier exports. */
  get asset(): ProducerStateData['asset'] {
    return this.#data.asset;
  }

  /** Every released version with its record. */
  get releases(): Readonly<Record<string, ReleaseRecord>> {
    return this.#data.releases;
  }

  /** The highest released version by SemVer precedence, if any. */
  get latestVersion(): string | undefined {
    return Object.keys(this.#data.releases).sort(compareSemVer).at(-1);
  }

  /**
   * The absolute path the latest release was written to, when it was recorded (see
   * {@link ReleaseRecord.output}); whether the file is still there is the caller's question.
   */
  get latestOutput(): string | undefined {
    const latest = this.latestVersion;
    const output = latest === undefined ? undefined : this.#data.releases[latest]!.output;
    return output === undefined ? undefined : resolve(dirname(this.path), output);
  }

  /** The record of `release.output` for a package written to `absolutePath`: relative to the state file's folder. */
  outputFor(absolutePath: string): string {
    return relative(dirname(this.path), absolutePath).split(sep).join('/');
  }

  /** Ids carried from a gone path to a new one for this export (`carryDocumentId`), by the new path. */
  readonly #carried = new Map<string, string>();
  /** Paths whose id was carried away: the next state no longer names them. */
  readonly #carriedFrom = new Set<string>();
  /** Signatures recorded for this export (`recordSignature`); they replace the state's at release. */
  readonly #signatures = new Map<string, string>();

  /** The document id recorded for a `knowledge/…` path (or carried to it by {@link carryDocumentId}). */
  documentIdFor(path: string): string | undefined {
    return this.#carried.get(path) ?? (this.#carriedFrom.has(path) ? undefined : this.#data.documents[path]);
  }

  /** The similarity signatures of the latest release's documents, by `knowledge/…` path. */
  get signatures(): Readonly<Record<string, string>> {
    return this.#data.signatures ?? {};
  }

  /**
   * Gives the document at `to` the id recorded for `from` (a renamed page): `from` is no longer
   * given an id, and the state written at release names the id under `to` only.
   * @returns the id carried, or `undefined` when `from` has none
   */
  carryDocumentId(from: string, to: string): string | undefined {
    const id = this.#data.documents[from];
    if (id === undefined) return undefined;
    this.#carried.set(to, id);
    this.#carriedFrom.add(from);
    return id;
  }

  /** Records a document's similarity signature for the release being exported. */
  recordSignature(path: string, signature: string): void {
    this.#signatures.set(path, signature);
  }

  /**
   * Checks that publishing `version` with these digests keeps the release rules: the same
   * version never gets different content (an identical rebuild is fine), and a new version must
   * be above every released one (OCTX-REFERENCE §13: going backwards is refused).
   * @throws OctxError `OCTX_RELEASE_CONFLICT` or `OCTX_RELEASE_VERSION_REQUIRED`
   */
  assertPublishable(version: string, packageDigest: string, contentDigest: string): void {
    const same = this.#data.releases[version];
    if (same) {
      if (same.package_digest === packageDigest) return;
      throw OctxError.of({
        code: 'OCTX_RELEASE_CONFLICT',
        field: 'release.version',
        message: `version ${version} was already released with digest ${same.package_digest}; this content gives ${packageDigest}. Publish it as a higher version (next: ${nextVersion(this)})`,
      });
    }
    const latest = this.latestVersion;
    if (latest !== undefined && compareSemVer(version, latest) <= 0) {
      const changed = this.#data.releases[latest]!.content_digest !== contentDigest;
      throw OctxError.of({
        code: 'OCTX_RELEASE_VERSION_REQUIRED',
        field: 'release.version',
        message: `${changed ? 'content changed since' : 'versions never go back below'} ${latest}, so a new release needs a version higher than ${latest} (got ${version}; next: ${nextVersion(this)})`,
      });
    }
  }

  /** Records a successful release and the ids used, and writes the state file atomically. */
  async recordRelease(input: { assetId: string; assetName: string; version: string; release: ReleaseRecord; documents: Readonly<Record<string, string>> }): Promise<void> {
    const releases = { ...this.#data.releases, [input.version]: input.release };
    const sortedReleases = Object.fromEntries(
      Object.keys(releases)
        .sort(compareSemVer)
        .map((v) => [v, releases[v]!]),
    );
    const kept = Object.entries(this.#data.documents).filter(([path]) => !this.#carriedFrom.has(path));
    const documents = { ...Object.fromEntries(kept), ...input.documents };
    // Signatures describe one release: a build that recorded some replaces them all.
    const signatures = this.#signatures.size > 0 ? sortedRecord(this.#signatures) : this.#data.signatures;
    this.#data = {
      format: 'octx-export/producer-state',
      version: 1,
      asset: { id: input.assetId, name: input.assetName },
      releases: sortedReleases,
      documents: Object.fromEntries(Object.entries(documents).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      ids: this.ids.toJSON(),
      ...(signatures !== undefined ? { signatures } : {}),
    };
    await writeFileAtomic(this.path, `${JSON.stringify(this.#data, null, 2)}\n`);
  }
}

function sortedRecord(map: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The version to publish next: `patch` bump of the latest released version, or `1.0.0`. */
export function nextVersion(state: ProducerState, part: 'major' | 'minor' | 'patch' = 'patch'): string {
  const latest = state.latestVersion;
  return latest === undefined ? '1.0.0' : bumpSemVer(latest, part);
}

/**
 * Removes `dirs` (created for the state, outermost first) innermost first, unless the state file
 * exists; rmdir refuses a folder that holds anything else (the package, another file). Best effort.
 */
async function removeEmptyFolders(dirs: readonly string[], statePath: string): Promise<void> {
  if (dirs.length === 0) return;
  if (
    await stat(statePath).then(
      () => true,
      () => false,
    )
  )
    return;
  await removeCreatedFolders(dirs);
}

async function writeFileAtomic(path: string, text: string): Promise<void> {
  // Normally there already: the lock, taken before anything is recorded, created the folder.
  await createMissingFolders(dirname(path), (e) => new OctxError('OCTX_IO_ERROR', `could not write producer state ${path}: ${(e as Error).message}`, { cause: e }));
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fh = await open(temp, 'wx');
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, path);
  } catch (e) {
    await rm(temp, { force: true });
    throw new OctxError('OCTX_IO_ERROR', `could not write producer state ${path}: ${(e as Error).message}`, { cause: e });
  }
}
