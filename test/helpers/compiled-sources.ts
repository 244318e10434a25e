/**
 * The shared resource `compiled-sources`: src/ compiled to JavaScript once per test run, for the
 * processes tests start (the CLI above all).
 *
 * Why: `node --import tsx src/cli/main.ts` compiles the CLI's whole module graph in every process
 * (tsx's loader thread and transform: about 0.5 s of CPU before the command starts), and the
 * suite starts hundreds of them. Here esbuild compiles each module once per run, file by file
 * (no bundling: every module keeps its own file, so the worker entries beside their callers,
 * `import.meta.url` and lazy imports behave as under tsx), with the options tsx uses (ESM, the
 * running Node as target, names kept, inline source maps). It is always the sources of this
 * run: nothing depends on `npm run build` or on how fresh dist/ is.
 *
 * Layout: `<dir>/package/src/**.js`, and beside `src/` a link to every other top-level entry of
 * the repository (package.json, node_modules, fixtures, …), so that what a module finds relative
 * to itself (`../../package.json`, the shipped `fixtures/`) and its dependencies resolve as they
 * do from the repository.
 */
import { readdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sharedResource, type SharedResource } from './shared-resources.js';

/** The repository root (not from temp.ts: this module runs in vitest's main process, outside any test). */
const ROOT = resolve(import.meta.dirname, '../..');

/** Where the compiled sources are. */
export interface CompiledSources {
  /** The compiled package folder (its `src/` holds the `.js` modules). */
  readonly root: string;
  /** The CLI entry: `node <cli> <args>` runs `octx-export`. */
  readonly cli: string;
}

/** Every TypeScript module under `dir` (declaration files have no code). */
function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Compiles src/ into `<dir>/package` (see the module comment). */
export async function compileSources(dir: string): Promise<CompiledSources> {
  const root = join(dir, 'package');
  // Imported here: test files import this module for compiledModule() and need no esbuild.
  const { build } = await import('esbuild');
  await build({
    entryPoints: modules(join(ROOT, 'src')),
    outbase: join(ROOT, 'src'),
    outdir: join(root, 'src'),
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    keepNames: true,
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  for (const entry of readdirSync(ROOT)) {
    if (entry !== 'src' && entry !== '.git') symlinkSync(join(ROOT, entry), join(root, entry));
  }
  return { root, cli: join(root, 'src/cli/main.js') };
}

export const compiledSources: SharedResource<CompiledSources> = {
  async start(dir) {
    // The run's temporary root, removed by global setup, holds it: nothing to stop.
    return { info: await compileSources(dir), stop: () => Promise.resolve() };
  },
};

/**
 * The compiled file of the source module `source` (`src/read/record-scan-worker.ts`), from this
 * run's compiled sources: for a test that starts a worker from it.
 */
export async function compiledModule(source: string): Promise<string> {
  if (!/^src\/.+\.ts$/.test(source)) throw new Error(`not a module under src/: ${source}`);
  const { root } = await sharedResource('compiled-sources');
  return join(root, source.replace(/\.ts$/, '.js'));
}
