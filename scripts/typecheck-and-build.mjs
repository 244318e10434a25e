// The first half of `npm test`: `npm run typecheck` and `npm run build` side by side. Each is one
// TypeScript compiler at a time (a single thread), and neither reads what the other writes (the
// type-check emits nothing; the tests' types come from src/, never from dist/), so on a machine
// with two cores or more they take the time of the longer one instead of their sum. Each one's
// output is printed as a block when it ends, so their lines do not interleave; this exits non-zero
// when either fails (a type error still fails `npm test`), after both have ended.
import { spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

// The build skips the type-check of its ESM half (`--no-check`, see scripts/build.mjs): the
// type-check beside it covers the same sources with the same options, so a type error in src/
// still fails `npm test` — once, from `typecheck`.
const SCRIPTS = [
  { name: 'typecheck', args: [] },
  { name: 'build', args: ['--no-check'] },
];

/** Runs `npm run <name> -- <args>`; resolves with its exit code, its output and its time. */
function run({ name, args: scriptArgs }) {
  const started = performance.now();
  // npm_execpath: the npm that runs `npm test`, so the same one runs the parts.
  const npm = process.env.npm_execpath;
  const npmArgs = ['run', '--silent', name, ...(scriptArgs.length > 0 ? ['--', ...scriptArgs] : [])];
  const [command, args] = npm ? [process.execPath, [npm, ...npmArgs]] : ['npm', npmArgs];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], shell: !npm && process.platform === 'win32' });
  const chunks = [];
  child.stdout.on('data', (d) => chunks.push(d));
  child.stderr.on('data', (d) => chunks.push(d));
  return new Promise((resolve) => {
    const done = (code) => resolve({ name, code, output: Buffer.concat(chunks).toString(), seconds: (performance.now() - started) / 1000 });
    child.once('error', (e) => {
      chunks.push(Buffer.from(`${e.message}\n`));
      done(1);
    });
    child.once('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

const results = await Promise.all(
  SCRIPTS.map((script) =>
    run(script).then((r) => {
      process.stdout.write(`> ${r.name}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`} in ${r.seconds.toFixed(1)} s\n${r.output}`);
      return r;
    }),
  ),
);
const failed = results.filter((r) => r.code !== 0);
if (failed.length > 0) {
  process.stderr.write(`${failed.map((r) => `npm run ${r.name}`).join(' and ')} failed\n`);
  process.exit(1);
}
