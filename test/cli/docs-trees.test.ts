/**
 * `octx-export build <docs folder>` on plain Markdown trees, end to end (issue 22): no
 * preparation, the mode said, every adjustment and every left-out file reported (by kind in the
 * summary, in full in --json), and a tree that needs a decision fails once, naming every file and
 * the flag.
 */
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validatePackage } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const ASSET = ['--asset-id', '019c7a00-0000-7000-8000-00000000a022'];

describe('build <plain docs folder>', () => {
  it('builds a VitePress tree with no preparation and reports every adjustment and every file left out', async () => {
    const out = join(tempDir(), 'docs.octx');
    const r = await runCli(['build', 'fixtures/docs-trees/vitepress', '-o', out, '--name', 'Docs', ...ASSET]);
    expect(r.code, r.stderr).toBe(0);
    const summary = r.stdout.split('\n').filter((l) => /^ {2}(folder|renamed|OKF|left out|dangling|frontmatter|not read) /.test(l));
    expect(summary).toEqual([
      '  folder        plain Markdown folder: its .md files are the documents, at their paths under knowledge/ (no knowledge/ folder or record files found); index files: --index-files as-documents',
      '  renamed       knowledge/guide/index.md → knowledge/guide/_index.md (not an OKF index.md)',
      '  renamed       knowledge/index.md → knowledge/_index.md (not an OKF index.md)',
      '  OKF index     knowledge/reference/index.md kept as an OKF reserved file, not a concept document (nothing can name it)',
      '  left out      4 images (.png, .svg): a package carries only Markdown knowledge',
      '  left out      1 script or component (.vue): a package carries only Markdown knowledge',
      '  left out      1 folder not scanned (.vitepress/)',
      '  dangling      3 links to files left out: knowledge/guide/configuration.md → guide/images/architecture.png, knowledge/guide/getting-started.md → public/screenshot.png, knowledge/guide/index.md → guide/images/deploy-flow.svg',
    ]);
    expect(r.stdout).toContain('documents     6 concept(s), 1 reserved');
    // Each rename is also a warning, in CLI terms.
    expect(r.stderr).toContain('kept as the concept document knowledge/guide/_index.md (--index-files as-documents)');
    expect((await validatePackage(out)).valid).toBe(true);
  });

  it('--strict refuses the default mode’s renames (each named) until --index-files accepts them', async () => {
    const out = join(tempDir(), 'strict.octx');
    const refused = await runCli(['build', 'fixtures/docs-trees/vitepress', '-o', out, '--name', 'Docs', '--strict', ...ASSET]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/^error\[OCTX_STRICT_VIOLATION\]/);
    expect(refused.stderr).toContain('OCTX_INDEX_FILE_RENAMED');
    for (const page of ['knowledge/guide/index.md', 'knowledge/index.md']) expect(refused.stderr).toContain(page);
    expect(existsSync(out)).toBe(false);
    const accepted = await runCli(['build', 'fixtures/docs-trees/vitepress', '-o', out, '--name', 'Docs', '--strict', '--index-files', 'as-documents', ...ASSET]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain('  renamed       knowledge/guide/index.md → knowledge/guide/_index.md (not an OKF index.md)');
    expect((await validatePackage(out)).valid).toBe(true);
  });

  it('--json lists every left-out file, conversion and dangling link', async () => {
    const out = join(tempDir(), 'hugo.octx');
    const r = await runCli(['build', 'fixtures/docs-trees/hugo', '-o', out, '--name', 'Docs', '--json', ...ASSET]);
    expect(r.code, r.stderr).toBe(0);
    const loaded = jsonOf(r).loaded as Record<string, unknown>;
    expect(loaded).toMatchObject({
      mode: 'plain-folder',
      knowledgeDir: '.',
      indexFiles: 'as-documents',
      documents: 6,
      leftOut: [{ kind: 'images', extensions: ['.jpg', '.png'], files: ['blog/first-post/cover.jpg', 'docs/diagram.png'] }],
      danglingLinks: [
        { from: 'knowledge/blog/first-post/index.md', to: 'blog/first-post/cover.jpg' },
        { from: 'knowledge/docs/install.md', to: 'docs/diagram.png' },
      ],
    });
    expect((loaded.converted as { from: string }[]).map((c) => c.from)).toEqual(['toml', 'toml', 'toml', 'json', 'toml']);
    const human = await runCli(['build', 'fixtures/docs-trees/hugo', '-o', out, '--name', 'Docs', '--overwrite', ...ASSET]);
    expect(human.stdout).toContain(
      '  frontmatter   4 TOML (+++) blocks read as YAML frontmatter: knowledge/_index.md, knowledge/blog/first-post/index.md, knowledge/docs/_index.md, knowledge/docs/install.md\n  frontmatter   1 JSON block read as YAML frontmatter: knowledge/docs/api.md\n',
    );
  });

  it('a tree that needs a decision fails once, naming every file and the flag that resolves it', async () => {
    const dir = tempDir();
    cpSync(join(ROOT, 'fixtures/docs-trees/vitepress'), join(dir, 'knowledge'), { recursive: true });
    const out = join(tempDir(), 'x.octx');
    const r = await runCli(['build', dir, '-o', out, '--name', 'Docs', ...ASSET]);
    expect(r.code).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error['));
    expect(errors).toHaveLength(2);
    expect(r.stderr).toContain(
      'error[OCTX_OKF_RESERVED_INVALID]: knowledge/guide/index.md is not an OKF index.md: only the bundle-root index.md may carry frontmatter\n  --> knowledge/guide/index.md\n',
    );
    expect(r.stderr).toMatch(/error\[OCTX_OKF_RESERVED_INVALID\]: knowledge\/index\.md is not an OKF index\.md: .*\n {2}--> knowledge\/index\.md\n/);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toContain('--index-files as-documents');
    const ok = await runCli(['build', dir, '-o', out, '--name', 'Docs', '--index-files', 'as-documents', ...ASSET]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('  folder        working folder: knowledge/ holds the documents; index files: --index-files as-documents\n');
  });

  it('no document: says how many Markdown files were found where, and --knowledge takes them', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'knowledge'));
    mkdirSync(join(dir, 'docs/guide'), { recursive: true });
    writeFileSync(join(dir, 'knowledge/logo.png'), 'png');
    writeFileSync(join(dir, 'docs/intro.md'), '# Intro\n');
    writeFileSync(join(dir, 'docs/guide/setup.md'), '# Setup\n');
    writeFileSync(join(dir, 'README.md'), '# Readme\n');
    const out = join(tempDir(), 'x.octx');
    const r = await runCli(['build', dir, '-o', out, '--name', 'Docs', ...ASSET]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error[OCTX_CONCEPT_REQUIRED]: no Markdown document in knowledge/ of ${dir}; 3 Markdown files were found elsewhere in ${dir}: docs/ (2), README.md\n`,
    );
    expect(r.stderr).toContain('hint: name the folder that holds the documents with --knowledge <subdir>');
    expect(r.stderr).not.toContain('addDocument');
    const ok = await runCli(['build', dir, '-o', out, '--name', 'Docs', '--knowledge', 'docs', ...ASSET]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('  folder        working folder: docs/ (--knowledge) holds the documents');
    expect(ok.stdout).toContain('documents     2 concept(s), 0 reserved');

    const empty = tempDir();
    writeFileSync(join(empty, 'page.rmd'), '# R Markdown\n');
    writeFileSync(join(empty, 'logo.svg'), '<svg/>');
    const none = await runCli(['build', empty, '-o', out, '--name', 'Docs', ...ASSET]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no Markdown (.md) file in ${empty}; found only 1 image (.svg), 1 Markdown-like file that is not .md (.rmd)`);
  });

  it('symbolic links stay refused: every one named in one run, with how to proceed', async () => {
    const dir = tempDir();
    cpSync(join(ROOT, 'fixtures/docs-trees/plain-readme'), dir, { recursive: true });
    symlinkSync(join(dir, 'install.md'), join(dir, 'setup.md'));
    symlinkSync(join(dir, 'assets'), join(dir, 'notes/assets'));
    const r = await runCli(['build', dir, '-o', join(tempDir(), 'x.octx'), '--name', 'Docs', ...ASSET]);
    expect(r.code).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error['));
    expect(errors).toEqual([
      'error[OCTX_SECURITY_ERROR]: notes/assets is a symbolic link, never followed: copy what it points at into the folder (cp -RL), or build that folder itself',
      'error[OCTX_SECURITY_ERROR]: setup.md is a symbolic link, never followed: copy what it points at into the folder (cp -RL), or build that folder itself',
    ]);
  });

  it('a TOML or JSON frontmatter block that does not parse gets a hint that names its syntax, not only YAML', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.md'), '+++\ntitle = \n+++\nBody\n');
    writeFileSync(join(dir, 'b.md'), '{"title": }\n\nBody\n');
    const r = await runCli(['build', dir, '-o', join(tempDir(), 'x.octx'), '--name', 'Docs', ...ASSET]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[OCTX_DOCUMENT_FRONTMATTER]: TOML frontmatter (+++) does not parse');
    expect(r.stderr).toContain('error[OCTX_DOCUMENT_FRONTMATTER]: JSON frontmatter does not parse');
    // Before: "fix the YAML frontmatter between the --- lines at the top of the file".
    expect(r.stderr).toMatch(/^hint: fix the frontmatter block at the top of the file \(YAML between --- lines, TOML between \+\+\+ lines, or a JSON object\)$/m);
  });
});
