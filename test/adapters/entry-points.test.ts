/**
 * The package's entry points: `import 'octx-export'` loads no adapter and never `better-sqlite3`;
 * each `octx-export/adapters/<name>` loads and exposes its main function; the SAG adapter loads
 * the native module only when `fromSagDatabase` runs.
 *
 * How loaded modules are seen: every probe is a fresh `node` process whose first act is
 * `module.register` of a customization hook whose `resolve` appends each URL the ESM loader
 * resolves to a log file; only then does it `import()` the entry point. Every ESM import goes
 * through that hook (after tsx's own hook, which the recorder calls as `nextResolve`, so the log
 * holds real file URLs). A resolved URL is a superset of what is evaluated, so "not in the log"
 * proves "not loaded". `require` calls inside CommonJS packages bypass ESM hooks, so the probe
 * also lists the shared objects the process has mapped (`process.report`): the native
 * `better_sqlite3.node` shows there whichever way it was loaded, and the CommonJS module cache
 * (shared by every `require`, including one made with `createRequire`) is listed too, so a
 * `require('better-sqlite3')` that never opens a database is seen as well. Each probe also has a positive
 * control (the entry file itself in the log; the native module after `fromSagDatabase` runs), so
 * a recorder that saw nothing would fail the test rather than pass it.
 *
 * Both the sources (through tsx and the `paths` of tsconfig.json, as examples run) and the built
 * package are probed; the built package is the repository's dist/ (`npm run build`, which
 * `npm test` runs first), probed from the repository root so that `octx-export/...` resolves
 * through the real `exports` map of package.json (self-reference).
 *
 * The MDX parser is probed the same way: the root entry must not load it (it costs a fresh process
 * about 0.4 s), only `octx-export/mdx` does.
 *
 * The entry points probed are those of package.json `exports`, the one list
 * (scripts/entry-points.mjs); the static copies of that list (`main`, `types`, `typesVersions`,
 * tsconfig.json `paths`) and the derived ones (TypeDoc's entry points, the test aliases) are held
 * against it at the end.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryPoints, expectedCopies, packageJson } from '../../scripts/entry-points.mjs';
import { assertFreshDist } from '../helpers/built-dist.js';
import { ROOT } from '../helpers/temp.js';

/** The resolve hook, as a module of its own (hooks run on the loader thread). */
const HOOKS = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}`;
const HOOKS_URL = `data:text/javascript,${encodeURIComponent(HOOKS)}`;

/** Whether this runtime has node:sqlite (then the SAG adapter uses it, not better-sqlite3). */
const HAS_NODE_SQLITE = (() => {
  try {
    return process.getBuiltinModule?.('node:sqlite') !== undefined;
  } catch {
    return false;
  }
})();

/** The sub-path entry points of package.json `exports` (`octx-export/adapters/rag`, …). */
const SUBPATH_ENTRIES = entryPoints().filter((e) => e.subpath !== '.');
/** The function each known sub-path must expose; a new sub-path must expose at least one function. */
const MAIN_FUNCTION: Readonly<Record<string, string>> = {
  'octx-export/adapters/rag': 'fromRag',
  'octx-export/adapters/ingest': 'fromIngest',
  'octx-export/adapters/sag': 'fromSagDatabase',
  'octx-export/report': 'renderReport',
  'octx-export/mdx': 'mdxToMarkdown',
};
const ADAPTER_FUNCTIONS = Object.values(MAIN_FUNCTION);
/** The MDX parser (micromark's MDX extensions, acorn) and the converter: only `octx-export/mdx` may load them. */
const MDX_MODULES = /\/node_modules\/(micromark-extension-mdx[^/]*|mdast-util-mdx[^/]*|micromark-util-events-to-acorn|acorn[^/]*)\/|\/(src|dist)\/knowledge\/mdx\//;
/** The report's graph libraries: only `octx-export/report` may load them. */
const GRAPH_LIBRARIES = /\/node_modules\/(graphology[^/]*|sigma)\//;

/** What one probe process saw. */
interface Probe {
  /** Every URL the ESM loader resolved after the recorder was registered. */
  readonly urls: readonly string[];
  /** Mapped shared objects and CommonJS-cached modules whose path names better-sqlite3. */
  readonly native: readonly string[];
  /** What the probe body returned. */
  readonly result: unknown;
}

/** Where a probe runs: the sources through tsx, or the built package. */
interface Mode {
  readonly name: 'src' | 'dist';
  readonly cwd: string;
  readonly nodeArgs: readonly string[];
  /** URL prefix of the package's own adapter modules (not any `/adapters/`: apache-arrow has an `io/adapters.mjs`). */
  readonly adapters: string;
  /** URL of the root entry module. */
  readonly rootEntry: string;
}

let scratch: string;

/**
 * Runs `body` (the inside of an async function, as ESM) in a fresh node process with the
 * recorder registered first.
 */
function probe(mode: Mode, name: string, body: string): Promise<Probe> {
  const log = join(scratch, `${mode.name}-${name}.log`);
  writeFileSync(log, '');
  const code = `
import { createRequire, register } from 'node:module';
register(${JSON.stringify(HOOKS_URL)}, { data: { log: ${JSON.stringify(log)} } });
const result = await (async () => { ${body} })();
const native = process.report.getReport().sharedObjects.filter((p) => /better[-_]sqlite3/i.test(p));
const required = Object.keys(createRequire(process.cwd() + '/').cache).filter((p) => /better[-_]sqlite3/i.test(p));
process.stdout.write(JSON.stringify({ result, native: [...native, ...required] }));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...mode.nodeArgs, '--input-type=module', '-e', code], { cwd: mode.cwd, timeout: 55_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`probe ${mode.name} ${name} failed: ${error.message}\n${stderr}`));
      const out = JSON.parse(stdout) as { result: unknown; native: string[] };
      resolve({ urls: readFileSync(log, 'utf8').split('\n').filter(Boolean), native: out.native, result: out.result });
    });
  });
}

const sqliteUrls = (p: Probe) => p.urls.filter((u) => u.includes('/node_modules/better-sqlite3/'));
const graphUrls = (p: Probe) => p.urls.filter((u) => GRAPH_LIBRARIES.test(u));
const mdxUrls = (p: Probe) => p.urls.filter((u) => MDX_MODULES.test(u));
const adapterUrls = (mode: Mode, p: Probe) => [...new Set(p.urls.filter((u) => u.startsWith(mode.adapters)))];

/** The probes every mode runs: the root entry, each sub-path entry (by specifier), and a `fromSagDatabase` call. */
interface Probes {
  readonly root: Probe;
  readonly subpaths: Readonly<Record<string, Probe>>;
  readonly sagCall: Probe;
}

async function runProbes(mode: Mode): Promise<Probes> {
  const emptyDb = join(scratch, `${mode.name}-empty.db`);
  writeFileSync(emptyDb, '');
  // Each sub-path returns the type of its main function, or the names of its exported functions when it has none listed.
  const subpath = (specifier: string) =>
    probe(
      mode,
      specifier.replace(/\W+/g, '-'),
      `const m = await import(${JSON.stringify(specifier)}); return ${JSON.stringify(MAIN_FUNCTION[specifier] ?? null)} === null ? Object.keys(m).filter((k) => typeof m[k] === 'function') : typeof m[${JSON.stringify(MAIN_FUNCTION[specifier] ?? '')}];`,
    );
  const [root, sagCall, ...subs] = await Promise.all([
    probe(
      mode,
      'root',
      `const m = await import('octx-export'); return { builder: typeof m.PackageBuilder, loadWorkdir: typeof m.loadWorkdir, progress: typeof m.terminalProgress, adapterExports: ${JSON.stringify(ADAPTER_FUNCTIONS)}.filter((n) => n in m) };`,
    ),
    probe(
      mode,
      'sag-call',
      `const { PackageBuilder } = await import('octx-export');
       const { fromSagDatabase } = await import('octx-export/adapters/sag');
       const builder = new PackageBuilder({ asset: { name: 'probe' } });
       try { await fromSagDatabase(builder, ${JSON.stringify(emptyDb)}, { sourceId: 'x' }); return 'no error'; }
       catch (e) { return e.code; }
       finally { await builder.dispose(); }`,
    ),
    ...SUBPATH_ENTRIES.map((e) => subpath(e.specifier)),
  ]);
  return { root, sagCall, subpaths: Object.fromEntries(SUBPATH_ENTRIES.map((e, i) => [e.specifier, subs[i]!])) };
}

/** The assertions, the same for the sources and the built package. */
function entryPointTests(label: string, mode: () => Mode, probes: () => Probes): void {
  describe(label, () => {
    it('the root entry loads no adapter and not better-sqlite3, and exports no adapter function', () => {
      const { root } = probes();
      expect(root.urls).toContain(mode().rootEntry); // the recorder saw the import
      expect(root.result).toEqual({ builder: 'function', loadWorkdir: 'function', progress: 'function', adapterExports: [] });
      expect(adapterUrls(mode(), root)).toEqual([]);
      expect(sqliteUrls(root)).toEqual([]);
      expect(root.native).toEqual([]);
      expect(graphUrls(root)).toEqual([]);
      expect(mdxUrls(root)).toEqual([]);
    });

    it('only octx-export/report loads the graph libraries (graphology, its ForceAtlas2 layout)', () => {
      const { subpaths } = probes();
      for (const [specifier, p] of Object.entries(subpaths)) {
        if (specifier === 'octx-export/report') expect(graphUrls(p).length, specifier).toBeGreaterThan(0);
        else expect(graphUrls(p), specifier).toEqual([]);
      }
    });

    it('only octx-export/mdx loads the MDX parser (micromark-extension-mdxjs, acorn) and the converter', () => {
      const { subpaths } = probes();
      for (const [specifier, p] of Object.entries(subpaths)) {
        if (specifier === 'octx-export/mdx') {
          expect(
            mdxUrls(p).some((u) => u.includes('/node_modules/acorn/')),
            specifier,
          ).toBe(true);
          expect(
            mdxUrls(p).some((u) => u.includes('/node_modules/micromark-extension-mdxjs/')),
            specifier,
          ).toBe(true);
        } else expect(mdxUrls(p), specifier).toEqual([]);
      }
    });

    it.each(SUBPATH_ENTRIES.map((e) => [e.specifier, e] as const))('%s loads its module and exposes its functions, without better-sqlite3', (specifier, entry) => {
      const p = probes().subpaths[specifier]!;
      if (MAIN_FUNCTION[specifier] !== undefined) expect(p.result).toBe('function');
      else expect((p.result as string[]).length, `${specifier} exports a function`).toBeGreaterThan(0);
      const own = mode().name === 'src' ? pathToFileURL(join(ROOT, entry.source)).href : pathToFileURL(join(mode().cwd, entry.esm)).href;
      expect(p.urls).toContain(own);
      expect(sqliteUrls(p)).toEqual([]);
      expect(p.native).toEqual([]);
    });

    it('fromSagDatabase loads its SQLite driver when it runs (better-sqlite3 where node:sqlite is missing)', () => {
      const { sagCall } = probes();
      expect(sagCall.result).toBe('OCTX_SAG_NOT_ENGINE_DB'); // an empty file is an SQLite database without the engine's tables
      if (HAS_NODE_SQLITE) {
        expect(sagCall.urls).toContain('node:sqlite');
        expect(sqliteUrls(sagCall)).toEqual([]);
      } else {
        expect(sqliteUrls(sagCall).length).toBeGreaterThan(0);
        expect(sagCall.native.length).toBeGreaterThan(0);
      }
    });
  });
}

const SRC: Mode = {
  name: 'src',
  cwd: ROOT,
  nodeArgs: ['--import', 'tsx'],
  adapters: pathToFileURL(join(ROOT, 'src/adapters/')).href,
  rootEntry: pathToFileURL(join(ROOT, 'src/index.ts')).href,
};
/** The repository's build, probed from the root: its package.json `exports` map resolves the specifiers. */
const dist: Mode = {
  name: 'dist',
  cwd: ROOT,
  nodeArgs: [],
  adapters: pathToFileURL(join(ROOT, 'dist/adapters/')).href,
  rootEntry: pathToFileURL(join(ROOT, 'dist/index.js')).href,
};
let srcProbes: Probes;
let distProbes: Probes;

beforeAll(async () => {
  assertFreshDist();
  scratch = mkdtempSync(join(tmpdir(), 'octx-entry-points-'));
  // One mode after the other: each already starts its probes together.
  srcProbes = await runProbes(SRC);
  distProbes = await runProbes(dist);
}, 150_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

entryPointTests(
  'entry points of the sources (tsx, tsconfig paths)',
  () => SRC,
  () => srcProbes,
);
entryPointTests(
  'entry points of the built package (package.json exports)',
  () => dist,
  () => distProbes,
);

it('every target of the package.json exports map is built', () => {
  type Target = string | { [condition: string]: Target };
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Target> };
  const leaves = (t: Target): string[] => (typeof t === 'string' ? [t] : Object.values(t).flatMap(leaves));
  const targets = Object.values(pkg.exports).flatMap(leaves);
  expect(targets).toContain('./dist/adapters/sag/index.js');
  expect(targets).toContain('./dist/cjs/adapters/sag/index.js');
  for (const t of targets) expect(existsSync(join(ROOT, t)), t).toBe(true);
});

describe('package.json exports is the one list of entry points', () => {
  it('lists the root, the three adapters and the report, each built from its src/ module', () => {
    expect(entryPoints().map((e) => e.specifier)).toEqual(expect.arrayContaining(['octx-export', ...Object.keys(MAIN_FUNCTION)]));
    for (const e of entryPoints()) expect(existsSync(join(ROOT, e.source)), e.source).toBe(true);
  });

  it('its static copies agree with it: package.json main, types and typesVersions; tsconfig.json paths', () => {
    // Update the copy named in a failure to the expected value printed (see scripts/entry-points.mjs).
    const want = expectedCopies();
    const pkg = packageJson();
    expect({ main: pkg.main, types: pkg.types, typesVersions: pkg.typesVersions }).toEqual({ main: want.main, types: want.types, typesVersions: want.typesVersions });
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: { paths: unknown } };
    expect(tsconfig.compilerOptions.paths).toEqual(want.paths);
  });

  it('TypeDoc documents exactly its entry points (typedoc.config.mjs derives them)', async () => {
    const config = ((await import(pathToFileURL(join(ROOT, 'typedoc.config.mjs')).href)) as { default: { entryPoints: string[] } }).default;
    expect(config.entryPoints).toEqual(entryPoints().map((e) => e.source));
  });

  it('refuses an export of another shape, naming its key', () => {
    const pkg = packageJson();
    const bad = { ...pkg, exports: { ...pkg.exports, './extra': { import: './dist/extra.js' } } };
    expect(() => entryPoints(bad)).toThrow(/exports\["\.\/extra"\]/);
  });
});
