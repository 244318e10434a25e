/**
 * `renderReport` without a browser: what the page's data says against what the package holds
 * (counted with the reader), byte-identical pages, the page's shape (one file, CSP hashes of
 * exactly the inline blocks, the data block's escaping), the budgets, writing the output, and
 * the typed errors. The browser tests (report-browser.test.ts) load the same pages in Chromium.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport, type ReportData } from 'octx-export/report';
import { jsonForScript } from '../../src/report/html-page.js';
import { readPageScript } from '../../src/report/page-script.js';
import { sampleRows } from '../../src/report/collect-documents.js';
import { countHistogram, valueHistogram } from '../../src/report/histogram.js';
import { failure, failureAsync } from '../helpers/errors.js';
import { ensureReportPage } from '../helpers/report-page.js';
import { tempDir } from '../helpers/temp.js';
import { demoPackage, HOSTILE, hostilePackage, packageCounts, syntheticPackage, uid, type PackageCounts } from './report-fixtures.js';

let dir: string;
let demo: string;
let synthetic: string;
let demoCounts: PackageCounts;

beforeAll(async () => {
  await ensureReportPage();
  // Not tempDir(): the packages serve every test of the file.
  dir = mkdtempSync(join(tmpdir(), 'octx-report-'));
  demo = await demoPackage(dir);
  synthetic = await syntheticPackage(dir, { documents: 40, chunksPerDocument: 10, entities: 60, dimensions: 8 });
  demoCounts = await packageCounts(demo);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The data block of a page, parsed. */
function dataOf(html: string): ReportData {
  const m = /<script type="application\/json" id="octx-report-data">([^<]*)<\/script>/.exec(html);
  if (!m) throw new Error('no data block');
  return JSON.parse(m[1]!) as ReportData;
}

describe('what the page says is what the package holds', () => {
  it('the demo: counts per record kind, documents, validation, graph, and the data block equals the result', async () => {
    const r = await renderReport(demo);
    const d = r.data;
    expect(Object.fromEntries(d.structure!.counts)).toEqual(demoCounts.records);
    expect(d.documents.total).toBe(demoCounts.documents);
    expect(d.documents.rows.map((row) => row.path)).toHaveLength(demoCounts.documents);
    expect(d.validation).toMatchObject({ valid: true, fullyValidated: true, formatValid: true, issueCount: 0 });
    expect(d.validation.capabilities).toEqual([['sag-structured', 'valid']]);
    expect(d.asset).toMatchObject({ name: 'Three Kingdoms', version: '1.0.0', format: 'octx 0.1' });
    expect(d.asset.packageDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Every event and entity is a node, every event-entity link an edge (under the budgets).
    const g = d.graph!;
    expect(g.totalNodes).toBe(demoCounts.records['data/events.jsonl']! + demoCounts.records['data/entities.jsonl']!);
    expect(g.nodes).toHaveLength(g.totalNodes);
    expect(g.totalEdges).toBe(demoCounts.records['relations/event-entities.jsonl']);
    expect(g.edges).toHaveLength(g.totalEdges);
    // Each row's chunks add up to the chunks of the package (every chunk belongs to a document).
    expect(d.documents.rows.reduce((s, row) => s + row.chunks, 0)).toBe(demoCounts.records['data/chunks.jsonl']);
    // Histograms count every record once.
    const sum = (h: { counts: readonly number[] }) => h.counts.reduce((a, b) => a + b, 0);
    expect(sum(d.structure!.eventsPerChunk)).toBe(demoCounts.records['data/chunks.jsonl']);
    expect(sum(d.structure!.chunksPerEvent)).toBe(demoCounts.records['data/events.jsonl']);
    expect(d.structure!.entityTypes.reduce((s, [, n]) => s + n, 0)).toBe(demoCounts.records['data/entities.jsonl']);
    expect(dataOf(r.html)).toEqual(JSON.parse(JSON.stringify(d)));
    expect(r.bytes).toBe(Buffer.byteLength(r.html));
  });

  it('the synthetic package: exact per-document counts, degrees, and vector rows and norms', async () => {
    const counts = await packageCounts(synthetic);
    const d = (await renderReport(synthetic)).data;
    expect(Object.fromEntries(d.structure!.counts)).toEqual(counts.records);
    // Document 3 has chunks 30…39, paired into events 15…19; event 17 also links chunk 32 (its own document).
    const doc3 = d.documents.rows.find((row) => row.path === 'knowledge/section-3/doc-3.md')!;
    expect(doc3).toMatchObject({ title: 'Document 3', kind: 'concept', chunks: 10, events: 5, chunksWithoutEvents: 0 });
    // Document 5 (chunks 50…59, events 25…29): event 25 links chunk 48 of document 4, so document 4 counts 6 distinct events.
    expect(d.documents.rows.find((row) => row.path === 'knowledge/section-4/doc-4.md')).toMatchObject({ chunks: 10, events: 6 });
    // 200 events; 50 of them (e % 4 === 1) give a second event to one chunk.
    expect(d.structure!.eventsPerChunk.counts.slice(0, 3)).toEqual([0, 350, 50]);
    expect(d.structure!.chunksPerEvent.counts.slice(0, 4)).toEqual([0, 0, 150, 50]);
    // Entity 0 is in every tenth event: the top entity by degree.
    const events = counts.records['data/events.jsonl']!;
    expect(d.structure!.topEntities[0]).toEqual(['Entity 0', 'person', Math.ceil(events / 10)]);
    expect(d.vectors.map((v) => [v.target, v.rows])).toEqual(Object.entries(counts.vectors));
    expect(d.vectorConfig).toEqual({ model: 'synthetic/hash', dimensions: 8, normalized: false, fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    // Entity vectors are one-hot with a value of 1, 2 or 3: norms 1, 2 and 3 exactly.
    const entities = d.vectors.find((v) => v.target === 'entities')!;
    expect([entities.minNorm, entities.maxNorm, entities.normsSampled]).toEqual([1, 3, 60]);
    expect(entities.norms.counts.reduce((a, b) => a + b, 0)).toBe(60);
    expect([entities.norms.counts[0], entities.norms.counts.at(-1)]).toEqual([20, 20]);
  });
});

describe('the page', () => {
  it('is byte-identical for the same package and options; timestamp adds the time and nothing else', async () => {
    const a = await renderReport(synthetic);
    const b = await renderReport(synthetic);
    expect(createHash('sha256').update(b.html).digest('hex')).toBe(createHash('sha256').update(a.html).digest('hex'));
    const at = new Date('2026-03-04T05:06:07Z');
    const t = await renderReport(synthetic, { timestamp: at });
    expect(t.data.renderedAt).toBe('2026-03-04T05:06:07.000Z');
    expect({ ...t.data, renderedAt: null }).toEqual(a.data);
    expect(a.data.renderedAt).toBeNull();
  });

  it('is one file: no src or href, a CSP of exactly its two inline blocks, nothing remote', async () => {
    const { html } = await renderReport(demo);
    expect(html).not.toMatch(/\s(src|href)=/i);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!.replace(/&#39;/g, "'");
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      `script-src ${hash(script)}`,
      `style-src ${hash(style)}`,
      "img-src 'none'",
      "connect-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ]);
    expect(script).toBe(readPageScript());
    expect(html.match(/<script/g)).toHaveLength(2); // the data block and the page script
    expect(csp).not.toContain('unsafe');
  });

  it('escapes every package string in the data block: no markup, no early end, the same strings when parsed', async () => {
    const hostile = await hostilePackage(tempDir());
    const r = await renderReport(hostile);
    const block = /<script type="application\/json" id="octx-report-data">([\s\S]*?)<\/script>/.exec(r.html)![1]!;
    expect(block).not.toMatch(/[<>&\u2028\u2029]/);
    const d = dataOf(r.html);
    expect(d.asset.name).toBe(HOSTILE.assetName);
    expect(d.documents.rows[0]).toMatchObject({ title: HOSTILE.title });
    expect(d.documents.rows[0]!.text).toContain(HOSTILE.markdown);
    expect(d.graph!.nodes.map((n) => n.label).sort()).toEqual([HOSTILE.event, HOSTILE.entity].sort());
    expect(d.structure!.entityTypes).toEqual([[HOSTILE.type, 1]]);
    // The only markup in the page is the page's own: the title element holds the name as text.
    expect(r.html).toContain(`<title>&#60;img src=x onerror=&#34;window.__pwned=&#39;asset&#39;&#34;&#62;Hostile 1.0.0 — octx report</title>`);
    expect(jsonForScript({ s: '</script>\u2028&' })).toBe('{"s":"\\u003c/script\\u003e\\u2028\\u0026"}');
  });
});

describe('budgets', () => {
  it('past maxNodes: the entities of highest degree, then the events most linked to them; their links; the totals', async () => {
    const full = (await renderReport(synthetic)).data.graph!;
    const g = (await renderReport(synthetic, { maxNodes: 25, maxEdges: 30 })).data.graph!;
    expect(g.nodes).toHaveLength(25);
    expect(g.totalNodes).toBe(full.totalNodes);
    // 40 % of the budget: the 10 entities of highest degree.
    const entities = g.nodes.filter((n) => n.kind === 'entity');
    const byDegree = full.nodes.filter((n) => n.kind === 'entity').sort((a, b) => b.degree - a.degree);
    expect(entities).toHaveLength(10);
    expect(Math.min(...entities.map((n) => n.degree))).toBeGreaterThanOrEqual(byDegree[9]!.degree);
    // Then 15 events, each linked to at least as many of those entities as any event left out.
    const chosen = new Set(entities.map((n) => n.id));
    const linksIn = (eventId: string): number => {
      const i = full.nodes.findIndex((n) => n.id === eventId);
      return full.edges.filter(([a, b]) => a === i && chosen.has(full.nodes[b]!.id)).length;
    };
    const drawn = g.nodes.filter((n) => n.kind === 'event');
    expect(drawn).toHaveLength(15);
    const left = full.nodes.filter((n) => n.kind === 'event' && !drawn.some((d) => d.id === n.id));
    expect(Math.min(...drawn.map((n) => linksIn(n.id)))).toBeGreaterThanOrEqual(Math.max(...left.map((n) => linksIn(n.id))));
    // Every drawn event has an edge; the edges are the package's links among drawn nodes, at most maxEdges.
    expect(g.edgesAmongNodes).toBeGreaterThanOrEqual(15);
    expect(g.edges).toHaveLength(Math.min(30, g.edgesAmongNodes));
    for (const [a, b] of g.edges) expect([g.nodes[a]!.kind, g.nodes[b]!.kind]).toEqual(['event', 'entity']);
    expect([g.maxNodes, g.maxEdges]).toEqual([25, 30]);
  });

  it('past maxDocuments: an evenly spaced sample, first and last included; the text budget stops inlining Markdown', async () => {
    expect(sampleRows(10, 4)).toEqual([0, 3, 6, 9]);
    expect(sampleRows(3, 5)).toEqual([0, 1, 2]);
    const d = (await renderReport(synthetic, { maxDocuments: 5, textBudget: 700 })).data.documents;
    expect(d.total).toBe(40);
    // Rows are in manifest order (paths in UTF-8 order).
    const paths = Array.from({ length: 40 }, (_, i) => `knowledge/section-${i % 7}/doc-${i}.md`).sort();
    expect(d.rows.map((r) => r.path)).toEqual([0, 10, 20, 29, 39].map((i) => paths[i]));
    const withText = d.rows.filter((r) => r.text !== null);
    expect(withText.length).toBeGreaterThan(0);
    expect(withText.length).toBeLessThan(5);
    expect(withText.reduce((s, r) => s + Buffer.byteLength(r.text!), 0)).toBeLessThanOrEqual(700);
  });

  it('histograms: counts in fixed bins with 0 apart; values in equal bins', () => {
    expect(countHistogram(Uint32Array.from([0, 0, 1, 4, 5, 9, 10, 150]))).toEqual({
      labels: ['0', '1', '2', '3', '4', '5–9', '10–19', '20–49', '50–99', '100+'],
      counts: [2, 1, 0, 0, 1, 2, 1, 0, 0, 1],
    });
    expect(valueHistogram(Float64Array.from([1, 1.5, 2]), 3, 1, 2, 2)).toEqual({ labels: ['1.00', '1.50'], counts: [1, 2] });
    expect(valueHistogram(Float64Array.from([1, 1]), 2, 1, 1)).toEqual({ labels: ['1.0000'], counts: [2] });
  });
});

describe('output and errors', () => {
  it('writes the page atomically; an existing output is OCTX_OUTPUT_EXISTS unless overwrite, and nothing is left behind', async () => {
    const out = join(tempDir(), 'r.html');
    const r = await renderReport(demo, { output: out });
    expect(r.output).toBe(out);
    expect(readFileSync(out, 'utf8')).toBe(r.html);
    writeFileSync(out, 'old');
    const e = await failureAsync(renderReport(demo, { output: out }));
    expect(e.code).toBe('OCTX_OUTPUT_EXISTS');
    expect(readFileSync(out, 'utf8')).toBe('old');
    await renderReport(demo, { output: out, overwrite: true });
    expect(readFileSync(out, 'utf8')).toBe(r.html);
    expect(readdirSync(join(out, '..'))).toEqual(['r.html']);
    // A folder is no output file, even with overwrite.
    expect((await failureAsync(renderReport(demo, { output: join(out, '..'), overwrite: true }))).code).toBe('OCTX_OUTPUT_INVALID');
  });

  it('options: unknown keys, bad budgets, a bad consumer or timestamp are OCTX_OPTIONS_INVALID; a missing package OCTX_OPEN_ERROR', async () => {
    expect((await failureAsync(renderReport(demo, { maxNodes: -1 }))).code).toBe('OCTX_OPTIONS_INVALID');
    expect((await failureAsync(renderReport(demo, { maxNode: 5 } as never))).code).toBe('OCTX_OPTIONS_INVALID');
    expect((await failureAsync(renderReport(demo, { consumer: 'sag-9' as never }))).code).toBe('OCTX_OPTIONS_INVALID');
    expect((await failureAsync(renderReport(demo, { timestamp: new Date(NaN) }))).code).toBe('OCTX_OPTIONS_INVALID');
    expect((await failureAsync(renderReport(join(dir, 'nothing.octx')))).code).toBe('OCTX_OPEN_ERROR');
    const out = join(tempDir(), 'never.html');
    expect((await failureAsync(renderReport(join(dir, 'nothing.octx'), { output: out }))).code).toBe('OCTX_OPEN_ERROR');
    expect(existsSync(out)).toBe(false);
  });

  it('a checkout without the built page script: OCTX_REPORT_SCRIPT_MISSING naming where it looked; a script that would end its element is refused', () => {
    const d = tempDir();
    const e = failure(() => readPageScript([join(d, 'page.js')]));
    expect(e.code).toBe('OCTX_REPORT_SCRIPT_MISSING');
    expect(e.message).toContain(join(d, 'page.js'));
    expect(e.message).toContain('npm run build');
    writeFileSync(join(d, 'bad.js'), 'var s = "</script>";');
    expect(failure(() => readPageScript([join(d, 'bad.js')])).code).toBe('OCTX_REPORT_SCRIPT_MISSING');
    writeFileSync(join(d, 'good.js'), 'var s = 1;');
    expect(readPageScript([join(d, 'missing.js'), join(d, 'good.js')])).toBe('var s = 1;');
  });

  it('an invalid package still gets its page, which lists the validator issues', async () => {
    const d = tempDir();
    const b = (await import('octx-export')).PackageBuilder;
    const out = join(d, 'x.octx');
    await new b({ asset: { id: uid(0, 9), name: 'X' }, release: { version: '1.0.0', createdAt: '2026-01-01T00:00:00Z' } })
      .addDocument({ path: 'a.md', markdown: `---\ntype: note\noctx:\n  document_id: ${uid(1, 9)}\n---\n# A\n` })
      .export({ output: out });
    // Flip one byte of the document inside the archive (stored or deflated, the digest no longer matches).
    const bytes = readFileSync(out);
    const at = bytes.indexOf('knowledge/a.md') + 'knowledge/a.md'.length + 4;
    bytes[at] = bytes[at]! ^ 0xff;
    writeFileSync(out, bytes);
    const r = await renderReport(out);
    expect(r.data.validation.valid).toBe(false);
    expect(r.data.validation.issues.length).toBeGreaterThan(0);
    expect(r.data.validation.issueCount).toBeGreaterThanOrEqual(r.data.validation.issues.length);
  });
});
