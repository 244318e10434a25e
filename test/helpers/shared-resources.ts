/**
 * Expensive things a test run starts once and every test file shares: a compiled copy of the
 * sources for the processes tests spawn, a headless Chromium.
 *
 * How it works. test/global-setup.ts runs {@link startResourceBroker} in vitest's main process:
 * a loopback HTTP server that starts a resource the first time a test file asks for it, hands
 * every later caller the same one, and stops them all when the run ends. Its address reaches the
 * test files (forked workers) through vitest's `provide`/`inject`. A test file calls
 * {@link sharedResource} (`await sharedResource('compiled-sources')`) and gets the resource's
 * description (paths, a port, a WebSocket URL): plain JSON. Nothing starts in a run that does not
 * ask for it (`npm run test:quick` starts no browser).
 *
 * Adding a resource (Chromium, Redis, …):
 * 1. write `test/helpers/<name>.ts` exporting a {@link SharedResource}: `start(dir)` starts it
 *    (in `dir`, a folder of its own inside the run's temporary root) and resolves when it is
 *    ready, with `info` (JSON: what tests need to connect) and `stop()`;
 * 2. add its info type to {@link SharedResources} and its loader to `LOADERS` below.
 * A resource that cannot start makes `sharedResource` throw with its error, so the test fails
 * (the project's rule: in CI a real part that cannot start fails its tests, it never skips them).
 * Tests must leave a shared resource as they found it, or work in a namespace of their own (a
 * fresh browser context, a Redis key prefix or database per file): files run in parallel.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { ChromiumServer } from './chromium-server.js';
import type { CompiledSources } from './compiled-sources.js';

/** The shared resources by name, and what each hands to tests. */
export interface SharedResources {
  /** The sources compiled to JavaScript once per run, for the processes tests start. */
  'compiled-sources': CompiledSources;
  /** One headless Chromium for the run; files connect and open contexts of their own. */
  chromium: ChromiumServer;
}

/** A resource's name. */
export type ResourceName = keyof SharedResources;

/** A started resource: what tests get, and how the broker stops it. */
export interface StartedResource<Info> {
  readonly info: Info;
  stop(): Promise<void>;
}

/** How one resource starts (in vitest's main process, at most once per run). */
export interface SharedResource<Info> {
  start(dir: string): Promise<StartedResource<Info>>;
}

/** Each resource's module, loaded by the broker only when a test asks for it. */
const LOADERS: { readonly [N in ResourceName]: () => Promise<SharedResource<SharedResources[N]>> } = {
  'compiled-sources': async () => (await import('./compiled-sources.js')).compiledSources,
  chromium: async () => (await import('./chromium-server.js')).chromiumServer,
};

/** What global setup provides to the test files: where the broker listens. */
export interface ResourceBrokerAddress {
  readonly url: string;
  /** Sent with each request: only this run's tests use its broker. */
  readonly token: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    resourceBroker: ResourceBrokerAddress;
  }
}

/** A running broker: its address, and `close()` that stops every resource it started. */
export interface ResourceBroker {
  readonly address: ResourceBrokerAddress;
  close(): Promise<void>;
}

/** Resource loaders by name (the broker's table: {@link LOADERS} unless a test gives its own). */
export type ResourceLoaders = Readonly<Record<string, () => Promise<SharedResource<unknown>>>>;

/** Starts the broker (global setup); resources start in folders under `root`. */
export async function startResourceBroker(root: string, loaders: ResourceLoaders = LOADERS): Promise<ResourceBroker> {
  const token = randomBytes(16).toString('hex');
  const started = new Map<string, Promise<StartedResource<unknown>>>();
  const order: string[] = [];
  const start = (name: string): Promise<StartedResource<unknown>> => {
    let p = started.get(name);
    if (p === undefined) {
      const dir = join(root, `resource-${name}`);
      mkdirSync(dir, { recursive: true });
      p = loaders[name]!().then((r) => r.start(dir));
      started.set(name, p);
      order.push(name);
    }
    return p;
  };
  const server: Server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').slice(1));
    const reply = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'POST' || req.headers.authorization !== `Bearer ${token}`) return reply(403, { error: 'not a request of this test run' });
    if (!Object.hasOwn(loaders, name)) return reply(404, { error: `no shared resource named ${JSON.stringify(name)} (known: ${Object.keys(loaders).join(', ')})` });
    start(name).then(
      (r) => reply(200, { info: r.info }),
      (e: unknown) => reply(500, { error: `shared resource ${name} did not start: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    address: { url: `http://127.0.0.1:${port}`, token },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Last started, first stopped; one that failed to start has nothing to stop.
      for (const name of order.reverse()) {
        const r = await started.get(name)!.catch(() => undefined);
        await r?.stop();
      }
    },
  };
}

/** Asks the broker at `address` for the resource `name`: its info, or an Error with the broker's reason. */
export async function requestResource(address: ResourceBrokerAddress, name: string): Promise<unknown> {
  const res = await fetch(`${address.url}/${encodeURIComponent(name)}`, { method: 'POST', headers: { authorization: `Bearer ${address.token}` } });
  const body = (await res.json()) as { info?: unknown; error?: string };
  if (!res.ok) throw new Error(body.error ?? `shared resource ${name}: HTTP ${res.status}`);
  return body.info;
}

const asked = new Map<ResourceName, Promise<unknown>>();

/**
 * The shared resource `name`, started by the run's broker if no test file asked for it before
 * (at most once per run; once per test file, the answer is reused). Throws when it cannot start.
 */
export function sharedResource<N extends ResourceName>(name: N): Promise<SharedResources[N]> {
  let p = asked.get(name);
  if (p === undefined) {
    p = requestResource(inject('resourceBroker'), name);
    asked.set(name, p);
  }
  return p as Promise<SharedResources[N]>;
}
