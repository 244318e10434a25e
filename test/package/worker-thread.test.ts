/**
 * The one worker helper (`package/worker-thread.ts`) every worker of the SDK is started with:
 * start, handshake, messages, failure and exit, `execArgv` hygiene, and settling on a stop.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { WorkerThread, type WorkerThreadOptions } from '../../src/package/worker-thread.js';
import { tempDir } from '../helpers/temp.js';

const REPO = join(import.meta.dirname, '..', '..');

/** A worker (CommonJS source) that says ready, then answers each message with `reply(m)`. */
const echo = (reply: string): string =>
  `const { parentPort, workerData } = require('node:worker_threads');\nparentPort.on('message', (m) => { ${reply} });\nparentPort.postMessage({ ready: true });`;

/** Starts `source` and records what the helper reports. */
function started(source: string, more: Partial<WorkerThreadOptions> = {}): { thread: WorkerThread; messages: unknown[]; ends: Error[] } {
  const messages: unknown[] = [];
  const ends: Error[] = [];
  const thread = WorkerThread.start({
    entry: { file: source, eval: true },
    name: 'test worker',
    handshake: true,
    onMessage: (m) => messages.push(m),
    onEnd: (e) => ends.push(e),
    ...more,
  });
  return { thread, messages, ends };
}

/** Waits until `done()` or two seconds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) await sleep(5);
}

describe('WorkerThread', () => {
  it('says ready after the handshake, passes messages on (not the handshake), and starts with no execArgv', async () => {
    let options: WorkerOptions | undefined;
    const { thread, messages, ends } = started(echo('parentPort.postMessage({ got: m, data: workerData })'), {
      workerData: { job: 7 },
      create: (file, o) => {
        options = o;
        return new Worker(file, o);
      },
    });
    expect(options).toEqual({ execArgv: [], eval: true, workerData: { job: 7 } });
    expect(await thread.ready).toBe(true);
    thread.post('one');
    thread.post({ two: 2 });
    await until(() => messages.length === 2);
    expect(messages).toEqual([
      { got: 'one', data: { job: 7 } },
      { got: { two: 2 }, data: { job: 7 } },
    ]);
    expect(thread.running).toBe(true);
    await thread.terminate();
    expect(thread.running).toBe(false);
    expect(ends.map((e) => e.message)).toEqual(['test worker terminated']);
  });

  it('without a handshake is ready as soon as it is made', async () => {
    const { thread, messages } = started("require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m * 2));", {
      handshake: false,
    });
    expect(await thread.ready).toBe(true);
    thread.post(21);
    await until(() => messages.length === 1);
    expect(messages).toEqual([42]);
    await thread.terminate();
  });

  it('a worker that cannot be made: not ready, not running, nothing to end, posts dropped', async () => {
    const { thread, ends } = started('unused', {
      create: () => {
        throw new Error('worker threads are not available here');
      },
    });
    expect(await thread.ready).toBe(false);
    expect(thread.running).toBe(false);
    thread.post('ignored');
    await thread.terminate();
    expect(ends).toEqual([]);
  });

  it('a worker file that does not load: not ready, and ended with the loader error', async () => {
    const messages: unknown[] = [];
    const ends: Error[] = [];
    const thread = WorkerThread.start({
      entry: { file: join(tempDir(), 'no-such-worker.js') },
      name: 'test worker',
      handshake: true,
      onMessage: (m) => messages.push(m),
      onEnd: (e) => ends.push(e),
    });
    expect(await thread.ready).toBe(false);
    await until(() => ends.length > 0);
    expect(ends).toHaveLength(1);
    expect(ends[0]!.message).toMatch(/no-such-worker\.js|Cannot find module/);
    expect(thread.running).toBe(false);
  });

  it('a worker that throws while loading: not ready, ended with its error', async () => {
    const { thread, ends } = started("throw new Error('broken entry');");
    expect(await thread.ready).toBe(false);
    await until(() => ends.length > 0);
    expect(ends.map((e) => e.message)).toEqual(['broken entry']);
  });

  it('a worker that dies mid-job: ended once with its exit code, later posts dropped', async () => {
    const { thread, ends, messages } = started(echo('process.exit(3)'));
    expect(await thread.ready).toBe(true);
    thread.post('job');
    await until(() => ends.length > 0);
    expect(ends.map((e) => e.message)).toEqual(['test worker exited (3)']);
    expect(thread.running).toBe(false);
    thread.post('after');
    await thread.terminate();
    expect(ends).toHaveLength(1);
    expect(messages).toEqual([]);
  });

  it('a worker that reports { error }: ended with it and stopped', async () => {
    const { thread, ends, messages } = started(echo("parentPort.postMessage({ error: 'cannot read ' + m })"));
    expect(await thread.ready).toBe(true);
    thread.post('x.bin');
    await until(() => ends.length > 0);
    expect(ends.map((e) => e.message)).toEqual(['test worker: cannot read x.bin']);
    expect(messages).toEqual([]);
    expect(thread.running).toBe(false);
  });

  it('an abort mid-job (terminate with a reason) settles at once, even a worker stuck in a loop', async () => {
    const { thread, ends } = started(echo('for (;;) {}'));
    expect(await thread.ready).toBe(true);
    thread.post('spin');
    const t0 = performance.now();
    await thread.terminate(new Error('aborted'));
    expect(performance.now() - t0).toBeLessThan(2_000);
    await thread.terminate();
    expect(ends.map((e) => e.message)).toEqual(['aborted']);
    expect(thread.running).toBe(false);
  });

  it('a stop before the handshake: ready says false', async () => {
    const { thread, ends } = started("setTimeout(() => require('node:worker_threads').parentPort.postMessage({ ready: true }), 5000);");
    await thread.terminate();
    expect(await thread.ready).toBe(false);
    expect(ends.map((e) => e.message)).toEqual(['test worker terminated']);
  });

  it('does not pass the process its execArgv (loaders, flags) on to the worker', () => {
    // The parent runs under tsx with a V8 flag; the worker must see neither.
    const script = [
      "import { WorkerThread } from './src/package/worker-thread.ts';",
      'const t = WorkerThread.start({',
      '  entry: { file: "require(\'node:worker_threads\').parentPort.postMessage({ argv: process.execArgv })", eval: true },',
      "  name: 'probe', handshake: false,",
      '  onMessage: (m) => { console.log(JSON.stringify({ parent: process.execArgv, worker: m.argv })); void t.terminate(); },',
      '});',
    ].join('\n');
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--stack-trace-limit=7', '--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 20_000 });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout.trim()) as { parent: string[]; worker: string[] };
    expect(out.parent).toEqual(expect.arrayContaining(['--import', 'tsx', '--stack-trace-limit=7']));
    expect(out.worker).toEqual([]);
  });
});
