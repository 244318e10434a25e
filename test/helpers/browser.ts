/**
 * The run's headless Chromium for a test file: the broker starts one per run (the shared resource
 * `chromium`, test/helpers/chromium-server.ts) and each file connects to it with playwright-core
 * (`startBrowser` in `beforeAll`), opening fresh contexts for its pages: files running in parallel
 * share the browser process and nothing else. Outside CI a machine without Chromium skips the
 * browser tests with a message saying so; in CI (`CI` set) a browser that cannot start fails
 * them: they must not skip there.
 */
import { chromium, type Browser } from 'playwright-core';
import { sharedResource } from './shared-resources.js';

/** A connected browser (`close()` disconnects this file, closing its contexts), or why there is none. */
export type BrowserStart = { readonly browser: Browser; readonly close: () => Promise<void> } | { readonly browser: undefined; readonly reason: string };

/**
 * Connects to the run's Chromium (started by the broker if no file asked for it before). Without
 * one (or when it cannot start): in CI, throws; elsewhere returns the reason, for
 * `it.skipIf`/`ctx.skip`.
 */
export async function startBrowser(): Promise<BrowserStart> {
  let wsEndpoint: string;
  try {
    ({ wsEndpoint } = await sharedResource('chromium'));
  } catch (e) {
    const reason = (e as Error).message.split('\n')[0]!;
    if (process.env.CI) throw new Error(`CI: the browser tests cannot run: ${reason}`);
    return { browser: undefined, reason: `${reason} (install Debian's chromium: apt-get install chromium)` };
  }
  const browser = await chromium.connect(wsEndpoint, { timeout: 30_000 });
  return { browser, close: () => browser.close() };
}
