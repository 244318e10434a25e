/**
 * Docs sites as their generators document them (fixtures/docs-trees/: an mdBook book, a
 * Docusaurus site, a Hugo site, an MkDocs Material site and a git-like rename pair), built with no
 * preparation and checked page by page: an included listing's exact lines, a Hugo ref that became
 * a link resolving in the package, an admonition's title and prose, a tab's label, the navigation
 * index in the site's order, conventions not applied reported once per kind with a count (and
 * refused by strict), ids carried over renames and diff saying moved.
 */
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectDocsSite, diffPackages, isOctxError, loadWorkdir, openPackage, PackageBuilder, validatePackage, type WorkdirLoadReport } from '../../src/index.js';
import { expandMdbookHelpers } from '../../src/builder/docs-site/mdbook.js';
import { linkTargets, resolveLocalLink } from '../../src/knowledge/local-links.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from '../cli/run-cli.js';

const TREES = join(ROOT, 'fixtures/docs-trees');

interface Built {
  readonly report: WorkdirLoadReport;
  /** Each document's text, by package path. */
  readonly docs: Map<string, string>;
  readonly ids: Map<string, string>;
  readonly file: string;
}

async function build(dir: string, options: { state?: string; strict?: boolean; file?: string } = {}): Promise<Built> {
  const builder = new PackageBuilder({ asset: { name: 'Docs' }, ...(options.state ? { state: options.state } : {}) });
  const file = options.file ?? join(tempDir(), 'site.octx');
  let report: WorkdirLoadReport;
  try {
    report = await loadWorkdir(builder, dir);
    await builder.export({ output: file, overwrite: true, ...(options.strict ? { strict: true } : {}) });
  } catch (e) {
    await builder.dispose();
    throw e;
  }
  expect((await validatePackage(file)).valid).toBe(true);
  const docs = new Map<string, string>();
  const ids = new Map<string, string>();
  const pkg = await openPackage(file);
  try {
    for await (const d of pkg.documents()) {
      docs.set(d.path, (await pkg.readFile(d.path)).toString('utf8'));
      if (d.kind === 'concept' && d.documentId) ids.set(d.path, d.documentId);
    }
  } finally {
    await pkg.close();
  }
  return { report, docs, ids, file };
}

/** Local links to Markdown pages that name no document of the package, as `from → target`. */
function unresolvedPageLinks(docs: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, text] of docs) {
    const from = path.slice('knowledge/'.length);
    for (const target of linkTargets(text.replace(/^---\n[\s\S]*?\n---\n/, ''))) {
      const local = resolveLocalLink(from, target);
      if (local !== undefined && /\.mdx?$/.test(local) && !docs.has(`knowledge/${local}`)) out.push(`${path} → ${target}`);
    }
  }
  return out;
}

const conventionCounts = (r: WorkdirLoadReport, which: 'applied' | 'notApplied'): Record<string, number> => Object.fromEntries(r.conventions[which].map((c) => [c.kind, c.count]));

describe('mdBook (fixtures/docs-trees/mdbook-book)', () => {
  const BOOK = join(TREES, 'mdbook-book');

  it('is recognised from book.toml; SUMMARY.md becomes the navigation index in its order, not a page', async () => {
    expect(await detectDocsSite(BOOK)).toMatchObject({ generator: 'mdbook', config: 'book.toml', name: 'The Orbit Book', contentDir: 'src' });
    const { report, docs } = await build(BOOK);
    expect([...docs.keys()].sort()).toEqual([
      'knowledge/appendix/glossary.md',
      'knowledge/getting-started/configuration-files.md',
      'knowledge/getting-started/hello-orbit.md',
      'knowledge/getting-started/installation.md',
      'knowledge/index.md',
      'knowledge/introduction.md',
      'knowledge/reference/cli.md',
      'knowledge/reference/lifecycle.md',
    ]);
    expect(report.navigation).toBe('knowledge/index.md');
    expect(docs.get('knowledge/index.md')).toBe(
      [
        '# The Orbit Book',
        '',
        '* [Introduction](introduction.md)',
        '',
        '## Getting Started',
        '',
        '* [Installation](getting-started/installation.md)',
        '* [Hello, Orbit!](getting-started/hello-orbit.md)',
        '  * [Configuration Files](getting-started/configuration-files.md)',
        '',
        '## Reference',
        '',
        '* [Command Line Tool](reference/cli.md)',
        '* [Service Lifecycle](reference/lifecycle.md)',
        // A draft chapter has no page: listed without a link.
        '* Plugins',
        '* [Glossary](appendix/glossary.md)',
        '',
      ].join('\n'),
    );
    expect(unresolvedPageLinks(docs)).toEqual([]);
    expect(conventionCounts(report, 'applied')).toEqual({
      'mdBook {{#include}}': 7,
      'mdBook {{#rustdoc_include}}': 3,
      'mdBook navigation order (src/SUMMARY.md) as the OKF index knowledge/index.md': 7,
    });
    expect(report.conventions.notApplied).toEqual([]);
  });

  it('includes take exactly the lines of their range or anchor, as mdBook does; \\{{#…}} is the literal', async () => {
    const { docs } = await build(BOOK);
    const installation = docs.get('knowledge/getting-started/installation.md')!;
    // ::2 — the first two lines, not the third.
    expect(installation).toContain('```console\n$ orbit --version\norbit 0.9.2 (2024-05-01)\n```\n');
    expect(installation).not.toContain('orbit-cli 0.9.2');
    const config = docs.get('knowledge/getting-started/configuration-files.md')!;
    // :2:5 — lines 2 to 5 (the comment on line 1 is left out).
    expect(config).toContain('```toml\n[service]\nname = "inventory"\nport = 8080\nworkers = 4\n```\n');
    expect(config).not.toContain('# orbit.toml of the inventory service');
    // :7: — from line 7 to the end; :10 — line 10 alone, inline.
    expect(config).toContain('```toml\n[health]\npath = "/healthz"\ninterval = "10s"\nshutdown_grace = 30\n```\n');
    expect(config).toContain('`shutdown_grace = 30` by default.');
    // rustdoc_include :3:7 — the lines outside the range are kept behind `# ` (anchor lines too).
    expect(config).toContain(
      [
        '```rust',
        '# use serde::Deserialize;',
        '# ',
        '#[derive(Deserialize)]',
        'pub struct ServiceConfig {',
        '    pub name: String,',
        '    pub port: u16,',
        '}',
        '# ',
        '# // ANCHOR: hooks',
        '# impl orbit::Hooks for Inventory {',
      ].join('\n'),
    );
    const hello = docs.get('knowledge/getting-started/hello-orbit.md')!;
    // The whole file (its last line feed dropped, as Rust's lines() + join does).
    expect(hello).toContain('```toml\n[package]\nname = "hello-orbit"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\norbit = "0.9"\n```\n');
    // rustdoc_include :main — another anchor's lines outside are dropped, the rest hidden.
    expect(hello).toContain(
      [
        '```rust',
        '# use orbit::{Request, Response, Service};',
        '# ',
        '# fn greet(request: Request) -> Response {',
        '#     Response::text(format!("Hello, {}!", request.param("name").unwrap_or("Orbit")))',
        '# }',
        '# ',
        'fn main() {',
        '    Service::new("hello").route("/", greet).run();',
        '}',
        '```',
      ].join('\n'),
    );
    // include :handler — the anchored lines only.
    expect(hello).toContain(
      '```rust,ignore\nfn greet(request: Request) -> Response {\n    Response::text(format!("Hello, {}!", request.param("name").unwrap_or("Orbit")))\n}\n```\n',
    );
    expect(hello).toContain('escape it: {{#include file.rs}}\nstays as written.');
    const lifecycle = docs.get('knowledge/reference/lifecycle.md')!;
    // include :hooks — the nested anchor's lines are dropped.
    expect(lifecycle).toContain(
      '```rust,ignore\nimpl orbit::Hooks for Inventory {\n    fn on_ready(&mut self) {\n        log::info!("inventory ready");\n    }\n\n    fn on_drain(&mut self) {\n        self.queue.close();\n    }\n}\n```\n',
    );
    expect(lifecycle).toContain(
      [
        '#     fn on_ready(&mut self) {',
        '        log::info!("inventory ready");',
        '#     }',
        '# ',
        '#     fn on_drain(&mut self) {',
        '#         self.queue.close();',
        '#     }',
        '# }',
        '```',
      ].join('\n'),
    );
    // Every helper was expanded (the escaped one is the literal, without a path).
    for (const [path, text] of docs) expect(text, path).not.toMatch(/\{\{#(include|rustdoc_include) \.\./);
  });

  it("the anchored takes agree with mdBook's own test vectors (src/utils/string.rs)", async () => {
    const dir = tempDir();
    const cases: [string, string, string][] = [
      ['Lorem\nipsum\nANCHOR: test\ndolor\nsit\namet\nANCHOR_END: test\nlorem\nipsum', 'test', '# Lorem\n# ipsum\ndolor\nsit\namet\n# lorem\n# ipsum'],
      ['Lorem\nANCHOR: test\nipsum\nANCHOR: test\ndolor\nsit\namet\nANCHOR_END: test\nlorem\nipsum', 'test', '# Lorem\nipsum\ndolor\nsit\namet\n# lorem\n# ipsum'],
      [
        'Lorem\nANCHOR:    test2\nipsum\nANCHOR: test\ndolor\nsit\namet\nANCHOR_END: test\nlorem\nANCHOR_END:test2\nipsum',
        'test',
        '# Lorem\n# ipsum\ndolor\nsit\namet\n# lorem\n# ipsum',
      ],
      [
        'Lorem\nANCHOR:    test2\nipsum\nANCHOR: test\ndolor\nsit\namet\nANCHOR_END: test\nlorem\nANCHOR_END:test2\nipsum',
        'test2',
        '# Lorem\nipsum\ndolor\nsit\namet\nlorem\n# ipsum',
      ],
      ['Lorem\nANCHOR: test\nipsum\nANCHOR_END: test\ndolor\nANCHOR: test\nsit\nANCHOR_END: test\namet', 'test', '# Lorem\nipsum\n# dolor\nsit\n# amet'],
    ];
    for (const [i, [text, anchor, expected]] of cases.entries()) {
      writeFileSync(join(dir, `f${i}.rs`), text);
      expect((await expandMdbookHelpers(`{{#rustdoc_include f${i}.rs:${anchor}}}`, dir, dir)).text, `case ${i}`).toBe(expected);
    }
    writeFileSync(join(dir, 'lines.txt'), 'Lorem\nipsum\ndolor\nsit\namet');
    const take = async (spec: string): Promise<string> => (await expandMdbookHelpers(`{{#include lines.txt${spec}}}`, dir, dir)).text;
    expect([await take(':2:3'), await take(':4:'), await take('::3'), await take(''), await take(':2'), await take(':5:4')]).toEqual([
      'ipsum\ndolor',
      'sit\namet',
      'Lorem\nipsum\ndolor',
      'Lorem\nipsum\ndolor\nsit\namet',
      'ipsum',
      '',
    ]);
  });
});

describe('Docusaurus (fixtures/docs-trees/docusaurus-site)', () => {
  const SITE = join(TREES, 'docusaurus-site');

  it('mixed .md/.mdx: admonitions keep their title and prose, tabs their label, imports go, links to .mdx pages resolve', async () => {
    expect(await detectDocsSite(SITE)).toMatchObject({ generator: 'docusaurus', config: 'docusaurus.config.js', name: 'Orbit', contentDir: 'docs' });
    const { report, docs } = await build(SITE, { strict: true });
    expect([...docs.keys()].sort()).toEqual([
      'knowledge/api/client.md',
      'knowledge/api/overview.md',
      'knowledge/getting-started/configuration.md',
      'knowledge/getting-started/installation.md',
      'knowledge/guides/deploying.md',
      'knowledge/guides/upgrading.md',
      'knowledge/index.md',
      'knowledge/intro.md',
    ]);
    expect(report.mdx.map((p) => p.from)).toEqual(['knowledge/getting-started/installation.mdx', 'knowledge/guides/deploying.mdx']);
    const install = docs.get('knowledge/getting-started/installation.md')!;
    expect(install).not.toMatch(/^import /m);
    expect(install).not.toContain('<Tab');
    expect(install).toContain('\n**Cargo**\n\n\nInstall it from crates.io:\n\n```bash\ncargo install orbit-cli --locked\n```\n');
    expect(install).toContain('\n**Homebrew**\n\n\nInstall it with Homebrew on macOS:\n');
    expect(install).toContain('\n**Note: Minimum Rust version**\n\nOrbit needs Rust 1.75 or later. Check yours with `rustc --version`.\n\n\nNext:');
    expect(docs.get('knowledge/getting-started/configuration.md')).toContain(
      '\n**Warning: Ports below 1024**\n\nBinding a port below 1024 needs extra privileges on most systems.\n\n\nThe health check',
    );
    // An admonition without a title is its kind.
    expect(docs.get('knowledge/intro.md')).toContain('\n**Tip**\n\nAlready running Orbit 0.8? Read [Upgrading](guides/upgrading.md) first.\n\n');
    expect(docs.get('knowledge/guides/deploying.md')).toContain('\n**Danger: Graceful shutdown**\n\nSend `SIGTERM`, never `SIGKILL`: Orbit drains the requests it has first.\n');
    for (const [path, text] of docs) expect(text, path).not.toMatch(/^:::/m);
    expect(report.rewrittenLinks).toEqual([{ in: 'knowledge/intro.md', line: 8, from: './getting-started/installation.mdx', to: './getting-started/installation.md' }]);
    expect(unresolvedPageLinks(docs)).toEqual([]);
    expect(conventionCounts(report, 'applied')).toEqual({
      'Docusaurus admonition (:::note[Title]) as a bold label line': 4,
      'Docusaurus navigation order (sidebars.js) as the OKF index knowledge/index.md': 7,
    });
    expect(report.conventions.notApplied).toEqual([]);
  });

  it('sidebars.js, read without running it, is the navigation index: one section per sidebar, named by the navbar; doc ids by path or frontmatter id', async () => {
    const { docs } = await build(SITE);
    expect(docs.get('knowledge/index.md')).toBe(
      [
        '# Orbit',
        '',
        '## Docs',
        '',
        '* [Introduction](intro.md)',
        '* Getting Started',
        '  * [Installation](getting-started/installation.md)',
        // sidebar_label wins over the title.
        '  * [Configuration](getting-started/configuration.md)',
        '* [Guides](guides/deploying.md)',
        '  * [Upgrading from 0.8](guides/upgrading.md)',
        '',
        '## API',
        '',
        // `api/api-overview` is docs/api/overview.md by its frontmatter id.
        '* [Overview](api/overview.md)',
        '* [Client API](api/client.md)',
        '* REST reference',
        '',
      ].join('\n'),
    );
  });

  it('a sidebar it cannot read whole (computed, autogenerated) is one convention not applied, with why; strict refuses it', async () => {
    const dir = tempDir();
    cpSync(SITE, dir, { recursive: true });
    writeFileSync(
      join(dir, 'sidebars.js'),
      "const docs = require('./docs-list');\nexport default {\n  docsSidebar: ['intro', ...docs],\n  apiSidebar: [{type: 'autogenerated', dirName: 'api'}],\n};\n",
    );
    const { report, docs } = await build(dir);
    expect(docs.has('knowledge/index.md')).toBe(false);
    expect(report.conventions.notApplied).toEqual([{ kind: 'Docusaurus sidebar order (sidebars.js: computed values (line 3): code, not run)', count: 1, files: ['sidebars.js'] }]);
    expect(report.warnings.filter((w) => w.code === 'OCTX_CONVENTION_NOT_APPLIED')).toHaveLength(1);
    writeFileSync(join(dir, 'sidebars.js'), "export default {\n  apiSidebar: [{type: 'autogenerated', dirName: 'api'}],\n};\n");
    const autogenerated = await build(dir);
    expect(autogenerated.report.conventions.notApplied[0]!.kind).toBe(
      "Docusaurus sidebar order (sidebars.js: {type: 'autogenerated', dirName: 'api'} (its order comes from the pages' sidebar_position and _category_.json))",
    );
    const refused = await build(dir, { strict: true }).catch((e: unknown) => e);
    expect(isOctxError(refused) && refused.issues.map((i) => i.code)).toContain('OCTX_CONVENTION_NOT_APPLIED');
  });
});

describe('Hugo (fixtures/docs-trees/hugo-site)', () => {
  const SITE = join(TREES, 'hugo-site');

  it('ref and relref become relative links that resolve in the package (sections, bundles, fragments); the escaped form is the literal', async () => {
    expect(await detectDocsSite(SITE)).toMatchObject({ generator: 'hugo', config: 'hugo.toml', name: 'Orbit Documentation', contentDir: 'content' });
    const { report, docs } = await build(SITE);
    expect(docs.size).toBe(10);
    // A section is its _index.md; a leaf bundle's index.md is renamed _index.md, and the link follows.
    expect(docs.get('knowledge/_index.md')).toContain('Start with the [documentation](docs/_index.md) or read the\n[release notes of 0.9](blog/orbit-0-9/_index.md).');
    expect(docs.get('knowledge/docs/_index.md')).toContain(
      '- [Installation](getting-started/installation.md)\n- [Quick start](getting-started/quick-start.md)\n- [Configuration reference](reference/configuration.md)\n',
    );
    expect(docs.get('knowledge/docs/getting-started/quick-start.md')).toContain('[configuration](../reference/configuration.md).');
    expect(docs.get('knowledge/docs/reference/configuration.md')).toContain('The [command line](cli.md#check)');
    expect(docs.get('knowledge/docs/reference/cli.md')).toContain(
      'see [health checks](configuration.md#health).\nTo write a reference in a page without Hugo resolving it, escape it:\n`{{< ref "cli.md" >}}`.',
    );
    expect(docs.get('knowledge/blog/orbit-0-9/_index.md')).toContain('[configuration reference](../../docs/reference/configuration.md#health)');
    expect(unresolvedPageLinks(docs)).toEqual([]);
    const refsLeft = [...docs].flatMap(([path, text]) => (text.match(/\{\{<\s*(?:rel)?ref /g) ?? []).map(() => path));
    expect(refsLeft).toEqual(['knowledge/docs/reference/cli.md']); // the escaped literal
    // Hugo's own `type` is not the OKF type.
    expect(docs.get('knowledge/docs/getting-started/installation.md')).toContain('hugo:\n  type: "docs"\ntype: "Document"\n');
    expect(conventionCounts(report, 'applied')).toEqual({
      'Hugo {{< ref >}}/{{< relref >}} as a relative link': 10,
      "Hugo frontmatter type (the generator's, not the OKF type) moved under hugo:": 1,
    });
  });

  it('other shortcodes are kept as written: one OCTX_CONVENTION_NOT_APPLIED per kind with its count; strict refuses the build', async () => {
    const { report, docs } = await build(SITE);
    expect(docs.get('knowledge/docs/reference/configuration.md')).toContain('{{< notice info >}}\nA service that fails three checks in a row is restarted.\n{{< /notice >}}');
    expect(conventionCounts(report, 'notApplied')).toEqual({
      'Hugo shortcode {{< youtube >}} (a template this cannot run)': 1,
      'Hugo shortcode {{< notice >}} (a template this cannot run)': 2,
      'Hugo shortcode {{< figure >}} (a template this cannot run)': 1,
    });
    const warnings = report.warnings.filter((w) => w.code === 'OCTX_CONVENTION_NOT_APPLIED');
    expect(warnings.map((w) => [w.path, w.message])).toEqual([
      ['knowledge/blog/orbit-0-9/index.md', 'Hugo shortcode {{< youtube >}} (a template this cannot run): 1 kept as written, in knowledge/blog/orbit-0-9/index.md'],
      [
        'knowledge/docs/getting-started/installation.md',
        'Hugo shortcode {{< notice >}} (a template this cannot run): 2 kept as written, in knowledge/docs/getting-started/installation.md, knowledge/docs/reference/configuration.md',
      ],
      [
        'knowledge/docs/getting-started/quick-start.md',
        'Hugo shortcode {{< figure >}} (a template this cannot run): 1 kept as written, in knowledge/docs/getting-started/quick-start.md',
      ],
    ]);
    const cwd = tempDir();
    const strict = await runCli(['build', SITE, '--strict', '--json', '--asset-id', '019c7a00-0000-7000-8000-00000000a034'], { cwd });
    expect(strict.code).toBe(1);
    const error = jsonOf(strict).error as { code: string; issues: { code: string; path?: string }[] };
    expect(error.code).toBe('OCTX_STRICT_VIOLATION');
    expect(error.issues.filter((i) => i.code === 'OCTX_CONVENTION_NOT_APPLIED').map((i) => i.path)).toEqual(warnings.map((w) => w.path));
  });
});

describe('MkDocs Material (fixtures/docs-trees/mkdocs-material)', () => {
  const SITE = join(TREES, 'mkdocs-material');

  it('nav is the navigation index in its order (a page listed without a title shows its own); admonitions, details and tabs keep title, label and prose', async () => {
    expect(await detectDocsSite(SITE)).toMatchObject({ generator: 'mkdocs', config: 'mkdocs.yml', name: 'Orbit Docs', contentDir: 'docs' });
    const { report, docs } = await build(SITE);
    expect(docs.get('knowledge/index.md')).toBe(
      [
        '# Orbit Docs',
        '',
        '* [Home](_index.md)',
        '* [Getting started](getting-started.md)',
        '* Setup',
        '  * [Installing Orbit](setup/installation.md)',
        '  * [Configuration](setup/configuration.md)',
        '* Reference',
        '  * [Command line](reference/cli.md)',
        '  * [Python API](reference/api.md)',
        '* About',
        '  * [Changelog](about/changelog.md)',
        '  * [License](about/license.md)',
        // An external link after the sections: the nav stays one list, in its order.
        '* GitHub',
        '',
      ].join('\n'),
    );
    expect(docs.get('knowledge/_index.md')).toContain(
      '\n**Tip: New in 0.9**\n\nServices drain their requests before they stop. See the\n[configuration](setup/configuration.md#health) for `shutdown_grace`.\n',
    );
    const started = docs.get('knowledge/getting-started.md')!;
    expect(started).toContain('\n**Linux / macOS**\n\n```bash\norbit new inventory\ncd inventory && orbit run\n```\n\n**Windows**\n\n```powershell\n');
    expect(started).toContain('\n**Note: What `orbit new` creates**\n\nA `Cargo.toml`, an `orbit.toml` and `src/main.rs` with one handler.\n');
    // Nested: the inner admonition is converted once the outer one's content is dedented.
    expect(docs.get('knowledge/setup/configuration.md')).toContain(
      '## health\n\n**Info: Defaults**\n\nThe health check answers on `/healthz`; a draining service stops after\n`shutdown_grace` seconds (30).\n\n**Example**\n\n`shutdown_grace = 10` stops it after ten seconds.\n',
    );
    // No prose is left indented as code.
    for (const [path, text] of docs) expect(text, path).not.toMatch(/^(?:!!!|\?\?\?|===) /m);
    expect(unresolvedPageLinks(docs)).toEqual([]);
    expect(conventionCounts(report, 'applied')).toEqual({
      'MkDocs collapsible block (??? note "Title") as a bold label line and its content': 1,
      'MkDocs content tab (=== "Label") as a bold label line and its content': 2,
      'MkDocs admonition (!!! note "Title") as a bold label line and its content': 4,
      'MkDocs navigation order (mkdocs.yml nav) as the OKF index knowledge/index.md': 8,
    });
    expect(report.conventions.notApplied).toEqual([{ kind: 'MkDocs snippet --8<-- (pymdownx.snippets): not expanded', count: 1, files: ['knowledge/setup/installation.md'] }]);
  });
});

describe('a git-like rename pair (fixtures/docs-trees/rename-pair)', () => {
  const V1 = join(TREES, 'rename-pair/v1');
  const V2 = join(TREES, 'rename-pair/v2');
  const renamed = [
    ['knowledge/guide/configuration.md', 'knowledge/guide/configuring.md'],
    ['knowledge/guide/getting-started.md', 'knowledge/guide/quickstart.md'],
    ['knowledge/reference/cli.md', 'knowledge/reference/command-line.md'],
  ];

  it("with --state each renamed page keeps its id (the edited one at git's 76%), and diff says moved, and changed for the edited one", async () => {
    const state = join(tempDir(), 'state.json');
    const v1 = await build(V1, { state });
    const v2 = await build(V2, { state });
    expect(v2.report.carried.map((c) => [c.from, c.to, Math.floor(c.similarity)])).toEqual([
      ['knowledge/guide/configuration.md', 'knowledge/guide/configuring.md', 76],
      ['knowledge/guide/getting-started.md', 'knowledge/guide/quickstart.md', 100],
      ['knowledge/reference/cli.md', 'knowledge/reference/command-line.md', 100],
    ]);
    for (const [from, to] of renamed) expect(v2.ids.get(to!), to).toBe(v1.ids.get(from!));
    expect(v2.ids.get('knowledge/guide/deploying.md')).toBe(v1.ids.get('knowledge/guide/deploying.md'));
    expect([...v1.ids.values()]).not.toContain(v2.ids.get('knowledge/guide/troubleshooting.md'));
    const diff = await runCli(['diff', v1.file, v2.file, '--json']);
    expect(diff.code, diff.stderr).toBe(0);
    const documents = jsonOf(diff).documents as { added: { path: string }[]; removed: unknown[]; changed: { path: string }[]; moved: { id: string; from: string; to: string }[] };
    expect(documents.moved.map((m) => [m.from, m.to])).toEqual(renamed);
    expect(documents.moved.map((m) => m.id)).toEqual(renamed.map(([from]) => v1.ids.get(from!)));
    expect(documents.changed.map((c) => c.path)).toEqual(['knowledge/_index.md', 'knowledge/guide/configuring.md']);
    expect(documents.added.map((a) => a.path)).toEqual(['knowledge/guide/troubleshooting.md']);
    expect(documents.removed).toEqual([]);
  });

  it('without state, diffPackages findRenames pairs the same pages by content', async () => {
    const v1 = await build(V1);
    const v2 = await build(V2);
    const plain = await diffPackages(v1.file, v2.file);
    expect(plain.documents.moved).toEqual([]);
    expect(plain.documents.removed).toHaveLength(5);
    const diff = await diffPackages(v1.file, v2.file, { findRenames: true });
    expect(diff.documents.moved.map((m) => [m.from, m.to, m.fromId === v1.ids.get(m.from), m.id === v2.ids.get(m.to)])).toEqual(renamed.map(([f, t]) => [f, t, true, true]));
    expect(diff.documents.moved.map((m) => m.similarity! >= 76)).toEqual([true, true, true]);
    // Pages at the same path are one page (as git compares a path with itself): _index.md changed, deploying.md not.
    expect(diff.documents.changed.map((c) => c.path)).toEqual(['knowledge/_index.md', 'knowledge/guide/configuring.md']);
    expect(diff.documents.unchanged).toBe(1);
    expect(diff.documents.added.map((a) => a.path)).toEqual(['knowledge/guide/troubleshooting.md']);
    expect(diff.documents.removed).toEqual([]);
    expect(diff.documents.renames).toMatchObject({ samePath: 2, exact: 2, similar: 1, candidates: { removed: 3, added: 4 } });
  });
});

describe('per-tree counts', () => {
  it('each fixture tree: pages, .mdx pages, links rewritten, includes, refs, admonitions, navigation links, conventions not applied', async () => {
    const rows: Record<string, unknown> = {};
    for (const tree of ['mdbook-book', 'docusaurus-site', 'hugo-site', 'mkdocs-material', 'starlight-site', 'rename-pair/v1', 'rename-pair/v2']) {
      const { report: r } = await build(join(TREES, tree));
      const applied = (pattern: RegExp): number => r.conventions.applied.filter((c) => pattern.test(c.kind)).reduce((n, c) => n + c.count, 0);
      rows[tree] = [
        r.documents,
        r.mdx.length,
        r.rewrittenLinks.length,
        applied(/^mdBook \{\{#/),
        applied(/^Hugo \{\{< ref/),
        applied(/admonition|collapsible|content tab/i),
        applied(/navigation order/),
        r.conventions.notApplied.reduce((n, c) => n + c.count, 0),
      ];
    }
    // [documents, .mdx, links rewritten, includes, refs, admonitions/tabs, navigation links, not applied]
    expect(rows).toEqual({
      'mdbook-book': [8, 0, 0, 10, 0, 0, 7, 0],
      'docusaurus-site': [8, 2, 1, 0, 0, 4, 7, 0],
      'hugo-site': [10, 0, 0, 0, 10, 0, 0, 4],
      'mkdocs-material': [9, 0, 0, 0, 0, 7, 8, 1],
      'starlight-site': [4, 4, 4, 0, 0, 0, 0, 0],
      'rename-pair/v1': [5, 0, 0, 0, 0, 0, 0, 0],
      'rename-pair/v2': [6, 0, 0, 0, 0, 0, 0, 0],
    });
  });
});
