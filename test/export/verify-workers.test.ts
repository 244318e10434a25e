// @module-tag heavy (verification on worker threads started from the sources: seconds)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type OctxError } from '../../src/model/errors.js';
import type { ProgressEvent, ProgressStep } from '../../src/model/progress.js';
import { verifyArchive } from '../../src/export/verify-archive.js';
import {
  othersBusyCores,
  overrideVerifyWorkerFile,
  sampleCpu,
  setVerifyWorkers,
  splitByBytes,
  verifyWorkerFor,
  verifyWorkersStarted,
  VERIFY_WORKER_MIN_BYTES,
} from '../../src/export/verify-thread.js';
import { AtomicOutput } from '../../src/package/atomic-output.js';
import { PackageBuilder, isOctxError } from '../../src/index.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';
import { xorshiftBytes } from '../helpers/bytes.js';
import { octxRejection as rejection } from '../helpers/octx-rejection.js';
import { VERIFY_FILES as FILES, VERIFY_LISTED as LISTED } from '../helpers/verify-fixture.js';
import { GUIDE_MD, entriesOf, manifestFor, writeZip, type FileMap } from '../read/helpers.js';

afterEach(() => {
  setVerifyWorkers('auto');
  overrideVerifyWorkerFile(undefined);
  vi.restoreAllMocks();
});

const DIGEST = manifestFor({ files: FILES }).release.package_digest as string;

/** The two groups of the listed entries, by path (the first is the main thread's). */
function groups(path: string): [string[], string[]] {
  const stored = new Map(inspectZip(readFileSync(path)).map((e) => [e.name, e.compressedSize]));
  const [a, b] = splitByBytes(LISTED.map((p) => stored.get(p) ?? 0));
  return [a.map((i) => LISTED[i]!), b.map((i) => LISTED[i]!)];
}

/** Flips one byte in the middle of each named entry's data. */
function damage(path: string, names: readonly string[]): void {
  const bytes = readFileSync(path);
  for (const name of names) {
    const e = inspectZip(bytes).find((x) => x.name === name)!;
    const at = e.localHeaderOffset + 30 + e.nameBytes.length + Math.floor(e.compressedSize / 2);
    bytes[at] = bytes[at]! ^ 0xff;
  }
  writeFileSync(path, bytes);
}

/** Verifies in-thread and on two threads; both must reject alike. Returns the two-thread error. */
async function sameOnBothPaths(path: string): Promise<OctxError> {
  setVerifyWorkers('never');
  const before = verifyWorkersStarted();
  const single = await rejection(verifyArchive(path, DIGEST, 'integrity'));
  expect(verifyWorkersStarted()).toBe(before);
  setVerifyWorkers('always');
  const two = await rejection(verifyArchive(path, DIGEST, 'integrity'));
  expect(verifyWorkersStarted()).toBe(before + 1);
  expect({ code: two.code, message: two.message, issues: two.issues }).toEqual({ code: single.code, message: single.message, issues: single.issues });
  return two;
}

describe('integrity verification on two threads (issue 23 item 4)', () => {
  it('splits entries into two groups of about equal bytes, largest first', () => {
    expect(splitByBytes([5, 1, 4, 3, 3])).toEqual([
      [0, 4],
      [1, 2, 3],
    ]);
    expect(splitByBytes([])).toEqual([[], []]);
    // auto: small packages, fewer than four cores, or no core left idle by other processes stay in-thread.
    expect(verifyWorkerFor(VERIFY_WORKER_MIN_BYTES - 1, 0, 4)).toBe(false);
    expect(verifyWorkerFor(VERIFY_WORKER_MIN_BYTES, 0, 4)).toBe(true);
    expect(verifyWorkerFor(VERIFY_WORKER_MIN_BYTES, 0, 2)).toBe(false);
    expect(verifyWorkerFor(VERIFY_WORKER_MIN_BYTES, 0, 1)).toBe(false);
    expect(verifyWorkerFor(VERIFY_WORKER_MIN_BYTES, 2.5, 4)).toBe(true);
    expect(verifyWorkerFor(VERIFY_WORKER_MIN_BYTES, 2.6, 4)).toBe(false);
    expect(verifyWorkerFor(VERIFY_WORKER_MIN_BYTES, 4.4, 6)).toBe(true);
    // Other processes' share: the machine's busy time less this process's own.
    const t0 = { busyMs: 10_000, ownMs: 500, at: 1_000 };
    expect(othersBusyCores(t0, { busyMs: 11_500, ownMs: 1_400, at: 2_000 })).toBeCloseTo(0.6);
    expect(othersBusyCores(t0, { busyMs: 11_000, ownMs: 1_500, at: 2_000 })).toBe(0);
    expect(othersBusyCores(t0, { busyMs: 10_100, ownMs: 550, at: 1_100 })).toBeUndefined();
    const now = sampleCpu();
    expect(now.busyMs).toBeGreaterThan(0);
    expect(now.ownMs).toBeGreaterThan(0);
    setVerifyWorkers('never');
    expect(verifyWorkerFor(10 * VERIFY_WORKER_MIN_BYTES, 0, 2)).toBe(false);
    setVerifyWorkers('always');
    expect(verifyWorkerFor(0, 9, 1)).toBe(true);
  });

  it('accepts an intact archive with a worker, reporting every entry once', async () => {
    const path = await writeZip(entriesOf({ files: FILES }));
    setVerifyWorkers('always');
    const before = verifyWorkersStarted();
    const events: ProgressStep[] = [];
    await verifyArchive(path, DIGEST, 'integrity', undefined, undefined, (e) => void (e.phase !== 'warning' && events.push(e)));
    expect(verifyWorkersStarted()).toBe(before + 1);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ phase: 'verify', completed: LISTED.length, total: LISTED.length });
    expect(last.bytes).toBe(last.totalBytes);
    expect(events.map((e) => e.completed)).toEqual([...Array(LISTED.length + 1).keys()]);
  });

  for (const store of [false, true]) {
    it(`finds a damaged entry in either group with the issues of the in-thread check (${store ? 'stored' : 'deflated'})`, async () => {
      const entries = entriesOf({ files: FILES });
      delete entries['extensions/x/f08.bin'];
      const path = await writeZip(entries, { store });
      const [mine, theirs] = groups(path);
      // The largest entry of each group, and one more small one.
      const damaged = [mine.find((p) => p !== 'extensions/x/f08.bin' && p.endsWith('1.bin'))!, theirs.find((p) => p.endsWith('5.bin'))!, 'knowledge/guide.md'];
      expect(damaged.every((p) => p !== undefined)).toBe(true);
      damage(path, damaged);
      const e = await sameOnBothPaths(path);
      expect(e.code).toBe('OCTX_INTEGRITY_ERROR');
      expect(e.issues.map((i) => i.path)).toEqual(LISTED.filter((p) => damaged.includes(p) || p === 'extensions/x/f08.bin'));
      expect(e.issues.some((i) => mine.includes(i.path!) && i.path !== 'extensions/x/f08.bin')).toBe(true);
      expect(e.issues.some((i) => theirs.includes(i.path!))).toBe(true);
    });
  }

  it('a damaged entry only in the worker group, and a wrong package digest, as in-thread', async () => {
    const path = await writeZip(entriesOf({ files: FILES }));
    const [, theirs] = groups(path);
    damage(path, [theirs[0]!]);
    const e = await sameOnBothPaths(path);
    expect(e.issues.map((i) => i.path)).toEqual([theirs[0]]);
    setVerifyWorkers('always');
    const digest = await rejection(verifyArchive(path, `sha256:${'0'.repeat(64)}`, 'integrity'));
    expect(digest.issues.map((i) => i.code)).toEqual(['OCTX_PACKAGE_DIGEST_MISMATCH', e.issues[0]!.code]);
  });

  it('verifies in-thread, silently, when the worker cannot start', async () => {
    const path = await writeZip(entriesOf({ files: FILES }));
    setVerifyWorkers('always');
    overrideVerifyWorkerFile(join(tmpdir(), 'octx-no-such-verify-worker.js'));
    const before = verifyWorkersStarted();
    await verifyArchive(path, DIGEST, 'integrity');
    const [, theirs] = groups(path);
    damage(path, [theirs[0]!]);
    const e = await rejection(verifyArchive(path, DIGEST, 'integrity'));
    expect(verifyWorkersStarted()).toBe(before);
    expect(e.code).toBe('OCTX_INTEGRITY_ERROR');
    expect(e.issues.map((i) => i.path)).toEqual([theirs[0]]);
  });

  it('verifies the worker group in-thread when the worker dies after it started', async () => {
    const path = await writeZip(entriesOf({ files: FILES }));
    const [, theirs] = groups(path);
    damage(path, [theirs[0]!]);
    setVerifyWorkers('never');
    const single = await rejection(verifyArchive(path, DIGEST, 'integrity'));
    // A worker that starts, takes its job and exits without an answer.
    const dying = join(tempDir(), 'dying-worker.cjs');
    writeFileSync(dying, "const { parentPort } = require('node:worker_threads');\nparentPort.postMessage({ ready: true });\nparentPort.once('message', () => process.exit(3));\n");
    setVerifyWorkers('always');
    overrideVerifyWorkerFile(dying);
    const before = verifyWorkersStarted();
    const events: ProgressStep[] = [];
    const e = await rejection(verifyArchive(path, DIGEST, 'integrity', undefined, undefined, (ev) => void (ev.phase !== 'warning' && events.push(ev))));
    expect(verifyWorkersStarted()).toBe(before + 1);
    expect({ code: e.code, message: e.message, issues: e.issues }).toEqual({ code: single.code, message: single.message, issues: single.issues });
    expect(events.at(-1)).toMatchObject({ completed: LISTED.length, total: LISTED.length });
  });

  it('on abort stops the worker and rejects with OCTX_ABORTED', async () => {
    // Large entries, so the worker is still reading when the abort comes.
    const big: FileMap = { 'knowledge/guide.md': GUIDE_MD, ...Object.fromEntries([0, 1, 2, 3].map((i) => [`extensions/x/b${i}.bin`, xorshiftBytes(24_000_000, i + 7)])) };
    const path = await writeZip(entriesOf({ files: big }), { store: true });
    const digest = manifestFor({ files: big }).release.package_digest as string;
    setVerifyWorkers('always');
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const before = verifyWorkersStarted();
    const c = new AbortController();
    const p = verifyArchive(path, digest, 'integrity', undefined, c.signal);
    // Abort once the worker has opened the archive and been sent its group.
    while (verifyWorkersStarted() === before) await sleep(1);
    await sleep(5);
    c.abort();
    // Stopped at once, not after it finished its group.
    expect(terminate).toHaveBeenCalled();
    const t0 = performance.now();
    expect((await rejection(p)).code).toBe('OCTX_ABORTED');
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(terminate).toHaveBeenCalled();
  });
});

describe('export: the fsync overlaps verification, and a failed verification publishes nothing', () => {
  function handbook(): PackageBuilder {
    return new PackageBuilder({
      asset: { id: '019c0000-0000-7000-8000-000000000001', name: 'Handbook' },
      release: { version: '1.0.0', createdAt: new Date('2026-07-12T10:00:00Z') },
    })
      .addDocument({ path: 'index.md', markdown: '---\nokf_version: "0.1"\n---\n# Handbook\n\n* [Setup](guides/setup.md) - first steps\n' })
      .addDocument({
        path: 'guides/setup.md',
        markdown: `---\ntype: Guide\noctx:\n  document_id: 019c0000-0000-7000-8000-000000000002\n---\n# Setup\n\n${'Install it. '.repeat(2000)}\n`,
      });
  }

  for (const workers of ['never', 'always'] as const) {
    it(`damaged while verifying (${workers === 'always' ? 'two threads' : 'in-thread'}): OCTX_INTEGRITY_ERROR, no output, no temporary file`, async () => {
      setVerifyWorkers(workers);
      const flush = vi.spyOn(AtomicOutput.prototype, 'startFlush');
      const commit = vi.spyOn(AtomicOutput.prototype, 'commit');
      const dir = tempDir();
      const out = join(dir, 'h.octx');
      let damaged = false;
      const onProgress = (e: ProgressEvent): void => {
        if (e.phase !== 'verify' || damaged) return;
        // The first verify event comes before any entry is read: damage the last payload entry.
        damaged = true;
        const temp = readdirSync(dir).find((n) => n.endsWith('.tmp'))!;
        const entry = inspectZip(readFileSync(join(dir, temp))).find((x) => x.name === 'knowledge/index.md')!;
        expect(entry).toBeDefined();
        damage(join(dir, temp), [entry.name]);
      };
      let error: unknown;
      try {
        await handbook().export({ output: out, onProgress });
      } catch (e) {
        error = e;
      }
      expect(damaged).toBe(true);
      expect(isOctxError(error) && error.code).toBe('OCTX_INTEGRITY_ERROR');
      expect(flush).toHaveBeenCalledTimes(1);
      expect(commit).not.toHaveBeenCalled();
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it('aborted while verifying on two threads: OCTX_ABORTED, the worker stopped, nothing left behind', async () => {
    setVerifyWorkers('always');
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const dir = tempDir();
    const out = join(dir, 'h.octx');
    const c = new AbortController();
    const before = verifyWorkersStarted();
    const onProgress = (e: ProgressEvent): void => {
      if (e.phase === 'verify') c.abort();
    };
    let error: unknown;
    try {
      await handbook().export({ output: out, onProgress, signal: c.signal });
    } catch (e) {
      error = e;
    }
    expect(isOctxError(error) && error.code).toBe('OCTX_ABORTED');
    expect(c.signal.aborted).toBe(true);
    // The worker was started for this export, and stopped.
    expect(verifyWorkersStarted()).toBeLessThanOrEqual(before + 1);
    expect(terminate).toHaveBeenCalled();
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a failed background flush fails the publish (its error is not lost to a later fsync)', async () => {
    const probe = await open(join(tempDir(), 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const real = proto.sync;
    let calls = 0;
    const eio = Object.assign(new Error('input/output error'), { code: 'EIO', syscall: 'fsync' });
    // The first fsync (the background flush) fails; any later one would succeed.
    vi.spyOn(proto, 'sync').mockImplementation(function (this: unknown) {
      calls += 1;
      return calls === 1 ? Promise.reject(eio) : real.call(this);
    });
    const flush = vi.spyOn(AtomicOutput.prototype, 'startFlush');
    const dir = tempDir();
    const out = join(dir, 'h.octx');
    let error: unknown;
    try {
      await handbook().export({ output: out });
    } catch (e) {
      error = e;
    }
    expect(flush).toHaveBeenCalledTimes(1);
    expect(error).toBeDefined();
    expect(String((error as Error).message)).toContain('input/output error');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('publishes the same bytes with and without the worker', async () => {
    const dir = tempDir();
    setVerifyWorkers('never');
    await handbook().export({ output: join(dir, 'a.octx') });
    setVerifyWorkers('always');
    const before = verifyWorkersStarted();
    await handbook().export({ output: join(dir, 'b.octx') });
    expect(verifyWorkersStarted()).toBe(before + 1);
    expect(readFileSync(join(dir, 'b.octx')).equals(readFileSync(join(dir, 'a.octx')))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['a.octx', 'b.octx']);
  });
});
