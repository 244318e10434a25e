/**
 * Worker entry of {@link VerifyWorker}: once its modules are loaded it says `{ ready }` (it is
 * started while the archive is still being written, so that start-up overlaps the writing); then,
 * sent a {@link VerifyJob}, it re-opens the written archive with the package reader and verifies
 * the entries at the job's paths (the same per-entry check as the main thread,
 * {@link verifyEntries}), reporting `{ entry, bytes }` for each one checked and finally
 * `{ issues }` aligned with the paths (`null` for an intact entry). A failure is sent as `{ error }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ArchiveLimits } from '../model/limits.js';
import { openPackage, type ListedFile } from '../read/open-package.js';
import { verifyEntries } from './verify-entries.js';

/** Marks the workers this module serves (`workerData.octxVerify`). */
export const VERIFY_WORKER_MARK = 'octxVerify';

/** What a verify worker is sent: the archive and the entries it verifies. */
export interface VerifyJob {
  readonly path: string;
  readonly limits?: Partial<ArchiveLimits>;
  readonly paths: readonly string[];
}

const port = parentPort;
// Loaded on the main thread too (so that both builds emit it): only a worker started by
// VerifyWorker answers, never another worker that happens to import the SDK.
const data = workerData as { [VERIFY_WORKER_MARK]?: true } | null;
if (port && data !== null && typeof data === 'object' && data[VERIFY_WORKER_MARK] === true) {
  const fail = (e: unknown): void => port.postMessage({ error: e instanceof Error ? e.message : String(e) });
  port.once('message', (job: VerifyJob) => {
    openPackage(job.path, job.limits ? { limits: job.limits } : {}).then((pkg) => {
      const listed = new Map(pkg.listedFiles().map((f) => [f.path, f]));
      const files = job.paths.map((p) => listed.get(p));
      // Not the manifest the main thread read: let it check these entries itself.
      if (files.some((f) => f === undefined)) {
        fail(new Error('the re-read manifest does not list every entry sent'));
        return pkg.close();
      }
      return verifyEntries(pkg, files as ListedFile[], undefined, (entry, bytes) => port.postMessage({ entry, bytes }))
        .then((found) => port.postMessage({ issues: found.map((i) => i ?? null) }), fail)
        .finally(() => pkg.close().catch(() => undefined));
    }, fail);
  });
  port.postMessage({ ready: true });
}
