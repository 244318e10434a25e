/**
 * Plain Markdown folders as knowledge trees (issue 22): the realistic docs trees of
 * `fixtures/docs-trees/` load with no preparation, every page is in the package with its body
 * byte for byte, frontmatter of all three syntaxes is read as frontmatter, every adjustment is
 * reported, and every file left out is counted by kind.
 */
import { cpSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadWorkdir, openPackage, PackageBuilder, validatePackage, type OctxError, type WorkdirLoadReport } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers/temp.js';

const TREES = join(ROOT, 'fixtures/docs-trees');

async function load(dir: string, options: Parameters<typeof loadWorkdir>[2] = {}): Promise<{ builder: PackageBuilder; report: WorkdirLoadReport }> {
  const builder = new PackageBuilder({ asset: { name: 'Docs' } });
  try {
    return { builder, report: await loadWorkdir(builder, dir, options) };
  } catch (e) {
    await builder.dispose();
    throw e;
  }
}

async function failure(p: Promise<unknown>): Promise<OctxError> {
  try {
    await p;
  } catch (e) {
    return e as OctxError;
  }
  throw new Error('expected a failure');
}

/** Every file below `dir` (hidden folders included), as POSIX paths. */
function filesOf(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    return e.isDirectory() ? filesOf(full, root) : [relative(root, full).split(sep).join('/')];
  });
}

/**
 * A file's frontmatter and body as the generators read them, written independently of the code
 * under test: `---` YAML, `+++` TOML, or a JSON object closed by a `}` line.
 */
function fileParts(text: string): { syntax: 'yaml' | 'toml' | 'json' | 'none'; body: string } {
  const yaml = /^---\n[\s\S]*?\n---\n/.exec(text);
  if (yaml) return { syntax: 'yaml', body: text.slice(yaml[0].length) };
  const toml = /^\+\+\+\n[\s\S]*?\n\+\+\+\n/.exec(text);
  if (toml) return { syntax: 'toml', body: text.slice(toml[0].length) };
  const json = /^\{\n[\s\S]*?\n\}\n/.exec(text);
  if (json) return { syntax: 'json', body: text.slice(json[0].length) };
  return { syntax: 'none', body: text };
}

/** A package document's YAML frontmatter (parsed) and body. */
function packageParts(text: string): { frontmatter: Record<string, unknown>; body: string } {
  const m = /^---\n([\s\S]*?)---\n/.exec(text);
  if (!m) throw new Error(`no YAML frontmatter in ${text.slice(0, 40)}`);
  return { frontmatter: parseYaml(m[1]!) as Record<string, unknown>, body: text.slice(m[0].length) };
}

/**
 * Builds a tree and checks every Markdown page is in the package: concepts with the file's body
 * byte for byte (under the path the report gives), reserved files byte for byte. Returns the
 * package's documents by their source path.
 */
async function buildAndCompare(name: string): Promise<{ report: WorkdirLoadReport; docs: Map<string, { path: string; kind: string; text: string }> }> {
  const dir = join(TREES, name);
  const { builder, report } = await load(dir);
  const out = join(tempDir(), `${name}.octx`);
  await builder.export({ output: out });
  expect((await validatePackage(out)).valid).toBe(true);
  const pkg = await openPackage(out);
  const inPackage = new Map<string, { kind: string }>();
  const docs = new Map<string, { path: string; kind: string; text: string }>();
  try {
    for await (const d of pkg.documents()) inPackage.set(d.path, { kind: d.kind });
    const renamedTo = new Map(report.renamed.map((r) => [r.from, r.to]));
    const pages = filesOf(dir).filter((f) => f.endsWith('.md') && !f.startsWith('.'));
    const mdxPages = filesOf(dir).filter((f) => f.endsWith('.mdx') && !f.startsWith('.'));
    for (const page of pages) {
      const path = `knowledge/${renamedTo.get(page) ?? page}`;
      expect(inPackage.has(path), `${page} is in the package as ${path}`).toBe(true);
      const text = (await pkg.readFile(path)).toString('utf8');
      const source = readFileSync(join(dir, page), 'utf8');
      if (inPackage.get(path)!.kind === 'reserved') expect(text, page).toBe(source);
      else {
        // Byte for byte, but for the links to renamed pages (each listed in the report).
        let body = fileParts(source).body;
        for (const r of report.rewrittenLinks.filter((l) => l.in === path)) body = body.replace(`](${r.from})`, `](${r.to})`);
        expect(packageParts(text).body, `${page}: body byte for byte`).toBe(body);
      }
      docs.set(page, { path, kind: inPackage.get(path)!.kind, text });
    }
    expect(inPackage.size).toBe(pages.length + mdxPages.length);
  } finally {
    await pkg.close();
  }
  return { report, docs };
}

describe('plain Markdown folders (fixtures/docs-trees)', () => {
  it('VitePress: section index.md pages become documents, a pure link-list index stays an OKF index, images and components are counted', async () => {
    const { report, docs } = await buildAndCompare('vitepress');
    expect(report).toMatchObject({ mode: 'plain-folder', knowledgeDir: '.', indexFiles: 'as-documents', documents: 7, ignored: [] });
    expect(report.renamed).toEqual([
      { from: 'guide/index.md', to: 'guide/_index.md' },
      { from: 'index.md', to: '_index.md' },
    ]);
    expect(report.warnings.map((w) => [w.code, w.path])).toEqual([
      ['OCTX_INDEX_FILE_RENAMED', 'knowledge/guide/index.md'],
      ['OCTX_INDEX_FILE_RENAMED', 'knowledge/index.md'],
    ]);
    expect(report.reserved).toEqual(['knowledge/reference/index.md']);
    expect(docs.get('reference/index.md')?.kind).toBe('reserved');
    expect(report.leftOut).toEqual([
      {
        kind: 'images',
        extensions: ['.png', '.svg'],
        files: ['guide/images/architecture.png', 'guide/images/deploy-flow.svg', 'public/logo.svg', 'public/screenshot.png'],
      },
      { kind: 'scripts', extensions: ['.vue'], files: ['components/DemoBox.vue'] },
      { kind: 'folders', extensions: [], files: ['.vitepress'] },
    ]);
    // Relative links and a site-absolute one (/screenshot.png lives in public/).
    expect(report.danglingLinks).toEqual([
      { from: 'knowledge/guide/configuration.md', to: 'guide/images/architecture.png' },
      { from: 'knowledge/guide/getting-started.md', to: 'public/screenshot.png' },
      { from: 'knowledge/guide/index.md', to: 'guide/images/deploy-flow.svg' },
    ]);
    // The home page keeps its VitePress keys as written; title comes from the frontmatter.
    const home = packageParts(docs.get('index.md')!.text).frontmatter;
    expect(home).toMatchObject({ layout: 'home', hero: { name: 'Acme CLI' }, type: 'Document' });
    expect((home.features as unknown[]).length).toBe(2);
    expect(packageParts(docs.get('guide/getting-started.md')!.text).frontmatter).toMatchObject({ title: 'Getting started', outline: [2, 3], prev: false });
    // A page without frontmatter gets one, and its title from its heading.
    expect(packageParts(docs.get('guide/configuration.md')!.text).frontmatter).toMatchObject({ type: 'Document', title: 'Configuration' });
  });

  it('Docusaurus: id, slug, sidebar_* and nested keys are kept as they are; _category_.json is counted, .mdx is a document', async () => {
    const { report, docs } = await buildAndCompare('docusaurus');
    expect(report).toMatchObject({ mode: 'plain-folder', documents: 5, renamed: [], reserved: [], converted: [] });
    const intro = docs.get('intro.md')!.text;
    // No key was missing but octx: the author's block is kept byte for byte, then completed.
    expect(intro.startsWith('---\nid: intro\nslug: /\nsidebar_position: 1\ntitle: Introduction\ndescription: What Acme CLI is and who it is for.\ntype: "Document"\n')).toBe(true);
    expect(packageParts(docs.get('tutorial-basics/create-a-page.md')!.text).frontmatter).toMatchObject({
      id: 'create-a-page',
      sidebar_label: 'Create a page',
      sidebar_position: 1,
      tags: ['pages', 'basics'],
      title: 'Create a Page',
    });
    const doc = packageParts(docs.get('tutorial-basics/create-a-document.md')!.text).frontmatter;
    expect(doc).toMatchObject({ title: 'Create a Document', last_update: { author: 'Acme docs team' }, keywords: ['docs', 'sidebar'] });
    expect(report.leftOut.map((g) => [g.kind, g.extensions, g.files.length])).toEqual([
      ['images', ['.png'], 2],
      ['data', ['.json'], 2],
    ]);
    // Before MDX was read, this page was left out (counted as 'markdown').
    expect(report.mdx.map((p) => [p.from, p.path, p.esm, p.components])).toEqual([
      ['knowledge/tutorial-extras/translate-your-site.mdx', 'knowledge/tutorial-extras/translate-your-site.md', 1, ['Tabs']],
    ]);
    expect(report.danglingLinks).toEqual([
      { from: 'knowledge/tutorial-extras/manage-docs-versions.md', to: 'tutorial-extras/img/docsVersionDropdown.png' },
      { from: 'knowledge/tutorial-extras/translate-your-site.mdx', to: 'tutorial-extras/img/localeDropdown.png' },
    ]);
  });

  it('Hugo: TOML (+++) and JSON frontmatter become YAML frontmatter with the same keys; the body after the block is untouched', async () => {
    const { report, docs } = await buildAndCompare('hugo');
    expect(report.converted).toEqual([
      { path: 'knowledge/_index.md', from: 'toml' },
      { path: 'knowledge/blog/first-post/index.md', from: 'toml' },
      { path: 'knowledge/docs/_index.md', from: 'toml' },
      { path: 'knowledge/docs/api.md', from: 'json' },
      { path: 'knowledge/docs/install.md', from: 'toml' },
    ]);
    const install = packageParts(docs.get('docs/install.md')!.text);
    expect(install.frontmatter).toEqual({
      title: 'Install',
      // TOML dates and times are carried as quoted ISO 8601 strings.
      date: '2024-02-01',
      lastmod: '2024-02-03T09:30:00+02:00',
      draft: false,
      weight: 10,
      tags: ['setup', 'cli'],
      aliases: ['/install/'],
      params: { toc: true, ratio: 0.75 },
      type: 'Document',
      octx: { document_id: expect.any(String) as string },
    });
    // Never a frontmatter block left in the body.
    expect(install.body).not.toContain('+++');
    expect(packageParts(docs.get('docs/_index.md')!.text).frontmatter).toMatchObject({
      title: 'Documentation',
      date: '2024-01-15T10:00:00Z',
      menu: { main: { name: 'Docs', weight: 10 } },
    });
    expect(packageParts(docs.get('docs/api.md')!.text).frontmatter).toMatchObject({ title: 'API', weight: 30, aliases: ['/api/', '/reference/api/'], params: { toc: true } });
    // Hugo's own `type` key is the document type.
    expect(packageParts(docs.get('_index.md')!.text).frontmatter).toMatchObject({ title: 'Acme Docs', type: 'docs' });
    // A TOML-looking block inside a fenced code block of a YAML page is body text.
    expect(packageParts(docs.get('docs/configure.md')!.text).body).toContain('+++\nthis = "is code, not frontmatter"\n+++');
    // The leaf bundle's index.md has frontmatter once converted: a page, renamed in its folder.
    expect(report.renamed).toEqual([{ from: 'blog/first-post/index.md', to: 'blog/first-post/_index.md' }]);
    expect(report.leftOut.map((g) => [g.kind, g.extensions, g.files])).toEqual([['images', ['.jpg', '.png'], ['blog/first-post/cover.jpg', 'docs/diagram.png']]]);
  });

  it('a README-like index.md (valid by the OKF rules, but prose) is kept as a document and says why; a non-OKF log.md too', async () => {
    const { report } = await buildAndCompare('plain-readme');
    expect(report.renamed).toEqual([
      { from: 'changelog/log.md', to: 'changelog/_log.md' },
      { from: 'index.md', to: '_index.md' },
    ]);
    expect(report.reserved).toEqual([]);
    expect(report.warnings.find((w) => w.path === 'knowledge/index.md')!.message).toContain('it holds text besides headings and link lists, line 3');
    // data/ of JSON does not make the folder a working folder.
    expect(report.mode).toBe('plain-folder');
    expect(report.leftOut.map((g) => [g.kind, g.files])).toEqual([
      ['images', ['assets/logo.png', 'assets/stack.svg']],
      ['data', ['data/commands.json']],
    ]);
    expect(report.danglingLinks).toEqual([
      { from: 'knowledge/index.md', to: 'assets/logo.png' },
      { from: 'knowledge/notes/architecture.md', to: 'assets/stack.svg' },
    ]);
  });

  it('with --index-files okf a plain tree fails once, naming every index.md/log.md that needs a decision', async () => {
    const e = await failure(load(join(TREES, 'vitepress'), { indexFiles: 'okf' }));
    expect(e.code).toBe('OCTX_OKF_RESERVED_INVALID');
    expect(e.issues.map((i) => i.path)).toEqual(['knowledge/guide/index.md', 'knowledge/index.md']);
    expect(e.message).toContain('(indexFiles: as-documents)');
    const readme = await failure(load(join(TREES, 'plain-readme'), { indexFiles: 'okf' }));
    // Under okf the README-like index.md is a valid OKF index; only the log.md is refused.
    expect(readme.issues.map((i) => i.path)).toEqual(['knowledge/changelog/log.md']);
  });

  it('a working folder: knowledge/ is the tree and OKF stays the default; the refusal names every file at once', async () => {
    const dir = tempDir();
    cpSync(join(TREES, 'vitepress'), join(dir, 'knowledge'), { recursive: true });
    const e = await failure(load(dir));
    expect(e.code).toBe('OCTX_OKF_RESERVED_INVALID');
    expect(e.issues.map((i) => i.path)).toEqual(['knowledge/guide/index.md', 'knowledge/index.md']);
    const { builder, report } = await load(dir, { indexFiles: 'as-documents' });
    await builder.dispose();
    expect(report).toMatchObject({ mode: 'working-folder', knowledgeDir: 'knowledge', indexFiles: 'as-documents', documents: 7 });
    // In a working folder the hidden folder is walked; its files are left out by kind.
    expect(report.leftOut.find((g) => g.kind === 'scripts')!.files).toEqual([
      'knowledge/.vitepress/config.mts',
      'knowledge/.vitepress/theme/index.ts',
      'knowledge/components/DemoBox.vue',
    ]);
    expect(report.danglingLinks[0]).toEqual({ from: 'knowledge/guide/configuration.md', to: 'knowledge/guide/images/architecture.png' });
  });

  it('the knowledge option names the tree in either layout; a bad value is an options error', async () => {
    const repo = tempDir();
    cpSync(join(TREES, 'docusaurus'), join(repo, 'website/docs'), { recursive: true });
    writeFileSync(join(repo, 'README.md'), '# Repo\n');
    const { builder, report } = await load(repo, { knowledge: 'website/docs' });
    await builder.dispose();
    expect(report).toMatchObject({ mode: 'plain-folder', knowledgeDir: 'website/docs', documents: 5, ignored: [] });
    expect(report.leftOut[0]!.files[0]).toBe('website/docs/tutorial-extras/img/docsVersionDropdown.png');
    expect((await failure(load(repo, { knowledge: '../x' }))).code).toBe('OCTX_OPTIONS_INVALID');
    expect(await failure(load(repo, { knowledge: 'nope' }))).toMatchObject({ code: 'OCTX_OPEN_ERROR', issues: [{ field: 'knowledge' }] });
    symlinkSync(join(repo, 'website/docs'), join(repo, 'linked'));
    expect(await failure(load(repo, { knowledge: 'linked' }))).toMatchObject({ code: 'OCTX_SECURITY_ERROR', issues: [{ field: 'knowledge', path: 'linked' }] });
  });

  it('renames onto existing _index.md files are refused together, with the flag that avoids them', async () => {
    const dir = tempDir();
    cpSync(join(TREES, 'vitepress'), dir, { recursive: true });
    writeFileSync(join(dir, '_index.md'), '# Hugo-style section page\n');
    writeFileSync(join(dir, 'guide/_index.md'), '# Another one\n');
    writeFileSync(join(dir, 'extra.md'), '# Extra\n\nBack to the [guide](guide/index.md).\n');
    const e = await failure(load(dir));
    expect(e.code).toBe('OCTX_FILE_PATH_DUPLICATE');
    expect(e.issues.map((i) => i.path)).toEqual(['knowledge/guide/index.md', 'knowledge/index.md']);
    expect(e.issues[0]!.message).toContain('(indexFiles: skip)');
    const { builder, report } = await load(dir, { indexFiles: 'skip' });
    await builder.dispose();
    expect(report.skipped).toEqual(['guide/index.md', 'index.md']);
    // A link to a skipped page dangles like one to a left-out file; the skipped pages' own links do not count.
    expect(report.danglingLinks).toContainEqual({ from: 'knowledge/extra.md', to: 'guide/index.md' });
    expect(report.danglingLinks.map((l) => l.from)).not.toContain('knowledge/guide/index.md');
  });

  it('every symbolic link is named in one refusal, with how to proceed', async () => {
    const dir = tempDir();
    cpSync(join(TREES, 'plain-readme'), dir, { recursive: true });
    symlinkSync(join(dir, 'install.md'), join(dir, 'setup.md'));
    symlinkSync(join(dir, 'assets'), join(dir, 'images'));
    const e = await failure(load(dir));
    expect(e.code).toBe('OCTX_SECURITY_ERROR');
    expect(e.issues.map((i) => i.path)).toEqual(['images', 'setup.md']);
    expect(e.message).toContain('cp -RL');
  });

  it.skipIf(process.platform === 'win32')('a FIFO in the tree is refused by name, never read and never dropped silently', async () => {
    const dir = tempDir();
    cpSync(join(TREES, 'plain-readme'), dir, { recursive: true });
    execFileSync('mkfifo', [join(dir, 'pipe.md'), join(dir, 'assets', 'pipe.png')]);
    // Before: both were skipped without a word (a page named pipe.md missing from the package).
    const e = await failure(load(dir));
    expect(e.code).toBe('OCTX_SECURITY_ERROR');
    expect(e.issues.map((i) => [i.path, i.message])).toEqual([
      ['assets/pipe.png', expect.stringContaining('is a FIFO (named pipe)')],
      ['pipe.md', expect.stringContaining('is a FIFO (named pipe)')],
    ]);
  });

  it('a frontmatter block that does not parse is refused, every such file at once; CRLF bodies are kept byte for byte', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'a/bad.md'), '+++\ntitle = "unterminated\n+++\nBody.\n');
    writeFileSync(join(dir, 'b.md'), '{\n  "title": "x",\n  "title": "y"\n}\nBody.\n');
    writeFileSync(join(dir, 'c.md'), '+++\ntitle = "never closed"\n');
    writeFileSync(join(dir, 'ok.md'), '# Fine\n');
    const e = await failure(load(dir));
    expect(e.code).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(e.issues.map((i) => i.path)).toEqual(['knowledge/a/bad.md', 'knowledge/b.md', 'knowledge/c.md']);
    expect(e.issues[1]!.message).toContain('JSON frontmatter does not parse');

    const crlf = tempDir();
    const body = '# Title\r\n\r\nLine one.\r\n';
    writeFileSync(join(crlf, 'toml.md'), `+++\r\ntitle = "T"\r\n+++\r\n${body}`);
    writeFileSync(join(crlf, 'none.md'), body);
    const { builder } = await load(crlf);
    const out = join(tempDir(), 'crlf.octx');
    await builder.export({ output: out });
    const pkg = await openPackage(out);
    try {
      const toml = (await pkg.readFile('knowledge/toml.md')).toString('utf8');
      expect(toml.startsWith('---\r\ntitle: "T"\r\n')).toBe(true);
      expect(toml.endsWith(`---\r\n${body}`)).toBe(true);
      const none = (await pkg.readFile('knowledge/none.md')).toString('utf8');
      expect(none.endsWith(`---\r\n${body}`)).toBe(true);
    } finally {
      await pkg.close();
    }
  });
});
