/**
 * The test lanes (test/helpers/lanes.ts) and the profile's tables (test/helpers/profile-reporter.ts):
 * the rules on a tree made here, the repository's own files, and what vitest is told per lane.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyTests, laneFromEnv, laneConfig, SLOW_SUFFIX } from '../helpers/lanes.js';
import { formatProfile, QUICK_FILE_BUDGET_MS, type Profile } from '../helpers/profile-reporter.js';
import { ROOT, tempDir } from '../helpers/temp.js';

/** A repository-shaped tree: `files` maps paths under test/ to their text, `others` paths from the root. */
function tree(files: Record<string, string>, others: Record<string, string> = {}): string {
  const root = tempDir('octx-lanes-');
  const all = [...Object.entries(files).map(([path, text]) => [join('test', path), text] as const), ...Object.entries(others)];
  for (const [path, text] of all) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

// Spelled in pieces: this file's own text must not read as starting processes or as tagged heavy.
const CHILD = `node:child${'_'}process`;
const HEAVY = `// @module${'-'}tag heavy`;
const MOCK = `vi.${'mock'}`;
const BROWSER = `playwright${'-'}core`;
const BUILD = `es${'build'}`;

describe('lane rules', () => {
  const root = (): string =>
    tree(
      {
        'a/plain.test.ts': "import { x } from '../helpers/pure.js';\n",
        'a/mocks.test.ts': `import { vi } from 'vitest';\n${MOCK}('../helpers/pure.js');\n`,
        'a/spawns.test.ts': `import { spawnSync } from '${CHILD}';\n`,
        'a/spawns-bare.test.ts': `import { execFile } from "${CHILD.slice(5)}";\n`,
        'a/through.test.ts': "import { run } from '../helpers/runner.js';\n",
        'a/dynamic.test.ts': "await import('./spawns.test.js');\n",
        'a/heavy.test.ts': `${HEAVY}\nimport { x } from "../helpers/pure.js";\n`,
        'a/cycle.test.ts': "import { y } from '../helpers/cycle-a.js';\n",
        'a/big.slow.test.ts': `import { spawn } from '${CHILD}';\n`,
        'a/browser.test.ts': `import { chromium } from '${BROWSER}';\n`,
        'a/bundles.test.ts': "import { bundle } from '../../scripts/bundle.mjs';\n",
        'a/lazy.test.ts': "import { later } from '../helpers/lazy.js';\n",
        'fuzz/property.test.ts': 'export {};\n',
        'helpers/pure.ts': 'export const x = 1;\n',
        'helpers/runner.ts': "import { nested } from './nested.js';\nexport const run = nested;\n",
        'helpers/nested.ts': `import { fork } from '${CHILD}';\nexport const nested = fork;\n`,
        'helpers/cycle-a.ts': "import { z } from './cycle-b.js';\nexport const y = z;\n",
        'helpers/cycle-b.ts': "import { y } from './cycle-a.js';\nexport const z = 1; void y;\n",
        // Imported lazily: what it builds, the shared-resource broker builds once per run.
        'helpers/lazy.ts': `export const later = () => import('${BUILD}');\n`,
      },
      { 'scripts/bundle.mjs': `import { build } from '${BUILD}';\nexport const bundle = build;\n` },
    );

  it('places each file by what it does, and says why it is not quick', () => {
    expect(classifyTests(root())).toEqual([
      { file: 'test/a/big.slow.test.ts', lane: 'slow', reason: `named *${SLOW_SUFFIX}`, isolated: false },
      { file: 'test/a/browser.test.ts', lane: 'default', reason: 'starts processes: imports playwright-core', isolated: false },
      { file: 'test/a/bundles.test.ts', lane: 'default', reason: 'starts processes: imports esbuild (through scripts/bundle.mjs)', isolated: false },
      { file: 'test/a/cycle.test.ts', lane: 'quick', isolated: false },
      { file: 'test/a/dynamic.test.ts', lane: 'default', reason: 'starts processes: imports node:child_process (through test/a/spawns.test.ts)', isolated: false },
      { file: 'test/a/heavy.test.ts', lane: 'default', reason: 'declares @module-tag heavy', isolated: false },
      { file: 'test/a/lazy.test.ts', lane: 'quick', isolated: false },
      { file: 'test/a/mocks.test.ts', lane: 'quick', isolated: true },
      { file: 'test/a/plain.test.ts', lane: 'quick', isolated: false },
      { file: 'test/a/spawns-bare.test.ts', lane: 'default', reason: 'starts processes: imports node:child_process', isolated: false },
      { file: 'test/a/spawns.test.ts', lane: 'default', reason: 'starts processes: imports node:child_process', isolated: false },
      { file: 'test/a/through.test.ts', lane: 'default', reason: 'starts processes: imports node:child_process (through test/helpers/nested.ts)', isolated: false },
      { file: 'test/fuzz/property.test.ts', lane: 'default', reason: 'property-based (test/fuzz/)', isolated: false },
    ]);
  });

  it('gives vitest globs per lane; the quick lane lists its files in a shared and an isolated project', () => {
    const r = root();
    expect(laneConfig('default', r)).toEqual({ include: ['test/**/*.test.ts'], exclude: ['test/**/*.slow.test.ts'] });
    expect(laneConfig('slow', r)).toEqual({ include: ['test/**/*.slow.test.ts'], exclude: [] });
    expect(laneConfig('all', r)).toEqual({ include: ['test/**/*.test.ts'], exclude: [] });
    expect(laneConfig('quick', r)).toEqual({
      include: [],
      exclude: [],
      projects: [
        { name: 'quick', isolate: false, include: ['test/a/cycle.test.ts', 'test/a/lazy.test.ts', 'test/a/plain.test.ts'] },
        { name: 'quick-isolated', isolate: true, include: ['test/a/mocks.test.ts'] },
      ],
    });
  });

  it('OCTX_TEST_LANE names a lane; unset is the default lane; anything else is refused', () => {
    expect(laneFromEnv(undefined)).toBe('default');
    expect(laneFromEnv('')).toBe('default');
    for (const lane of ['quick', 'default', 'slow', 'all'] as const) expect(laneFromEnv(lane)).toBe(lane);
    expect(() => laneFromEnv('fast')).toThrow('OCTX_TEST_LANE must be one of quick, default, slow, all (got "fast")');
  });
});

describe("the repository's lanes", () => {
  const files = classifyTests(ROOT);
  const laneOf = (file: string) => files.find((f) => f.file === file);

  it('every test file is in one lane; the slow lane is exactly the *.slow.test.ts files', () => {
    expect(files.length).toBeGreaterThan(150);
    expect(new Set(files.map((f) => f.file)).size).toBe(files.length);
    expect(files.filter((f) => f.lane === 'slow').map((f) => f.file)).toEqual(files.filter((f) => f.file.endsWith(SLOW_SUFFIX)).map((f) => f.file));
    expect(laneOf('test/package/packed-tarball.slow.test.ts')?.lane).toBe('slow');
  });

  it('the CLI tests are not quick (they spawn through run-cli.ts); pure unit tests are', () => {
    expect(laneOf('test/cli/basics.test.ts')).toEqual({
      file: 'test/cli/basics.test.ts',
      lane: 'default',
      reason: 'starts processes: imports node:child_process (through test/cli/run-cli.ts)',
      isolated: false,
    });
    expect(laneOf('test/read/codes.test.ts')).toEqual({ file: 'test/read/codes.test.ts', lane: 'quick', isolated: false });
    // It replaces a module: a module graph of its own in the quick lane too.
    expect(laneOf('test/structure/spill-failure.test.ts')).toEqual({ file: 'test/structure/spill-failure.test.ts', lane: 'quick', isolated: true });
    expect(laneOf('test/fuzz/reader-mutations.test.ts')?.lane).toBe('default');
    // A browser, and a build of the page through scripts/: not quick.
    expect(laneOf('test/report/report-browser.test.ts')?.reason).toBe('starts processes: imports playwright-core');
    expect(laneOf('test/report/render-report.test.ts')?.reason).toBe('starts processes: imports esbuild (through scripts/report-page.mjs)');
    // This file reads the tree and spawns nothing: quick.
    expect(laneOf('test/foundation/test-lanes.test.ts')?.lane).toBe('quick');
  });
});

describe('the profile tables', () => {
  const profile: Profile = {
    wallMs: 61_500,
    files: [
      {
        file: 'test/a.test.ts',
        lane: 'quick',
        durationMs: 4_250,
        importMs: 300,
        cpu: { ownMs: 4_100, childMs: 0 },
        tests: [{ name: 'a > one', state: 'passed', durationMs: 4_000 }],
      },
      {
        file: 'test/b.test.ts',
        lane: 'default',
        durationMs: 12_000,
        importMs: 1_500,
        // Mostly waiting on the processes it started: less CPU than the quick file in all.
        cpu: { ownMs: 900, childMs: 2_600 },
        tests: [
          { name: 'b > two', state: 'failed', durationMs: 11_000 },
          { name: 'b > three', state: 'skipped', durationMs: 0 },
        ],
      },
    ],
  };

  it('lists the slowest files and tests, the totals, and the quick files over the budget', () => {
    expect(QUICK_FILE_BUDGET_MS).toBe(3_000);
    expect(formatProfile(profile, 5)).toBe(
      [
        '',
        'Test profile: 2 files, 3 tests (1 passed, 1 failed, 1 skipped), 61.5 s wall',
        '  summed over files: 16.3 s in tests and hooks, 1.8 s importing',
        '',
        'Slowest files (of 2):',
        '   tests s  import s  tests  lane     file',
        '     12.0      1.5      2  default  test/b.test.ts',
        '      4.3      0.3      1  quick    test/a.test.ts',
        '',
        'Most CPU (of 2; 7.6 s: 5.0 s in the workers, 2.6 s in processes they started):',
        '     cpu s  worker s  child s  lane     file',
        '      4.1       4.1      0.0  quick    test/a.test.ts',
        '      3.5       0.9      2.6  default  test/b.test.ts',
        '',
        'Slowest tests (of 3):',
        '     11.0 s  test/b.test.ts > b > two',
        '      4.0 s  test/a.test.ts > a > one',
        '      0.0 s  test/b.test.ts > b > three',
        '',
        `Quick-lane files over 3 s (make them faster, or declare \`${HEAVY}\` to leave the quick lane):`,
        '      4.3 s  test/a.test.ts',
        '',
      ].join('\n'),
    );
  });

  it('leaves the CPU table out when no file measured its CPU', () => {
    const unmeasured: Profile = { ...profile, files: profile.files.map(({ cpu: _, ...f }) => f) };
    expect(formatProfile(unmeasured, 5)).not.toContain('Most CPU');
  });

  it('shows only the top rows asked for', () => {
    const text = formatProfile(profile, 1);
    expect(text).toContain('     12.0      1.5      2  default  test/b.test.ts\n\nMost CPU');
    expect(text).toContain('      4.1       4.1      0.0  quick    test/a.test.ts\n\nSlowest tests');
    expect(text).toContain('     11.0 s  test/b.test.ts > b > two\n\nQuick-lane');
  });
});
