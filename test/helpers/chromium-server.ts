/**
 * The shared resource `chromium`: one headless Chromium per test run, started by the broker
 * (test/helpers/shared-resources.ts) in vitest's main process the first time a test file asks for
 * it, and closed when the run ends. Test files connect to it (test/helpers/browser.ts) and work in
 * browser contexts of their own, so files running in parallel share nothing but the process.
 *
 * It is Debian's `chromium` (installed by `.ci/run` when missing), driven by playwright-core
 * through `executablePath` — never a downloaded browser. WebGL without a GPU needs SwiftShader
 * (`--use-angle=swiftshader`, `--enable-unsafe-swiftshader`): the report's graph is drawn with
 * WebGL, and the tests check its canvas has pixels.
 *
 * playwright-core is imported when the browser starts, not at the top: the broker's table of
 * resources imports this module, and a static import would place every file that can reach the
 * broker outside the quick lane (test/helpers/lanes.ts).
 */
import { existsSync } from 'node:fs';
import type { SharedResource } from './shared-resources.js';

/** Where Debian installs Chromium (`OCTX_CHROMIUM` overrides it). */
export const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The flags the browser runs with: headless, offline, no GPU but SwiftShader's WebGL, nothing phoning home. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What test files get: where to connect (`chromium.connect(wsEndpoint)`). */
export interface ChromiumServer {
  readonly wsEndpoint: string;
}

/** The Chromium executable, or undefined. */
export function chromiumPath(): string | undefined {
  const given = process.env.OCTX_CHROMIUM;
  if (given !== undefined && given !== '') return given;
  return CHROMIUM_PATHS.find((p) => existsSync(p));
}

export const chromiumServer: SharedResource<ChromiumServer> = {
  async start() {
    const executablePath = chromiumPath();
    if (executablePath === undefined) throw new Error(`no Chromium at ${CHROMIUM_PATHS.join(' or ')} (OCTX_CHROMIUM unset)`);
    const { chromium } = await import('playwright-core');
    // Playwright gives the browser a fresh profile folder of its own (and removes it on close).
    let server;
    try {
      server = await chromium.launchServer({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
    } catch (e) {
      throw new Error(`Chromium at ${executablePath} did not start: ${(e as Error).message.split('\n')[0]}`);
    }
    return { info: { wsEndpoint: server.wsEndpoint() }, stop: () => server.close() };
  },
};
