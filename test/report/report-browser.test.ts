/**
 * The report in a real browser: Debian's headless Chromium (test/helpers/browser.ts), one per
 * run (the broker's), a fresh context per page. For each fixture — the demo, a documents-only package, a
 * derived package with its diff, a `from-sag` package, a synthetic package with vectors drawn
 * under a node budget — the page loads from file:// with no console error and no request but its
 * own; the numbers on the page are the package's (counted with the reader); the graph's WebGL
 * canvas has pixels; clicking a node lists its events or entities; a screenshot is written to
 * test-output/report/. The hostile package's markup and scripts stay text and run nothing.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport, type RenderReportOptions, type ReportResult } from 'octx-export/report';
import { startBrowser } from '../helpers/browser.js';
import { ensureReportPage } from '../helpers/report-page.js';
import { ROOT } from '../helpers/temp.js';
import {
  demoPackage,
  derivedPackage,
  documentsOnlyPackage,
  fromSagPackage,
  HOSTILE,
  hostilePackage,
  packageCounts,
  syntheticPackage,
  type PackageCounts,
} from './report-fixtures.js';

// What the callbacks that run in the page use of it: this program has no DOM types (Node's).
declare const window: { readonly octxReport?: { readonly graph: { nodePosition(id: string): { x: number; y: number } | null } | null } };
declare const document: {
  getElementById(id: string): { getAttribute(name: string): string | null } | null;
  createElement(tag: 'canvas'): {
    width: number;
    height: number;
    getContext(kind: '2d'): { drawImage(image: unknown, x: number, y: number): void; getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
  };
};
declare class Image {
  src: string;
  readonly width: number;
  readonly height: number;
  decode(): Promise<void>;
}

/** Where the screenshots go (git-ignored). */
const SHOTS = join(ROOT, 'test-output/report');

let browser: Browser | undefined;
let closeBrowser: (() => Promise<void>) | undefined;
let skipReason = '';
let dir: string;

beforeAll(async () => {
  await ensureReportPage();
  const started = await startBrowser();
  if (started.browser) {
    browser = started.browser;
    closeBrowser = started.close;
  } else skipReason = started.reason;
  dir = mkdtempSync(join(tmpdir(), 'octx-report-browser-'));
  mkdirSync(SHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await closeBrowser?.();
  rmSync(dir, { recursive: true, force: true });
});

let demo: Promise<string> | undefined;
/** The demo package, built once for the tests that show it and derive from it. */
const demoOnce = (): Promise<string> => (demo ??= demoPackage(dir));

/** A loaded page and what it did while loading. */
interface Loaded {
  readonly page: Page;
  readonly errors: string[];
  readonly requests: string[];
  readonly url: string;
  readonly close: () => Promise<void>;
}

/** Renders `pkg` to `<name>.html` and opens it. */
async function open(name: string, pkg: string, options: RenderReportOptions = {}): Promise<{ result: ReportResult } & Loaded> {
  const result = await renderReport(pkg, { ...options, output: join(dir, `${name}.html`) });
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  const url = pathToFileURL(result.output!).href;
  await page.goto(url);
  await page.waitForFunction(() => window.octxReport !== undefined);
  return { result, page, errors, requests, url, close: () => context.close() };
}

/** The number in an element's text (`1,234` → 1234). */
async function numberIn(page: Page, selector: string): Promise<number> {
  const text = await page.locator(selector).first().textContent();
  return Number((text ?? '').replace(/,/g, ''));
}

/** Pixels of the graph element that are not its background, decoded in a blank page (no CSP there). */
async function graphPixels(page: Page): Promise<number> {
  // Let sigma draw its frames first.
  await page.waitForTimeout(300);
  const png = await page.locator('#graph').screenshot();
  const blank = await page.context().newPage();
  try {
    return await blank.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const ctx = c.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      const [r0, g0, b0] = [d[(c.width * 8 + 8) * 4]!, d[(c.width * 8 + 8) * 4 + 1]!, d[(c.width * 8 + 8) * 4 + 2]!];
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i]! - r0) + Math.abs(d[i + 1]! - g0) + Math.abs(d[i + 2]! - b0) > 60) n++;
      return n;
    }, png.toString('base64'));
  } finally {
    await blank.close();
  }
}

/** The checks every fixture's page passes. */
async function commonChecks(l: Loaded & { result: ReportResult }, counts: PackageCounts, name: string): Promise<void> {
  const { page, result } = l;
  expect(l.errors).toEqual([]);
  expect(l.requests).toEqual([l.url]);
  // Structure counts on the page are the package's.
  if (result.data.structure) {
    for (const [path, n] of Object.entries(counts.records)) expect(await numberIn(page, `[data-count="${path}"]`), path).toBe(n);
  }
  // Documents: one row per document (within the row budget), and the note says how many in all.
  const rows = await page.locator('#documents-table tbody tr').count();
  expect(rows).toBe(Math.min(counts.documents, 2000));
  expect(await page.locator('#documents-note').textContent()).toContain(String(counts.documents));
  for (const [target, n] of Object.entries(counts.vectors)) expect(await numberIn(page, `[data-rows="${target}"]`), target).toBe(n);
  expect(await page.locator('#verdict').textContent()).toBe(
    result.data.validation.valid ? (result.data.validation.fullyValidated ? 'valid' : 'valid, not every capability checked') : 'INVALID',
  );
  // Selecting a document shows its Markdown as text.
  await page.locator('#documents-table tbody tr').first().click();
  const first = result.data.documents.rows[0]!;
  expect(await page.locator('#doc-title').textContent()).toBe(first.path);
  expect(await page.locator('#doc-text').textContent()).toContain(first.text!.slice(0, 200));
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Clicks the drawn node `id` and returns the texts of the details panel's list `name`. */
async function clickNode(page: Page, id: string, name: string): Promise<string[]> {
  const pos = await page.evaluate((nodeId) => window.octxReport!.graph!.nodePosition(nodeId), id);
  expect(pos, `node ${id} is drawn`).not.toBeNull();
  await page.locator('#graph').scrollIntoViewIfNeeded();
  const box = (await page.locator('#graph').boundingBox())!;
  await page.mouse.click(box.x + pos!.x, box.y + pos!.y);
  await page.waitForFunction((nodeId) => document.getElementById('node-details')?.getAttribute('data-node-id') === nodeId, id);
  return page.locator(`#node-details [data-list="${name}"] li`).allTextContents();
}

describe('the report in Chromium', () => {
  it('the demo package: counts, a drawn graph with pixels, a click on the top entity lists its events', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const pkg = await demoOnce();
    const l = await open('demo', pkg);
    try {
      await commonChecks(l, await packageCounts(pkg), 'demo');
      expect(await graphPixels(l.page)).toBeGreaterThan(2000);
      const g = l.result.data.graph!;
      const top = g.nodes.reduce(
        (a, n, i) => (n.kind === 'entity' && n.degree > g.nodes[a]!.degree ? i : a),
        g.nodes.findIndex((n) => n.kind === 'entity'),
      );
      const events = g.edges.filter(([, b]) => b === top).map(([a]) => g.nodes[a]!.label);
      expect(events.length).toBe(g.nodes[top]!.degree);
      expect((await clickNode(l.page, g.nodes[top]!.id, 'events')).sort()).toEqual(events.sort());
      // Its events' chunks name their documents.
      expect((await l.page.locator('#node-details [data-list="documents"] li').allTextContents()).every((p) => p.startsWith('knowledge/'))).toBe(true);
      expect(l.errors).toEqual([]);
    } finally {
      await l.close();
    }
  });

  it('a documents-only package: no structure or graph section, every document listed', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const pkg = await documentsOnlyPackage(dir);
    const l = await open('documents-only', pkg);
    try {
      await commonChecks(l, await packageCounts(pkg), 'documents-only');
      expect(await l.page.locator('#structure').count()).toBe(0);
      expect(await l.page.locator('#graph').count()).toBe(0);
      expect(await l.page.locator('[data-fact="capabilities"]').textContent()).toBe('none — documents only');
      // The filter narrows the table to the matching rows.
      await l.page.locator('#documents-filter').fill('guide');
      const visible = await l.page.locator('#documents-table tbody tr:visible').count();
      expect(visible).toBe(l.result.data.documents.rows.filter((r) => `${r.path} ${r.title}`.toLowerCase().includes('guide')).length);
    } finally {
      await l.close();
    }
  });

  it('a derived package with --previous: the diff table at the top, derived_from and the consumer verdict', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const source = await demoOnce();
    const pkg = await derivedPackage(dir, source);
    const l = await open('derived', pkg, { previous: source, consumer: 'sag-1.7' });
    try {
      await commonChecks(l, await packageCounts(pkg), 'derived');
      const diff = l.result.data.diff!;
      expect(diff.relation).toBe('derived');
      const added = diff.documents.find(([cat]) => cat === 'added')!;
      expect(added[1]).toBeGreaterThan(0);
      expect(await numberIn(l.page, '#diff-documents [data-diff="added"] td.num')).toBe(added[1]);
      // The diff section comes before the validation section.
      expect(await l.page.locator('main > section').evaluateAll((sections) => sections.slice(0, 2).map((s) => s.id))).toEqual(['diff', 'validation']);
      expect(await l.page.locator('[data-fact="derived from"]').textContent()).toContain(l.result.data.asset.derivedFrom!.assetId!);
      expect(await l.page.locator('#consumer-verdict').textContent()).toBe(l.result.data.validation.consumer!.verdict);
    } finally {
      await l.close();
    }
  });

  it('a from-sag package', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const pkg = await fromSagPackage(dir);
    const l = await open('from-sag', pkg);
    try {
      await commonChecks(l, await packageCounts(pkg), 'from-sag');
      expect(await graphPixels(l.page)).toBeGreaterThan(1000);
    } finally {
      await l.close();
    }
  });

  it('a package with vectors past the node budget: the page says how many nodes are drawn of how many; an event click lists its entities and chunks', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const pkg = await syntheticPackage(dir, { documents: 60, chunksPerDocument: 10, entities: 120, dimensions: 8 });
    const l = await open('vectors', pkg, { maxNodes: 150 });
    try {
      await commonChecks(l, await packageCounts(pkg), 'vectors');
      const g = l.result.data.graph!;
      expect(await l.page.locator('#graph-note').textContent()).toContain(`Showing 150 of ${g.totalNodes.toLocaleString('en-US')} nodes (node budget 150)`);
      expect(await graphPixels(l.page)).toBeGreaterThan(2000);
      const event = g.nodes.findIndex((n) => n.kind === 'event');
      const entities = g.edges.filter(([a]) => a === event).map(([, b]) => `${g.nodes[b]!.label} (${g.nodes[b]!.type})`);
      expect((await clickNode(l.page, g.nodes[event]!.id, 'entities')).sort()).toEqual(entities.sort());
      const chunks = await l.page.locator('#node-details [data-list="chunks"] li').allTextContents();
      expect(chunks.length).toBe(g.nodes[event]!.chunkCount);
      expect(chunks[0]).toMatch(/^knowledge\/section-\d\/doc-\d+\.md · chunk \d+$/);
      expect(await l.page.locator('[data-chart="norms-entities"] .row').count()).toBe(l.result.data.vectors.find((v) => v.target === 'entities')!.norms.counts.length);
    } finally {
      await l.close();
    }
  });

  it('a hostile package: its markup and scripts are shown as text and run nothing; nothing remote can load', async (ctx) => {
    if (!browser) return ctx.skip(skipReason);
    const pkg = await hostilePackage(dir);
    const l = await open('hostile', pkg);
    try {
      await l.page.locator('#documents-table tbody tr').first().click();
      await l.page.waitForTimeout(300);
      expect(await l.page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(l.errors).toEqual([]);
      expect(await l.page.locator('#asset-name').textContent()).toBe(HOSTILE.assetName);
      expect(await l.page.title()).toBe(`${HOSTILE.assetName} 1.0.0 — octx report`);
      expect(await l.page.locator('#documents-table tbody td').nth(1).textContent()).toBe(HOSTILE.title);
      expect(await l.page.locator('#doc-text').textContent()).toContain(HOSTILE.markdown);
      expect(await l.page.locator('[data-chart="entity-types"] .label').first().textContent()).toBe(HOSTILE.type);
      // No element came from the package: the only img/script elements are none and the page's two.
      expect(await l.page.locator('img').count()).toBe(0);
      expect(await l.page.locator('script').count()).toBe(2);
      const g = l.result.data.graph!;
      const entity = g.nodes.findIndex((n) => n.kind === 'entity');
      expect(await clickNode(l.page, g.nodes[entity]!.id, 'events')).toEqual([HOSTILE.event]);
      expect(await l.page.locator('#node-details h3').first().textContent()).toBe(HOSTILE.entity);
      expect(await l.page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
      // The CSP refuses a request the page did not plan (connect-src 'none'), before it leaves.
      const fetched = await l.page.evaluate(() =>
        fetch('http://127.0.0.1:9/x').then(
          () => 'fetched',
          (e: Error) => e.name,
        ),
      );
      expect(fetched).toBe('TypeError');
      expect(l.requests).toEqual([l.url]);
      expect(l.errors.some((e) => /Content Security Policy/.test(e))).toBe(true);
      await l.page.screenshot({ path: join(SHOTS, 'hostile.png'), fullPage: true });
    } finally {
      await l.close();
    }
  });
});
