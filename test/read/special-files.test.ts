/**
 * Issue 16, item 5: a FIFO (or any other non-regular file) given as a package path is refused at
 * once with `OCTX_OPEN_ERROR`; opening a FIFO for reading would block until a writer appears,
 * which can be never (the process could not even exit).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from '../../src/read/index.js';
import { tempDir } from './helpers.js';

function hasMkfifo(): boolean {
  if (process.platform === 'win32') return false;
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    // BSD mkfifo has no --version: try making one.
    try {
      const probe = join(process.env.TMPDIR ?? '/tmp', `octx-fifo-probe-${process.pid}`);
      execFileSync('mkfifo', [probe], { stdio: 'ignore' });
      execFileSync('rm', ['-f', probe]);
      return true;
    } catch {
      return false;
    }
  }
}

/** Fails (instead of hanging) when `p` has not settled within `ms`. */
async function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Unblocks a reader stuck in open(2) on the FIFO (the old behaviour), so the worker can exit. */
function releaseFifo(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: nobody is blocked on it.
  }
}

describe('non-regular package paths (OCTX_OPEN_ERROR, at once)', () => {
  it.skipIf(!hasMkfifo())('refuses a FIFO in validatePackage and openPackage without blocking', async () => {
    const fifo = join(await tempDir(), 'pkg.octx');
    execFileSync('mkfifo', [fifo]);
    try {
      const r = await within(3000, validatePackage(fifo));
      expect(r.valid).toBe(false);
      expect(r.issues.map((i) => i.code)).toEqual(['OCTX_OPEN_ERROR']);
      await expect(within(3000, openPackage(fifo))).rejects.toMatchObject({ code: 'OCTX_OPEN_ERROR' });
    } finally {
      releaseFifo(fifo);
      releaseFifo(fifo);
    }
  });

  it.skipIf(!existsSync('/dev/zero'))('refuses a character device', async () => {
    const r = await within(3000, validatePackage('/dev/zero'));
    expect(r.issues.map((i) => i.code)).toEqual(['OCTX_OPEN_ERROR']);
    await expect(within(3000, openPackage('/dev/zero'))).rejects.toMatchObject({ code: 'OCTX_OPEN_ERROR' });
  });
});
