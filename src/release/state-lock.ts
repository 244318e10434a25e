/**
 * The producer state's exclusive lock, `<state>.lock`: two runs sharing one state file would
 * otherwise each read it, then write their own releases and ids over the other's.
 *
 * - A lock appears atomically with its owner record in it: the record (PID, host, start time and
 *   a random token) is written to a temporary file which is then hard-linked to the lock name;
 *   `link()` fails with EEXIST when a lock is there. So a lock written by this code is never
 *   empty.
 * - A lock is stale when its owner ran on this host and its PID is dead, or when it records no
 *   owner (empty or unreadable: an older version killed between creating and writing it) and was
 *   last written over {@link UNRECORDED_LOCK_STALE_MS} ago. A lock of another host is never stale.
 * - A stale lock is never removed (`rm` could delete a lock another process has just created).
 *   It is replaced by `rename()`, and only by the one process that first creates the take-over
 *   marker of that very lock file: `<state>.lock.takeover-<inode>-<mtime>`, created like a lock
 *   (link, EEXIST for everyone else). The marker's holder re-reads the lock, and only if it is
 *   still the same stale file (inode, mtime, size, text) renames its own lock over it, then reads
 *   it back. Another contender finds the marker held by a live process and is refused with
 *   `OCTX_STATE_LOCKED`: one of two contenders loses, deterministically. A marker left by a
 *   contender killed mid-take-over is itself stale and taken over the same way.
 * - Releasing removes the lock only while it still holds this process's record.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import { link, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { fsFailure } from '../model/fs-errors.js';
import { currentOwner, isOwnerGone, isPidDead, parseOwner, type ProcessOwner } from '../package/process-owner.js';
import { fileKind } from '../package/regular-file.js';

/** A lock that records no owner (empty or unreadable) is stale once it was last written this long ago. */
export const UNRECORDED_LOCK_STALE_MS = 5_000;

/** How deep take-overs of take-over markers go (each level needs a process killed mid-take-over). */
const MAX_DEPTH = 3;
/** How often a contender tries again when the lock it read disappeared or changed meanwhile. */
const MAX_ATTEMPTS = 5;

/** A temporary lock record of a dead PID is removed once it is this old. */
const LEFTOVER_RECORD_MS = 60_000;

/** A lock file as read: its text, owner record and identity. */
interface SeenLock {
  readonly text: string;
  readonly owner: ProcessOwner | undefined;
  readonly ino: bigint;
  readonly mtimeNs: bigint;
  readonly size: bigint;
}

/**
 * Takes `lockPath`, taking over a stale lock; returns the function that releases it.
 * @param statePath the state file, for messages
 * @param onTakeover receives `OCTX_STATE_LOCK_TAKEN_OVER` (a warning) when a stale lock was replaced
 * @throws OctxError `OCTX_STATE_LOCKED` when a live export holds the lock (or is taking over a
 *   stale one); `OCTX_STATE_INVALID` when the lock path is not a regular file; `OCTX_IO_ERROR`
 */
export async function acquireStateLock(lockPath: string, statePath: string, onTakeover?: (warning: OctxIssue) => void): Promise<() => Promise<void>> {
  const text = `${JSON.stringify({ ...currentOwner(), token: randomBytes(12).toString('hex') })}\n`;
  const temp = join(dirname(lockPath), `.${basename(lockPath)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { flag: 'wx' });
  } catch (e) {
    throw fsFailure(e, { path: temp, field: 'state', action: `write the lock record of producer state ${statePath} to`, invalidCode: 'OCTX_IO_ERROR' });
  }
  try {
    const replaced = await claim(lockPath, lockPath, temp, text, 0);
    if (replaced) onTakeover?.(takeoverWarning(lockPath, replaced));
  } finally {
    await rm(temp, { force: true });
  }
  await sweepTakeoverLeftovers(lockPath);
  heldLocks.set(lockPath, text);
  return async () => {
    heldLocks.delete(lockPath);
    const now = await readLock(lockPath).catch(() => undefined);
    if (now?.text === text) await rm(lockPath, { force: true });
  };
}

/** Locks this process holds: lock path → our record. */
const heldLocks = new Map<string, string>();

/**
 * Releases every state lock this process holds, synchronously: for a signal handler that is about
 * to re-raise the signal (the CLI's), so an interrupted export leaves no lock for the next run to
 * take over. A lock that no longer holds our record is left alone. Best effort.
 */
export function releaseStateLocksSync(): void {
  for (const [lockPath, text] of heldLocks) {
    try {
      // O_NONBLOCK: the path held our lock a moment ago, but never wait on whatever is there now.
      const fd = openSync(lockPath, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
      let mine = false;
      try {
        const buf = Buffer.alloc(4096);
        mine = fstatSync(fd).isFile() && buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8') === text;
      } finally {
        closeSync(fd);
      }
      if (mine) rmSync(lockPath, { force: true });
    } catch {
      // gone already
    }
  }
  heldLocks.clear();
}

/**
 * Creates `path` as a link to `temp` (our record), taking over a stale file there. Returns the
 * stale lock that was replaced, or undefined when `path` was free.
 */
async function claim(path: string, lockPath: string, temp: string, text: string, depth: number): Promise<SeenLock | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await createExclusive(path, temp, text)) return undefined;
    const seen = await readLock(path);
    if (seen === undefined) continue; // released meanwhile: try again
    if (!isStale(seen, Date.now()) || depth >= MAX_DEPTH) throw locked(lockPath, seen, depth > 0);
    // Exactly one contender creates the marker of this very lock file; the others are refused.
    const marker = `${lockPath}.takeover-${seen.ino}-${seen.mtimeNs}`;
    await claim(marker, lockPath, temp, text, depth + 1);
    try {
      const again = await readLock(path);
      if (again === undefined || !sameLock(again, seen)) continue; // someone else dealt with it
      // rename() consumes its source: move a fresh link of our record, keep `temp` for later levels.
      const mover = `${temp}.${depth}`;
      await link(temp, mover);
      await rename(mover, path).catch(async (e: unknown) => {
        await rm(mover, { force: true });
        throw e;
      });
      const mine = await readLock(path);
      if (mine?.text !== text) throw locked(lockPath, mine ?? seen, false);
      return seen;
    } catch (e) {
      throw fsFailure(e, { path: lockPath, field: 'state', action: 'take over the producer state lock', invalidCode: 'OCTX_IO_ERROR' });
    } finally {
      await rm(marker, { force: true });
    }
  }
  const last = await readLock(path);
  throw last ? locked(lockPath, last, depth > 0) : new OctxError('OCTX_STATE_LOCKED', `the producer state lock ${lockPath} kept changing; retry`);
}

/**
 * Links `temp` to `path`; false when `path` exists. File systems without hard links (exFAT, some
 * network mounts) get an O_EXCL create and write: the lock may be empty for an instant there,
 * which is why an empty lock is stale only after {@link UNRECORDED_LOCK_STALE_MS}.
 */
async function createExclusive(path: string, temp: string, text: string): Promise<boolean> {
  try {
    await link(temp, path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') {
      throw fsFailure(e, { path, field: 'state', action: 'create the producer state lock', invalidCode: 'OCTX_IO_ERROR' });
    }
  }
  try {
    await writeFile(path, text, { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw fsFailure(e, { path, field: 'state', action: 'create the producer state lock', invalidCode: 'OCTX_IO_ERROR' });
  }
}

/**
 * Reads a lock file without blocking (O_NONBLOCK: a FIFO there must not hang the export); undefined
 * when it does not exist.
 * @throws OctxError `OCTX_STATE_INVALID` when it is not a regular file
 */
async function readLock(path: string): Promise<SeenLock | undefined> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsFailure(e, { path, field: 'state', action: 'read the producer state lock', invalidCode: 'OCTX_STATE_INVALID' });
  }
  try {
    const s = await fh.stat({ bigint: true });
    if (!s.isFile()) {
      throw OctxError.of({ code: 'OCTX_STATE_INVALID', path, field: 'state', message: `the producer state lock ${path} is ${fileKind(s)}, not a regular file; remove it` });
    }
    // An owner record is ~150 bytes: more is not one (and is not read whole).
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    return { text, owner: parseOwner(text), ino: s.ino, mtimeNs: s.mtimeNs, size: s.size };
  } finally {
    await fh.close();
  }
}

function isStale(seen: SeenLock, now: number): boolean {
  if (seen.owner) return isOwnerGone(seen.owner);
  return now - Number(seen.mtimeNs / 1_000_000n) > UNRECORDED_LOCK_STALE_MS;
}

function sameLock(a: SeenLock, b: SeenLock): boolean {
  return a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.size === b.size && a.text === b.text;
}

function holderOf(seen: SeenLock): string {
  const o = seen.owner;
  return o ? `process ${o.pid} on ${o.host}, started ${o.started}` : 'no owner was recorded in it';
}

function ageOf(seen: SeenLock): string {
  return `${Math.max(0, Math.round((Date.now() - Number(seen.mtimeNs / 1_000_000n)) / 100) / 10)} s`;
}

/** `OCTX_STATE_LOCKED`, naming the holder or saying that none was recorded. */
function locked(lockPath: string, seen: SeenLock, takingOver: boolean): OctxError {
  let message: string;
  if (takingOver) message = `another export (${holderOf(seen)}) is taking over the stale producer state lock ${lockPath}; retry when it is done`;
  else if (seen.owner) message = `another export holds the producer state lock ${lockPath} (${holderOf(seen)}); wait for it, or delete the file if no export is running`;
  else
    message = `the producer state lock ${lockPath} exists, but no owner was recorded in it (last written ${ageOf(seen)} ago; such a lock counts as stale after ${UNRECORDED_LOCK_STALE_MS / 1000} s); retry in a few seconds, or delete the file if no export is running`;
  return OctxError.of({ code: 'OCTX_STATE_LOCKED', path: lockPath, message });
}

function takeoverWarning(lockPath: string, stale: SeenLock): OctxIssue {
  const o = stale.owner;
  const message = o
    ? `took over the producer state lock of process ${o.pid} on ${o.host} (started ${o.started}), which is no longer running`
    : `took over the producer state lock, which recorded no owner and was last written ${ageOf(stale)} ago (an export was killed while creating it)`;
  return issue({ code: 'OCTX_STATE_LOCK_TAKEN_OVER', severity: 'warning', path: lockPath, message });
}

/**
 * Removes the take-over markers and temporary records killed contenders left beside the lock.
 * Safe while holding the lock: a marker names a lock file that is no longer there (the lock is
 * ours now), so whoever holds one only finds that the lock changed and backs off. Best effort.
 */
async function sweepTakeoverLeftovers(lockPath: string): Promise<void> {
  const dir = dirname(lockPath);
  const base = basename(lockPath);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const path = join(dir, name);
    if (name.startsWith(`${base}.takeover-`)) {
      await rm(path, { force: true }).catch(() => undefined);
      continue;
    }
    // A record's name carries a PID but no host: only old ones go (the folder may be shared).
    const temp = name.startsWith(`.${base}.`) ? /^(\d+)\.[0-9a-f]{12}\.tmp(\.\d+)?$/.exec(name.slice(base.length + 2)) : null;
    if (!temp || !isPidDead(Number(temp[1]))) continue;
    const old = await stat(path).then(
      (s) => now - s.mtimeMs > LEFTOVER_RECORD_MS,
      () => false,
    );
    if (old) await rm(path, { force: true }).catch(() => undefined);
  }
}
