/**
 * A real Redis for a test file: Debian's `redis-server`, started on a free loopback port with its
 * own temporary folder, no persistence (`--save ''`, `--appendonly no`), and stopped afterwards
 * (its folder removed). `.ci/run` installs `redis-server` when it is missing. Where it cannot start,
 * a test skips on a developer's machine and fails in CI (`CI` set): the distributed tests must
 * never pass there without having run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running `redis-server` owned by the test. */
export interface TestRedis {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** The server's process id (a test may signal it to simulate an outage). */
  readonly pid: number;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its folder. */
  stop(): Promise<void>;
}

/** A loopback port that was free a moment ago (the server is retried on another if it is taken meanwhile). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Answers PING with PONG over a raw socket: the server is ready for commands. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (text.includes('\r\n')) done(text.startsWith('+PONG'));
    });
    socket.write('PING\r\n');
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

async function startOnce(): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'octx-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited(child);
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const failed = await Promise.race([spawnError, new Promise<undefined>((r) => setTimeout(() => r(undefined), 50))]);
    if (failed) {
      await stop();
      throw new Error(`redis-server could not be started: ${failed.message} (install it: apt-get install -y redis-server)`);
    }
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`redis-server exited with ${child.exitCode}: ${output.trim()}`);
    }
    if (await ping(port)) return { host: '127.0.0.1', port, url: `redis://127.0.0.1:${port}`, pid: child.pid!, stop };
  }
  await stop();
  throw new Error(`redis-server did not answer PING on 127.0.0.1:${port} within 10 s: ${output.trim()}`);
}

/**
 * Starts a private `redis-server`. Returns `undefined` when it cannot start outside CI (the caller
 * skips, saying why); throws in CI.
 */
export async function startRedis(): Promise<TestRedis | undefined> {
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce();
    } catch (e) {
      last = e;
      // A port taken between freePort() and the bind: try another.
    }
  }
  if (process.env.CI) throw last;
  console.warn(`skipping the Redis tests: ${(last as Error).message}`);
  return undefined;
}
