/**
 * The broker of shared test resources (test/helpers/shared-resources.ts): one start per run
 * whatever the number of callers, a typed refusal for what it does not serve, a failure passed to
 * every caller, and everything stopped (last started first) when the run ends. Run here on a
 * broker of its own, with resources made for the test.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestResource, startResourceBroker, type ResourceLoaders, type SharedResource } from '../helpers/shared-resources.js';
import { tempDir } from '../helpers/temp.js';

/** A resource that counts its starts and logs its stops; `fail` makes its start reject. */
function counted(name: string, log: string[], fail = false): () => Promise<SharedResource<unknown>> {
  let starts = 0;
  return () =>
    Promise.resolve({
      async start(dir: string) {
        starts++;
        log.push(`start ${name}`);
        // Slow enough that concurrent callers all arrive while it starts.
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (fail) throw new Error(`${name}: no such binary`);
        return {
          info: { name, dir, starts },
          stop: () => {
            log.push(`stop ${name}`);
            return Promise.resolve();
          },
        };
      },
    });
}

describe('the shared-resource broker', () => {
  it('starts a resource once for concurrent callers, in a folder of its own, and stops every one at the end, last first', async () => {
    const root = tempDir('octx-broker-');
    const log: string[] = [];
    const loaders: ResourceLoaders = { alpha: counted('alpha', log), beta: counted('beta', log) };
    const broker = await startResourceBroker(root, loaders);
    expect(broker.address.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(broker.address.token).toMatch(/^[0-9a-f]{32}$/);
    const infos = await Promise.all(Array.from({ length: 6 }, () => requestResource(broker.address, 'alpha')));
    const dir = join(root, 'resource-alpha');
    expect(infos).toEqual(Array.from({ length: 6 }, () => ({ name: 'alpha', dir, starts: 1 })));
    expect(existsSync(dir)).toBe(true);
    expect(await requestResource(broker.address, 'beta')).toEqual({ name: 'beta', dir: join(root, 'resource-beta'), starts: 1 });
    expect(await requestResource(broker.address, 'alpha')).toEqual({ name: 'alpha', dir, starts: 1 });
    await broker.close();
    expect(log).toEqual(['start alpha', 'start beta', 'stop beta', 'stop alpha']);
    await expect(requestResource(broker.address, 'alpha')).rejects.toThrow(/fetch failed/);
  });

  it('refuses an unknown resource by name, a request without the run token, and any method but POST', async () => {
    const broker = await startResourceBroker(tempDir('octx-broker-'), { alpha: counted('alpha', []), beta: counted('beta', []) });
    try {
      await expect(requestResource(broker.address, 'redis')).rejects.toThrow('no shared resource named "redis" (known: alpha, beta)');
      await expect(requestResource({ ...broker.address, token: 'x' }, 'alpha')).rejects.toThrow('not a request of this test run');
      const get = await fetch(`${broker.address.url}/alpha`, { headers: { authorization: `Bearer ${broker.address.token}` } });
      expect(get.status).toBe(403);
      expect(await get.json()).toEqual({ error: 'not a request of this test run' });
    } finally {
      await broker.close();
    }
  });

  it('a resource that cannot start fails every caller with its error, and is not retried', async () => {
    const log: string[] = [];
    const broker = await startResourceBroker(tempDir('octx-broker-'), { chromium: counted('chromium', log, true) });
    try {
      const calls = await Promise.allSettled([requestResource(broker.address, 'chromium'), requestResource(broker.address, 'chromium')]);
      for (const c of calls) {
        expect(c.status).toBe('rejected');
        expect(String((c as PromiseRejectedResult).reason)).toMatch(/^Error: shared resource chromium did not start: Error: chromium: no such binary\n {4}at /);
      }
      await expect(requestResource(broker.address, 'chromium')).rejects.toThrow('chromium: no such binary');
      expect(log).toEqual(['start chromium']);
    } finally {
      await broker.close();
    }
    expect(log).toEqual(['start chromium']); // nothing to stop
  });
});
