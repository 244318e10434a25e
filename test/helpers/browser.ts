/**
 * One headless Chromium for a test file: Debian's `chromium` (installed by `.ci/run` when
 * missing), driven by playwright-core through `executablePath` — never a downloaded browser.
 * Starting it costs a second or two, so a test file starts it once (`startBrowser` in
 * `beforeAll`) and opens a fresh context per page. Outside CI a machine without Chromium skips
 * the browser tests with a message saying so; in CI (`CI` set) a browser that cannot start fails
 * them: they must not skip there.
 *
 * WebGL without a GPU needs SwiftShader (`--use-angle=swiftshader`, `--enable-unsafe-swiftshader`):
 * the report's graph is drawn with WebGL, and the tests check its canvas has pixels.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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

/** A started browser, or why there is none. */
export type BrowserStart = { readonly browser: Browser; readonly close: () => Promise<void> } | { readonly browser: undefined; readonly reason: string };

/** The Chromium executable, or undefined. */
export function chromiumPath(): string | undefined {
  const given = process.env.OCTX_CHROMIUM;
  if (given !== undefined && given !== '') return given;
  return CHROMIUM_PATHS.find((p) => existsSync(p));
}

/**
 * Starts Chromium (with a fresh profile). Without one (or when it cannot start): in CI,
 * throws; elsewhere returns the reason, for `it.skipIf`/`ctx.skip`.
 */
export async function startBrowser(): Promise<BrowserStart> {
  const executablePath = chromiumPath();
  const fail = (reason: string): BrowserStart => {
    if (process.env.CI) throw new Error(`CI: the browser tests cannot run: ${reason}`);
    return { browser: undefined, reason: `${reason} (install Debian's chromium: apt-get install chromium)` };
  };
  if (executablePath === undefined) return fail(`no Chromium at ${CHROMIUM_PATHS.join(' or ')} (OCTX_CHROMIUM unset)`);
  try {
    // Playwright gives every launch a fresh profile folder of its own (and removes it on close).
    const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
    return { browser, close: () => browser.close() };
  } catch (e) {
    return fail(`Chromium at ${executablePath} did not start: ${(e as Error).message.split('\n')[0]}`);
  }
}
