/**
 * Where the entry file of one of the SDK's worker threads is (the structure scan of `read/`, the
 * archive verification of `export/`).
 *
 * The calling module runs from the ESM build (`dist/<folder>/`), the CommonJS build
 * (`dist/cjs/<folder>/`) or from TypeScript sources under tsx/vitest, and `import.meta` does not
 * exist in the CommonJS build. The frame of the caller in a stack trace names its own file in
 * every mode (a `file:` URL or a path); the worker is its sibling with the same extension (a `.ts`
 * sibling is loaded through tsx's API, which the tests have). When that fails the caller works
 * in-thread, as it does when a worker does not start.
 */
import { pathToFileURL } from 'node:url';

/** What `new Worker(file, { eval })` needs to start a worker entry. */
export interface WorkerEntry {
  readonly file: string | URL;
  readonly eval?: boolean;
}

/**
 * The worker file `<workerName>.<ext>` beside the module `<callerName>.<ext>`, which must be on
 * the stack (call this synchronously from that module); `undefined` when the stack does not name
 * it. Names are bare module names without extension (`record-scan-pool`).
 */
export function siblingWorkerEntry(callerName: string, workerName: string): WorkerEntry | undefined {
  const stack = new Error().stack ?? '';
  const escaped = callerName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`((?:file:\\/\\/)?[^\\s()]*?)${escaped}\\.(js|cjs|mjs|ts)(?=:\\d+:\\d+)`).exec(stack);
  if (!m) return undefined;
  const [, dir, ext] = m as unknown as [string, string, string];
  const name = `${dir}${workerName}.${ext}`;
  const file = name.startsWith('file:') ? new URL(name) : name;
  if (ext !== 'ts') return { file };
  // Sources (tests, tsx): the worker registers tsx's loader itself, then imports the entry
  // (`--import tsx` in a worker's execArgv does not apply to its entry on Node 20).
  const url = typeof file === 'string' ? pathToFileURL(file).href : file.href;
  return { file: `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url)}); });`, eval: true };
}
