/**
 * The test lanes, decided by rules over the files themselves (never a hand list), read by
 * vitest.config.ts, the profile reporter and test/foundation/test-lanes.test.ts:
 *
 * - **slow** — files named `*.slow.test.ts`: slow by nature (a packed and installed tarball, a
 *   differential run of the whole validator on worker threads). `npm run test:slow`; `.ci/run`
 *   runs it after `npm test`, so CI runs every test.
 * - **default** — every other test file: `npm test`, the README's command.
 * - **quick** — the default files that are unit-level: `npm run test:quick`, the inner loop. A file
 *   is left out when it or a module it imports (followed through relative imports inside test/ and
 *   scripts/) starts processes: imports `node:child_process` (the CLI, Python, npm or another
 *   Node), or statically `playwright-core` / `puppeteer-core` (a browser) or `esbuild` (a build);
 *   when it lives in test/fuzz/ (property-based runs); or when it declares `// @module-tag heavy`
 *   (in-process work of several seconds; vitest knows the tag too, see vitest.config.ts).
 *
 * The quick lane also shares each worker's module graph between files (vitest `isolate: false`:
 * the sources are loaded once per worker, not once per file, about half its time), except for the
 * files that replace modules or spy on shared objects (`vi.mock`, `vi.spyOn`, `vi.stubEnv`, …):
 * those get a fresh module graph each, as every file does in the other lanes.
 *
 * A new test file joins its lane by what it does: nothing to register.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** A lane that `OCTX_TEST_LANE` selects (`all` is every file, slow ones included). */
export type Lane = 'quick' | 'default' | 'slow' | 'all';

/** The lanes `OCTX_TEST_LANE` accepts. */
export const LANES: readonly Lane[] = ['quick', 'default', 'slow', 'all'];

/** The name suffix of the slow lane's files. */
export const SLOW_SUFFIX = '.slow.test.ts';

/** The tag a file declares (`// @module-tag heavy`) to stay out of the quick lane without starting processes. */
export const HEAVY_TAG = 'heavy';

/** Where one test file runs, and why it is not in the quick lane (when it is not). */
export interface LaneOfFile {
  /** Path from the repository root, with `/` separators (`test/cli/basics.test.ts`). */
  readonly file: string;
  readonly lane: 'quick' | 'default' | 'slow';
  /** Why the file is not quick: the rule that placed it, naming the module that starts processes. */
  readonly reason?: string;
  /** Whether it replaces modules or spies on shared objects: it needs a module graph of its own. */
  readonly isolated: boolean;
}

const IMPORT = /(?:\bfrom|\bimport\s*\(?)\s*['"](\.{1,2}\/[^'"]+)['"]/g;
const CHILD_PROCESS = /['"]((?:node:)?child_process)['"]/;
// Static imports only: a module that imports esbuild lazily (test/helpers/compiled-sources.ts)
// runs it in the shared-resource broker, once per run in vitest's main process, not in the file.
const PROCESS_LIBRARY = /(?:\bfrom\s*|^\s*import\s+)['"](playwright-core|puppeteer-core|esbuild)['"]/m;

/** What in `source` starts other processes (a child, a browser, esbuild's service), or undefined. */
function processStarter(source: string): string | undefined {
  // Named from the match, not a literal: this module's own text must not read as importing it.
  const child = CHILD_PROCESS.exec(source)?.[1];
  if (child !== undefined) return child.startsWith('node:') ? child : `node:${child}`;
  return PROCESS_LIBRARY.exec(source)?.[1];
}
const HEAVY = new RegExp(`(?://|\\*)\\s*@module-tag\\s+${HEAVY_TAG}\\b`);
const MOCKS = /\bvi\.(?:mock|doMock|unmock|doUnmock|hoisted|spyOn|stubGlobal|stubEnv|resetModules|useFakeTimers)\b/;

/** Every `*.test.ts` file under `dir`, sorted, as absolute paths. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** A module that matched a rule, and what matched. */
interface Match {
  readonly file: string;
  readonly what: string;
}

/**
 * The first module of `file`'s import closure inside `dirs` (relative imports only: the sources
 * under src/ are what the tests test; scripts/ holds the project's tools that tests call) whose
 * text matches `rule`, or undefined.
 */
function firstMatching(rule: (source: string) => string | undefined, file: string, dirs: readonly string[], seen: Set<string>, text: (f: string) => string): Match | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const source = text(file);
  const what = rule(source);
  if (what !== undefined) return { file, what };
  for (const m of source.matchAll(IMPORT)) {
    const target = resolve(dirname(file), m[1]!).replace(/\.js$/, '.ts');
    if (!dirs.some((d) => target.startsWith(d + sep)) || !existsSync(target)) continue;
    const found = firstMatching(rule, target, dirs, seen, text);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The lane of every test file under `<root>/test`, in path order. */
export function classifyTests(root: string): LaneOfFile[] {
  const testDir = join(root, 'test');
  const dirs = [testDir, join(root, 'scripts')];
  const cache = new Map<string, string>();
  const text = (f: string): string => {
    let t = cache.get(f);
    if (t === undefined) cache.set(f, (t = readFileSync(f, 'utf8')));
    return t;
  };
  const posix = (f: string): string => relative(root, f).split(sep).join('/');
  return testFiles(testDir).map((abs): LaneOfFile => {
    const file = posix(abs);
    // The file's own text: mocks are declared where they apply.
    const isolated = MOCKS.test(text(abs));
    if (file.endsWith(SLOW_SUFFIX)) return { file, lane: 'slow', reason: `named *${SLOW_SUFFIX}`, isolated };
    if (file.startsWith('test/fuzz/')) return { file, lane: 'default', reason: 'property-based (test/fuzz/)', isolated };
    const starter = firstMatching(processStarter, abs, dirs, new Set(), text);
    if (starter !== undefined) {
      const via = starter.file === abs ? '' : ` (through ${posix(starter.file)})`;
      return { file, lane: 'default', reason: `starts processes: imports ${starter.what}${via}`, isolated };
    }
    if (HEAVY.test(text(abs))) return { file, lane: 'default', reason: `declares @module-tag ${HEAVY_TAG}`, isolated };
    return { file, lane: 'quick', isolated };
  });
}

/** A vitest project of a lane: its files, and whether each file gets a module graph of its own. */
export interface LaneProject {
  readonly name: string;
  readonly isolate: boolean;
  readonly include: string[];
}

/** What vitest is told for a lane: `include`, `exclude` (beside its default excludes), and the quick lane's projects. */
export interface LaneConfig {
  readonly include: string[];
  readonly exclude: string[];
  readonly projects?: LaneProject[];
}

/**
 * vitest's file selection for `lane`. Globs where a rule is a name, so that a file added while
 * `vitest` watches is picked up; the quick lane lists its files, classified when the run starts,
 * in two projects: modules shared within a worker, and a module graph per file for the files
 * that need one.
 */
export function laneConfig(lane: Lane, root: string): LaneConfig {
  const all = 'test/**/*.test.ts';
  const slow = `test/**/*${SLOW_SUFFIX}`;
  switch (lane) {
    case 'all':
      return { include: [all], exclude: [] };
    case 'slow':
      return { include: [slow], exclude: [] };
    case 'default':
      return { include: [all], exclude: [slow] };
    case 'quick': {
      const quick = classifyTests(root).filter((f) => f.lane === 'quick');
      const files = (isolated: boolean): string[] => quick.filter((f) => f.isolated === isolated).map((f) => f.file);
      // The files are the projects' (vitest adds a project's `include` to the inherited one).
      return {
        include: [],
        exclude: [],
        projects: [
          { name: 'quick', isolate: false, include: files(false) },
          { name: 'quick-isolated', isolate: true, include: files(true) },
        ],
      };
    }
  }
}

/** The lane named by `OCTX_TEST_LANE` (unset or empty: `default`); anything else is refused. */
export function laneFromEnv(value: string | undefined): Lane {
  if (value === undefined || value === '') return 'default';
  if ((LANES as readonly string[]).includes(value)) return value as Lane;
  throw new Error(`OCTX_TEST_LANE must be one of ${LANES.join(', ')} (got ${JSON.stringify(value)})`);
}
