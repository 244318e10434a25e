/**
 * Worker entry of {@link VerifyWorker}: re-opens the written archive with the package reader
 * (`workerData.octxVerify` holds its path and limits), says `{ ready }`, then verifies the entries
 * whose paths it is sent (the same per-entry check as the main thread, {@link verifyEntries}),
 * reporting `{ entry, bytes }` for each one checked and finally `{ issues }` aligned with the paths
 * (`null` for an intact entry). A failure is sent as `{ error }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ArchiveLimits } from '../model/limits.js';
import { openPackage, type ListedFile } from '../read/open-package.js';
import { verifyEntries } from './verify-entries.js';

/** Marks the workers this module serves (`workerData.octxVerify`). */
export const VERIFY_WORKER_MARK = 'octxVerify';

/** What a verify worker is started with. */
export interface VerifyWorkerData {
  readonly path: string;
  readonly limits?: Partial<ArchiveLimits>;
}

const port = parentPort;
// Loaded on the main thread too (so that both builds emit it): only a worker started by
// VerifyWorker answers, never another worker that happens to import the SDK.
const data = workerData as { [VERIFY_WORKER_MARK]?: VerifyWorkerData } | null;
if (port && data !== null && typeof data === 'object' && data[VERIFY_WORKER_MARK] !== undefined) {
  const { path, limits } = data[VERIFY_WORKER_MARK];
  const fail = (e: unknown): void => port.postMessage({ error: e instanceof Error ? e.message : String(e) });
  openPackage(path, limits ? { limits } : {}).then((pkg) => {
    const listed = new Map(pkg.listedFiles().map((f) => [f.path, f]));
    port.once('message', (paths: readonly string[]) => {
      const files = paths.map((p) => listed.get(p));
      // Not the manifest the main thread read: let it check these entries itself.
      if (files.some((f) => f === undefined)) return fail(new Error('the re-read manifest does not list every entry sent'));
      verifyEntries(pkg, files as ListedFile[], undefined, (entry, bytes) => port.postMessage({ entry, bytes }))
        .then((found) => port.postMessage({ issues: found.map((i) => i ?? null) }), fail)
        .finally(() => void pkg.close().catch(() => undefined));
    });
    port.postMessage({ ready: true });
  }, fail);
}
