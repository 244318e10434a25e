/**
 * Docs sites as their owners have them: MDX pages as documents (converted by node positions, so
 * what is not MDX keeps its bytes), the generator recognised from its config (site name, pages
 * folder), links to renamed pages rewritten, and git's rename similarity carrying ids across
 * builds with a producer state.
 */
import { cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectDocsSite, loadWorkdir, openPackage, PackageBuilder, validatePackage, type WorkdirLoadReport } from '../../src/index.js';
import { mdxToMarkdown } from 'octx-export/mdx';
import {
  DEFAULT_RENAME_THRESHOLD,
  decodeSignature,
  encodeSignature,
  MAX_SIMILARITY,
  pairRenames,
  parseRenameThreshold,
  similarityScore,
  similaritySignature,
} from '../../src/knowledge/rename-similarity.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from '../cli/run-cli.js';

const STARLIGHT = join(ROOT, 'fixtures/docs-trees/starlight-site');
const sig = (s: string) => similaritySignature(Buffer.from(s, 'utf8'));

async function build(dir: string, output: string, options: Parameters<typeof loadWorkdir>[2] = {}, state?: string): Promise<WorkdirLoadReport> {
  const builder = new PackageBuilder({ asset: { name: 'Docs', id: '019c7a00-0000-7000-8000-00000000a034' }, ...(state ? { state } : {}) });
  const report = await loadWorkdir(builder, dir, options);
  await builder.export({ output, overwrite: true });
  return report;
}

async function documentsOf(file: string): Promise<Map<string, { id: string | undefined; text: string }>> {
  const pkg = await openPackage(file);
  const out = new Map<string, { id: string | undefined; text: string }>();
  try {
    for await (const d of pkg.documents()) out.set(d.path, { id: d.kind === 'concept' ? d.documentId : undefined, text: (await pkg.readFile(d.path)).toString('utf8') });
  } finally {
    await pkg.close();
  }
  return out;
}

describe('MDX to Markdown', () => {
  it('removes ESM and expressions, unwraps components, keeps every other byte (prose, tables, fenced code)', () => {
    const prose = 'Some *prose* with `code` and a [link](./a.md).\n';
    const fence = '```js\nimport x from "y"; {notAnExpression}\n<NotJsx />\n```\n';
    const table = '| a | b |\n| --- | --- |\n| 1 | 2 |\n';
    const src = `import { Aside } from '@astrojs/starlight/components';\nexport const n = 1;\n\n${prose}\n${fence}\n${table}\n{/* a comment */}\n\n<Aside type="tip" title="Did you know?">\nInside **the** aside.\n</Aside>\n`;
    const r = mdxToMarkdown(src);
    if (!r.ok) throw new Error(r.reason);
    // The removed lines leave their blank neighbours; a label is a paragraph of its own.
    expect(r.markdown).toBe(`\n${prose}\n${fence}\n${table}\n\n\n**Tip: Did you know?**\n\nInside **the** aside.\n`);
    expect(r.changes).toEqual({ esm: 1, expressions: 1, elements: 1, attributes: 1, components: ['Aside'] });
  });

  it('tab content loses the indentation of its JSX nesting (it would be indented code in Markdown), code inside keeps its shape', () => {
    const r = mdxToMarkdown('<Tabs>\n  <TabItem label="npm">\n    ```sh\n    npm i\n      --global\n    ```\n  </TabItem>\n</Tabs>\n');
    if (!r.ok) throw new Error(r.reason);
    expect(r.markdown).toBe('\n**npm**\n\n```sh\nnpm i\n  --global\n```\n');
  });

  it('inline elements: <a href>, <img>, a self-closing text attribute; a page that does not parse gives its line', () => {
    const r = mdxToMarkdown('See <a href="./x.md">the x page</a> <Badge text="New" /> and <kbd>Ctrl</kbd>.\n\n<img src="/a.png" alt="An A" />\n');
    if (!r.ok) throw new Error(r.reason);
    expect(r.markdown).toBe('See [the x page](./x.md) New and Ctrl.\n\n\n![An A](/a.png)\n\n');
    expect(mdxToMarkdown('para\n\n<Foo>\n\n# x\n')).toMatchObject({ ok: false, line: 3, column: 1 });
    expect(mdxToMarkdown('a\n\nb {c\n')).toMatchObject({ ok: false, line: 3 });
  });
});

describe('a Starlight site (fixtures/docs-trees/starlight-site)', () => {
  it('is recognised from astro.config.mjs: its title is the site name, src/content/docs the pages', async () => {
    expect(await detectDocsSite(STARLIGHT)).toMatchObject({ generator: 'starlight', config: 'astro.config.mjs', name: 'Acme Docs', contentDir: 'src/content/docs' });
  });

  it('builds into a valid package with one document per page: no import line left, prose kept, links to renamed pages rewritten', async () => {
    const out = join(tempDir(), 'starlight.octx');
    const report = await build(STARLIGHT, out);
    expect(report).toMatchObject({ mode: 'plain-folder', knowledgeDir: 'src/content/docs', documents: 4 });
    expect((await validatePackage(out)).valid).toBe(true);
    const docs = await documentsOf(out);
    expect([...docs.keys()].sort()).toEqual(['knowledge/_index.md', 'knowledge/guides/configuration.md', 'knowledge/guides/getting-started.md', 'knowledge/reference/cli.md']);
    for (const [path, { text }] of docs) {
      expect(text, path).not.toMatch(/^import /m);
      expect(text, path).not.toMatch(/^export /m);
    }
    const started = docs.get('knowledge/guides/getting-started.md')!.text;
    expect(started).toContain('Acme deploys a folder of static files with one command.\n');
    expect(started).toContain('**Caution: Node version**\n\nAcme needs Node.js 20 or later.\n');
    expect(started).toContain('**npm**\n\n```sh\nnpm install --global acme\n```\n');
    // A fence's {braces} are code, not an expression.
    expect(started).toContain('acme deploy dist/ --env {production}');
    expect(started).toContain('source_path: "guides/getting-started.mdx"');
    // The rewritten link resolves in the package.
    expect(started).toContain('[configuration](./configuration.md#environments)');
    expect(docs.has('knowledge/guides/configuration.md')).toBe(true);
    // In reading order (the pages' UTF-8 path order); lines of the document's (converted) body.
    expect(report.rewrittenLinks).toEqual([
      { in: 'knowledge/guides/configuration.md', line: 14, from: '../reference/cli.mdx', to: '../reference/cli.md' },
      { in: 'knowledge/guides/getting-started.md', line: 37, from: './configuration.mdx#environments', to: './configuration.md#environments' },
      { in: 'knowledge/_index.md', line: 8, from: './guides/getting-started.mdx', to: './guides/getting-started.md' },
      { in: 'knowledge/_index.md', line: 12, from: 'reference/cli.mdx', to: 'reference/cli.md' },
    ]);
    // Starlight's own `type` is not the OKF type.
    const config = docs.get('knowledge/guides/configuration.md')!.text;
    expect(config).toContain('starlight:\n  type: "guide"\ntype: "Document"\n');
    expect(report.mdx.map((p) => [p.from, p.esm, p.expressions, p.elements, p.attributes])).toEqual([
      ['knowledge/guides/configuration.mdx', 1, 1, 1, 1],
      ['knowledge/guides/getting-started.mdx', 1, 1, 5, 3],
      ['knowledge/index.mdx', 1, 0, 3, 2],
      ['knowledge/reference/cli.mdx', 1, 0, 2, 0],
    ]);
  });

  it('--mdx verbatim keeps the source bytes (at .md paths); a page that does not parse is kept verbatim with a warning naming its line', async () => {
    const dir = tempDir();
    cpSync(STARLIGHT, dir, { recursive: true });
    writeFileSync(join(dir, 'src/content/docs/broken.mdx'), '---\ntitle: Broken\n---\n\nText.\n\n<Aside>\n\nnever closed\n');
    const out = join(tempDir(), 'verbatim.octx');
    const report = await build(dir, out, { mdx: 'verbatim' });
    const docs = await documentsOf(out);
    expect(docs.get('knowledge/reference/cli.md')!.text).toContain("export const commands = ['deploy', 'rollback'];\n");
    expect(report.mdx.every((p) => p.verbatim)).toBe(true);
    const converted = await build(dir, join(tempDir(), 'converted.octx'));
    const broken = converted.warnings.find((w) => w.code === 'OCTX_MDX_UNPARSED')!;
    expect(broken).toMatchObject({ path: 'knowledge/broken.mdx', line: 7 });
    expect(converted.mdx.find((p) => p.from === 'knowledge/broken.mdx')).toMatchObject({ verbatim: true });
  });

  it('the CLI builds the site with no flags: the file is named after the folder, the asset after the site', async () => {
    const cwd = tempDir();
    const r = await runCli(['build', STARLIGHT, '--json'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const json = jsonOf(r);
    expect(json.output).toBe(join(cwd, 'starlight-site.octx'));
    expect((await validatePackage(join(cwd, 'starlight-site.octx'))).valid).toBe(true);
    const pkg = await openPackage(join(cwd, 'starlight-site.octx'));
    expect((pkg.manifest as { asset: { name: string } }).asset.name).toBe('Acme Docs');
    await pkg.close();
    const plain = tempDir();
    writeFileSync(join(plain, 'a.md'), '# A\n');
    const refused = await runCli(['build', plain], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--name <asset name> is required: no docs generator config');
  });
});

describe("git's rename similarity", () => {
  it('exactly 50% is a rename at the default threshold, just under is not', () => {
    // 4 lines of 10 bytes; the new text shares 2 of them and is as large: 20/40 bytes = 50%.
    const a = sig('line-aaaa\nline-bbbb\nline-cccc\nline-dddd\n');
    const b = sig('line-aaaa\nline-bbbb\nline-xxxx\nline-yyyy\n');
    expect(similarityScore(a, b)).toBe(MAX_SIMILARITY / 2);
    expect(pairRenames(new Map([['old.md', a]]), new Map([['new.md', b]]))).toEqual([{ from: 'old.md', to: 'new.md', score: 30000 }]);
    const c = sig('line-aaaa\nline-bbbb\nline-xxxx\nline-yyyyy\n');
    expect(similarityScore(a, c)).toBeLessThan(DEFAULT_RENAME_THRESHOLD);
    expect(pairRenames(new Map([['old.md', a]]), new Map([['new.md', c]]))).toEqual([]);
  });

  it('empty texts are never renames; CRLF counts as LF in the spans', () => {
    expect(similarityScore(sig(''), sig(''))).toBe(0);
    expect(pairRenames(new Map([['a.md', sig('')]]), new Map([['b.md', sig('')]]))).toEqual([]);
    expect(similaritySignature(Buffer.from('x\r\ny\r\n')).spans).toEqual(similaritySignature(Buffer.from('x\ny\n')).spans);
  });

  it('many candidates: the best score wins, then the same file name, then path order; each path is used once', () => {
    const text = 'the same page\nwith two lines\n';
    const gone = new Map([
      ['b/page.md', sig(text)],
      ['a/other.md', sig(text)],
    ]);
    const added = new Map([
      ['c/page.md', sig(text)],
      ['c/zzz.md', sig(text)],
    ]);
    expect(pairRenames(gone, added).map((p) => [p.from, p.to])).toEqual([
      ['b/page.md', 'c/page.md'],
      ['a/other.md', 'c/zzz.md'],
    ]);
  });

  it("thresholds are read as git reads -M<n>; signatures round-trip through the state's text", () => {
    expect([parseRenameThreshold('50%'), parseRenameThreshold('5'), parseRenameThreshold('50'), parseRenameThreshold('05'), parseRenameThreshold('0.9')]).toEqual([
      30000, 30000, 30000, 3000, 54000,
    ]);
    expect(parseRenameThreshold('100')).toBe(6000);
    expect(parseRenameThreshold('150%')).toBe(MAX_SIMILARITY);
    expect(parseRenameThreshold('x')).toBeUndefined();
    const s = sig('alpha\nbeta\n');
    expect(decodeSignature(encodeSignature(s))).toEqual(s);
  });
});

describe('renames across releases (--state)', () => {
  it('a page renamed and edited keeps its document id; an unrelated new page gets a new one', async () => {
    const dir = tempDir();
    const state = join(tempDir(), 'state.json');
    mkdirSync(join(dir, 'guide'), { recursive: true });
    const body = (extra: string) => `# Getting started\n\nInstall the CLI.\n\nRun the deploy command.\n\nCheck the output.\n${extra}`;
    writeFileSync(join(dir, 'guide/getting-started.md'), body(''));
    writeFileSync(join(dir, 'faq.md'), '# FAQ\n\nQuestions and answers.\n');
    const v1 = join(tempDir(), 'v1.octx');
    await build(dir, v1, {}, state);
    const before = await documentsOf(v1);
    renameSync(join(dir, 'guide/getting-started.md'), join(dir, 'guide/quickstart.md'));
    writeFileSync(join(dir, 'guide/quickstart.md'), body('\nOne more line.\n'));
    writeFileSync(join(dir, 'new.md'), '# Something else\n\nNothing alike.\n');
    const v2 = join(tempDir(), 'v2.octx');
    const report = await build(dir, v2, {}, state);
    const after = await documentsOf(v2);
    const id = before.get('knowledge/guide/getting-started.md')!.id!;
    expect(after.get('knowledge/guide/quickstart.md')!.id).toBe(id);
    expect(after.get('knowledge/faq.md')!.id).toBe(before.get('knowledge/faq.md')!.id);
    expect(after.get('knowledge/new.md')!.id).not.toBe(id);
    expect(report.carried).toEqual([{ from: 'knowledge/guide/getting-started.md', to: 'knowledge/guide/quickstart.md', id, similarity: expect.any(Number) as number }]);
    // The state names the id under the new path only.
    const saved = JSON.parse(readFileSync(state, 'utf8')) as { documents: Record<string, string> };
    expect(saved.documents['knowledge/guide/getting-started.md']).toBeUndefined();
    expect(saved.documents['knowledge/guide/quickstart.md']).toBe(id);
    // And diff says moved.
    const diff = await runCli(['diff', v1, v2, '--json']);
    expect((jsonOf(diff).documents as { moved: unknown[] }).moved).toEqual([{ id, from: 'knowledge/guide/getting-started.md', to: 'knowledge/guide/quickstart.md' }]);
  });
});
