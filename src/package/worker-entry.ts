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

/**
 * The file name of the first stack frame whose file is `<callerName>.<js|cjs|mjs|ts>`, read from
 * V8's structured call sites, not from the stack text: a path with a space or a `(` (`C:\Program
 * Files (x86)\…`) cannot be cut out of the text reliably, and the application's
 * `Error.stackTraceLimit` could leave the frame out. Both hooks are restored at once.
 */
export function callerFile(callerName: string): string | undefined {
  const holder: { stack?: unknown } = {};
  // Saved to be put back as it was, never called here.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  try {
    Error.prepareStackTrace = (_error, sites) => sites;
    Error.stackTraceLimit = 50;
    Error.captureStackTrace(holder);
    const sites = holder.stack as NodeJS.CallSite[] | undefined;
    for (const site of sites ?? []) {
      const name = site.getFileName();
      if (name === undefined || name === null) continue;
      const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
      if (/^(.*)\.(js|cjs|mjs|ts)$/.exec(base)?.[1] === callerName) return name;
    }
    return undefined;
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}

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
  const own = callerFile(callerName);
  if (own === undefined) return undefined;
  const m = /^(.*[\\/])[^\\/]+\.(js|cjs|mjs|ts)$/.exec(own);
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
