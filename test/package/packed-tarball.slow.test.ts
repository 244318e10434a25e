/**
 * Slow lane (about 30–60 s; `npm run test:slow`, which CI runs after `npm test`, which built
 * dist/): the package as users get it. Packs the repository (`npm pack`, of the
 * build `npm run build` made, with the API reference generated if it is missing),
 * installs the tarball with `--ignore-scripts` into a new CommonJS project and a new ESM project,
 * and in each runs the README's SDK example (the ESM one verbatim, the CJS one with `require`),
 * type-checks a `.cts` and a `.mts` file against the installed types, runs
 * `npx octx-export --help`, runs `from-sag` without the optional SQLite module, and runs every
 * `--help` example with the installed command (`octx-export examples` first copies the shipped inputs).
 *
 * Network: the installs use `--prefer-offline`, so the dependencies come from the npm cache that
 * `npm ci` filled; only what is missing there is fetched from the npm registry. When the registry
 * cannot be reached and the cache does not have everything, the install tests are skipped with a
 * message saying so (the file-list checks still run).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatePackage } from 'octx-export';
import { createSagDatabase, SAG } from '../adapters/sag-fixture.js';
import { commandHelp } from '../../src/cli/args.js';
import { COMMANDS } from '../../src/cli/cli.js';
import { EXAMPLE_INPUTS } from '../../src/cli/commands/examples.js';
import { helpExamples, shellWords } from '../helpers/help-examples.js';
import { assertFreshDist } from '../helpers/built-dist.js';
import { ROOT } from '../helpers/temp.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], cwd: string, timeout = 90_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { cwd, timeout, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '', npm_config_update_notifier: 'false' } },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const NETWORK_ERROR = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network|offline/i;

/** The README's "SDK in one screen" example, verbatim (ESM, top-level await). */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The SDK in one screen'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (code === undefined) throw new Error('README.md has no ts code block under "The SDK in one screen"');
  return code;
}

/** The same example as a CommonJS script: `require` instead of `import`, wrapped in an async function. */
function asCommonJs(esm: string): string {
  const cjs = esm.replace(/^import \{([^}]+)\} from '([^']+)';$/m, "const {$1} = require('$2');");
  if (cjs === esm) throw new Error('the README example no longer starts with one named import');
  const lines = cjs.split('\n');
  const first = lines.findIndex((l) => l.startsWith('const {'));
  return [...lines.slice(0, first + 1), '(async () => {', ...lines.slice(first + 1), '})().catch((e) => { console.error(e); process.exitCode = 1; });', ''].join('\n');
}

let scratch: string;
let tarball: string;
let packedFiles: string[];
/** Why the install tests are skipped (the registry could not be reached), or undefined. */
let offline: string | undefined;
const projects = { esm: '', cjs: '' };

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'octx-packed-'));
  assertFreshDist();
  if (!existsSync(join(ROOT, 'docs/api/README.md'))) {
    // `npm pack` would generate it in `prepack`; the test packs with --ignore-scripts to reuse the build.
    const docs = await run(process.execPath, [join(ROOT, 'node_modules/typedoc/bin/typedoc')], ROOT, 120_000);
    if (docs.code !== 0) throw new Error(`typedoc failed:\n${docs.stdout}${docs.stderr}`);
  }
  const pack = await run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], ROOT);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(scratch, info!.filename);
  packedFiles = info!.files.map((f) => f.path);

  const sagDb = join(scratch, 'sag.db');
  createSagDatabase(sagDb, 1);
  const example = readmeExample();
  const install = async (kind: 'esm' | 'cjs'): Promise<Run> => {
    const dir = join(scratch, kind);
    mkdirSync(dir);
    projects[kind] = dir;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `probe-${kind}`, version: '1.0.0', private: true, type: kind === 'esm' ? 'module' : 'commonjs' }));
    writeFileSync(join(dir, 'example.js'), kind === 'esm' ? example : asCommonJs(example));
    return run(NPM, ['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', tarball], dir, 150_000);
  };
  const installs = await Promise.all([install('esm'), install('cjs')]);
  for (const r of installs) {
    if (r.code === 0) continue;
    if (NETWORK_ERROR.test(r.stderr)) offline = `npm registry unreachable and the npm cache lacks a dependency:\n${r.stderr.split('\n').slice(0, 5).join('\n')}`;
    else throw new Error(`npm install of the tarball failed:\n${r.stderr}`);
  }
}, 240_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the packed tarball (npm pack)', () => {
  it('ships dist/ (ESM and CommonJS), the docs and the API reference, and no tests or sources', () => {
    for (const f of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
      'dist/cli/main.js',
      'docs/cli.md',
      'docs/api/README.md',
      'README.md',
      'CHANGELOG.md',
    ]) {
      expect(packedFiles, f).toContain(f);
    }
    expect(packedFiles.filter((f) => /^(src|test|bench|examples|scripts)\//.test(f))).toEqual([]);
    // Of fixtures/, exactly the example inputs the --help examples run on (`octx-export examples` copies them),
    // and the README of a folder on the way (npm packs every README it passes).
    const extra = (f: string) => f.startsWith('fixtures/') && !f.endsWith('/README.md');
    expect(packedFiles.filter((f) => extra(f) && !EXAMPLE_INPUTS.some((i) => f.startsWith(`fixtures/${i}/`)))).toEqual([]);
    for (const i of EXAMPLE_INPUTS)
      expect(
        packedFiles.some((f) => f.startsWith(`fixtures/${i}/`)),
        i,
      ).toBe(true);
  });

  it('ships no source maps (they would point at src/, which does not ship) and no install-time script that needs unshipped files', () => {
    expect(packedFiles.filter((f) => f.endsWith('.map'))).toEqual([]);
    const js = packedFiles.filter((f) => f.startsWith('dist/') && f.endsWith('.js'));
    expect(js.length).toBeGreaterThan(10);
    expect(js.filter((f) => readFileSync(join(ROOT, f), 'utf8').includes('sourceMappingURL'))).toEqual([]);
    // npm runs prepare (and the install scripts) when the unpacked tarball is installed as a folder: scripts/ and src/ are not there.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(Object.keys(pkg.scripts).filter((s) => ['prepare', 'preinstall', 'install', 'postinstall'].includes(s))).toEqual([]);
  });

  it('every docs/ path the CLI prints (--help, error hints) exists in the tarball', () => {
    const cli = join(ROOT, 'src/cli');
    const paths = new Set<string>();
    for (const e of readdirSync(cli, { recursive: true, withFileTypes: true })) {
      if (!e.isFile() || !e.name.endsWith('.ts')) continue;
      for (const m of readFileSync(join(e.parentPath, e.name), 'utf8').matchAll(/\bdocs\/[A-Za-z0-9_./-]*[A-Za-z0-9_]/g)) paths.add(m[0]);
    }
    expect(paths.size).toBeGreaterThan(0);
    expect([...paths].filter((p) => !packedFiles.includes(p))).toEqual([]);
  });
});

describe('the tarball installed with --ignore-scripts into new projects', () => {
  it.for(['esm', 'cjs'] as const)('a %s project runs the README example: the package it writes is valid', async (kind, ctx) => {
    if (offline !== undefined) return ctx.skip(offline);
    const r = await run(process.execPath, ['example.js'], projects[kind]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sha256:[0-9a-f]{64} false written /); // digest, degraded, structure status, chunk vectors
    const report = await validatePackage(join(projects[kind], 'out/guide.octx'));
    expect(report.valid && report.fullyValidated).toBe(true);
    expect(Object.keys(report.capabilities).sort()).toEqual(['sag-structured', 'vectors']);
  });

  it('both module systems get typed APIs (a .cts and a .mts file type-check against the installed package)', async (ctx) => {
    if (offline !== undefined) return ctx.skip(offline);
    const dir = projects.cjs;
    writeFileSync(
      join(dir, 'check.cts'),
      "import octx = require('octx-export');\nimport sag = require('octx-export/adapters/sag');\nconst b: octx.PackageBuilder = new octx.PackageBuilder({ asset: { name: 'x' } });\nconst f: typeof sag.fromSagDatabase = sag.fromSagDatabase;\nexport const used = [b, f];\n",
    );
    writeFileSync(
      join(dir, 'check.mts'),
      "import { PackageBuilder, type ExportResult } from 'octx-export';\nimport { fromRag } from 'octx-export/adapters/rag';\nexport const b = new PackageBuilder({ asset: { name: 'x' } });\nexport const r: ExportResult | undefined = undefined;\nexport const f = fromRag;\n",
    );
    const tsc = await run(
      process.execPath,
      [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--skipLibCheck',
        '--types',
        'node',
        '--typeRoots',
        join(ROOT, 'node_modules/@types'),
        'check.cts',
        'check.mts',
      ],
      dir,
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  });

  it('npx octx-export --help works; from-sag without the optional SQLite module exits 2 with OCTX_DEPENDENCY_MISSING', async (ctx) => {
    if (offline !== undefined) return ctx.skip(offline);
    const dir = projects.esm;
    const help = await run(NPX, ['--no-install', 'octx-export', '--help'], dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('docs/cli.md (every command), docs/api/README.md');
    expect(existsSync(join(dir, 'node_modules/better-sqlite3'))).toBe(false); // an optional peer: not installed
    const sag = await run(NPX, ['--no-install', 'octx-export', 'from-sag', join(scratch, 'sag.db'), '--source', SAG.source, '-o', 'sag.octx', '--name', 'S'], dir);
    let builtin = false;
    try {
      builtin = process.getBuiltinModule?.('node:sqlite') !== undefined;
    } catch {
      builtin = false;
    }
    if (builtin) {
      expect(sag.code, sag.stderr).toBe(0); // Node ≥ 22.5: node:sqlite needs no install
    } else {
      expect(sag.code).toBe(2);
      expect(sag.stderr).toContain('error[OCTX_DEPENDENCY_MISSING]');
      expect(sag.stderr).toContain('npm install better-sqlite3@12');
    }
    for (const doc of ['docs/cli.md', 'docs/api/README.md']) expect(existsSync(join(dir, 'node_modules/octx-export', doc)), doc).toBe(true);
  });

  it('every --help example runs as printed from a new folder, with the installed command (examples first)', { timeout: 300_000 }, async (ctx) => {
    if (offline !== undefined) return ctx.skip(offline);
    const bin = join(projects.esm, 'node_modules/octx-export/dist/cli/main.js');
    const cwd = join(scratch, 'examples');
    mkdirSync(cwd);
    // from-sag needs SQLite: node:sqlite (Node ≥ 22.5), else the optional peer, which these projects do not install.
    const sqlite = (() => {
      try {
        return process.getBuiltinModule?.('node:sqlite') !== undefined;
      } catch {
        return false;
      }
    })();
    let ran = 0;
    for (const command of COMMANDS) {
      if (command.name === 'from-sag' && !sqlite) continue;
      for (const example of helpExamples(commandHelp(command))) {
        const [, ...args] = shellWords(example);
        const r = await run(process.execPath, [bin, ...args], cwd);
        ran++;
        expect({ example, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ example, code: 0, stderr: '' });
      }
    }
    expect(ran).toBeGreaterThanOrEqual(COMMANDS.length - 1);
  });
});
