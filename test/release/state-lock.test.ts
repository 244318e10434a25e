/**
 * Issue 24, items 4 and 5: the state lock appears with its owner record in it, an empty or
 * unreadable lock is stale only once it is a few seconds old, the refusal names the holder or says
 * that none was recorded, a take-over is decided by one marker per stale lock file, and releasing
 * removes only our own lock.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import type { OctxIssue } from '../../src/model/errors.js';
import { ProducerState } from '../../src/release/producer-state.js';
import { PackageBuilder } from '../../src/builder/package-builder.js';
import { UNRECORDED_LOCK_STALE_MS } from '../../src/release/state-lock.js';
import { ROOT, tempDir } from '../helpers/temp.js';

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

const owner = (pid: number, host = hostname()) => `${JSON.stringify({ pid, host, started: '2026-12-01T00:00:00.000Z' })}\n`;

function age(path: string, ms: number): void {
  const t = (Date.now() - ms) / 1000;
  utimesSync(path, t, t);
}

async function lockError(state: string): Promise<OctxError> {
  const e = await ProducerState.load(state)
    .lock()
    .then(
      () => undefined,
      (x: unknown) => x,
    );
  expect(e).toBeInstanceOf(OctxError);
  return e as OctxError;
}

describe('producer state lock', () => {
  it('appears holding its owner record, and is removed on release', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const release = await ProducerState.load(state).lock();
    const record = JSON.parse(readFileSync(`${state}.lock`, 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({ pid: process.pid, host: hostname() });
    expect(record.token).toMatch(/^[0-9a-f]{24}$/);
    // A second export (even in this process) is refused and named.
    const e = await lockError(state);
    expect(e.code).toBe('OCTX_STATE_LOCKED');
    expect(e.message).toContain(`process ${process.pid} on ${hostname()}`);
    await release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an empty lock younger than the stale bound is refused, saying no owner was recorded', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    writeFileSync(`${state}.lock`, '');
    const e = await lockError(state);
    expect(e.code).toBe('OCTX_STATE_LOCKED');
    expect(e.message).toContain('no owner was recorded');
    expect(e.message).toContain(`stale after ${UNRECORDED_LOCK_STALE_MS / 1000} s`);
    expect(existsSync(`${state}.lock`)).toBe(true);
  });

  it('an empty or unreadable lock older than the bound is taken over with a warning', async () => {
    for (const text of ['', '{"pid":', '\u0000\u0000garbage']) {
      const dir = tempDir();
      const state = join(dir, 'state.json');
      writeFileSync(`${state}.lock`, text);
      age(`${state}.lock`, UNRECORDED_LOCK_STALE_MS + 2_000);
      const warnings: OctxIssue[] = [];
      const release = await ProducerState.load(state).lock((w) => warnings.push(w));
      expect(warnings.map((w) => w.code)).toEqual(['OCTX_STATE_LOCK_TAKEN_OVER']);
      expect(warnings[0]!.message).toContain('recorded no owner');
      expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
      await release();
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('while another live process is taking over the same stale lock, the contender is refused', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    writeFileSync(`${state}.lock`, owner(await deadPid()));
    const s = statSync(`${state}.lock`, { bigint: true });
    const marker = `${state}.lock.takeover-${s.ino}-${s.mtimeNs}`;
    writeFileSync(marker, owner(process.ppid));
    const e = await lockError(state);
    expect(e.code).toBe('OCTX_STATE_LOCKED');
    expect(e.message).toContain('is taking over the stale producer state lock');
    expect(e.message).toContain(`process ${process.ppid}`);
    // Nothing was replaced: the stale lock and the other's marker are as they were.
    expect(statSync(`${state}.lock`, { bigint: true }).ino).toBe(s.ino);
    expect(existsSync(marker)).toBe(true);
  });

  it('a marker left by a contender killed mid-take-over is itself taken over, and swept', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const dead = await deadPid();
    writeFileSync(`${state}.lock`, owner(dead));
    const s = statSync(`${state}.lock`, { bigint: true });
    writeFileSync(`${state}.lock.takeover-${s.ino}-${s.mtimeNs}`, owner(dead));
    // A marker of a lock file long gone, and an old temporary record of a dead process.
    writeFileSync(`${state}.lock.takeover-1-2`, owner(dead));
    const oldTemp = join(dir, `.state.json.lock.${dead}.abcdefabcdef.tmp`);
    writeFileSync(oldTemp, owner(dead));
    age(oldTemp, 120_000);
    const warnings: OctxIssue[] = [];
    const release = await ProducerState.load(state).lock((w) => warnings.push(w));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain(`process ${dead}`);
    expect(readdirSync(dir)).toEqual(['state.json.lock']);
    await release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('release leaves a lock that is no longer ours alone', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const release = await ProducerState.load(state).lock();
    // Someone deleted our lock by hand and another export took it.
    writeFileSync(`${state}.lock`, owner(process.ppid));
    await release();
    expect(readFileSync(`${state}.lock`, 'utf8')).toBe(owner(process.ppid));
  });

  it.skipIf(process.platform === 'win32')('a FIFO at the lock path is refused at once, not waited on', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    execFileSync('mkfifo', [`${state}.lock`]);
    const t = Date.now();
    const e = await lockError(state);
    expect(Date.now() - t).toBeLessThan(5_000);
    expect(e.code).toBe('OCTX_STATE_INVALID');
    expect(e.message).toContain('FIFO');
  });

  it('strict refuses a take-over like any warning: nothing written, no release; the next run proceeds', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const out = join(dir, 'out.octx');
    writeFileSync(`${state}.lock`, owner(await deadPid()));
    const build = () =>
      new PackageBuilder({ asset: { name: 'strict' }, release: { version: '1.0.0' }, tempDir: dir, state, strict: true }).addDocument({
        path: 'guide.md',
        markdown: '# Guide\n\nInstall it.\n',
      });
    const refused = build();
    const e = (await refused.export({ output: out }).catch((x: unknown) => x)) as OctxError;
    await refused.dispose();
    expect(e).toBeInstanceOf(OctxError);
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(e.issues.map((i) => i.code)).toEqual(['OCTX_STRICT_VIOLATION', 'OCTX_STATE_LOCK_TAKEN_OVER']);
    expect(readdirSync(dir)).toEqual([]);
    // Without the stale lock, the same strict export succeeds and records its release.
    const result = await build().export({ output: out });
    expect(result.report.warnings).toEqual([]);
    expect(Object.keys((JSON.parse(readFileSync(state, 'utf8')) as { releases: object }).releases)).toEqual(['1.0.0']);
  });

  it.skipIf(process.platform === 'win32')(
    'the CLI releases the lock on SIGTERM, so the next run has nothing to take over',
    async () => {
      const dir = tempDir();
      const state = join(dir, 'state.json');
      const script = `
      import { installSignalCleanup } from './src/cli/signals.ts';
      import { ProducerState } from './src/release/producer-state.ts';
      installSignalCleanup();
      await ProducerState.load(${JSON.stringify(state)}).lock();
      process.stdout.write('locked\\n');
      setInterval(() => undefined, 1000);`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      await new Promise<void>((resolve) => child.stdout.on('data', (c: Buffer) => c.toString().includes('locked') && resolve()));
      expect(existsSync(`${state}.lock`)).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe('SIGTERM');
      expect(existsSync(`${state}.lock`)).toBe(false);
    },
    60_000,
  );
});
