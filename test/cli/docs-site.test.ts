/**
 * Plain Markdown folders (issue 15, item 4). Reproduces the issue: a docs-site folder with
 * `guides/index.md` failed with `OCTX_OKF_RESERVED_INVALID` and no way out, and a chunk could only
 * name its document by a UUIDv7 written into the document first. `fixtures/docs-site` is the
 * complete working-folder example of docs/working-folder.md.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkdir, openPackage, PackageBuilder, renamedReservedPath, validatePackage, type OctxError } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const SITE = join(ROOT, 'fixtures/docs-site');

async function load(dir: string, indexFiles?: 'okf' | 'as-documents' | 'skip') {
  const builder = new PackageBuilder({ asset: { name: 'Docs' } });
  try {
    const report = await loadWorkdir(builder, dir, indexFiles ? { indexFiles } : {});
    return { builder, report };
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

/** A copy of the docs-site fixture to edit. */
function site(): string {
  const dir = join(tempDir(), 'site');
  cpSync(SITE, dir, { recursive: true });
  return dir;
}

describe('index.md files of plain Markdown folders', () => {
  it('by default a non-OKF index.md is refused, and the hint names the way out', async () => {
    const e = await failure(load(SITE));
    expect(e.code).toBe('OCTX_OKF_RESERVED_INVALID');
    expect(e.issues[0]).toMatchObject({ path: 'knowledge/guides/index.md' });
    const out = join(tempDir(), 'x.octx');
    const r = await runCli(['build', 'fixtures/docs-site', '-o', out, '--name', 'Docs']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error\[OCTX_OKF_RESERVED_INVALID\]: .*\n {2}--> knowledge\/guides\/index\.md\n/);
    expect(r.stderr).toContain('--index-files as-documents');
  });

  it('as-documents keeps each as a concept document renamed to _index.md, with a warning; chunks name documents by path', async () => {
    expect([renamedReservedPath('guides/index.md'), renamedReservedPath('index.md'), renamedReservedPath('a/b/log.md')]).toEqual(['guides/_index.md', '_index.md', 'a/b/_log.md']);
    const { builder, report } = await load(SITE, 'as-documents');
    expect(report.renamed).toEqual([
      { from: 'guides/index.md', to: 'guides/_index.md' },
      { from: 'index.md', to: '_index.md' },
    ]);
    expect(report.warnings.map((w) => [w.code, w.path])).toEqual([
      ['OCTX_INDEX_FILE_RENAMED', 'knowledge/guides/index.md'],
      ['OCTX_INDEX_FILE_RENAMED', 'knowledge/index.md'],
    ]);
    expect(report).toMatchObject({ documents: 5, chunks: 5, events: 2, entities: 2, chunkEvents: 5, eventEntities: 3 });
    const out = join(tempDir(), 'site.octx');
    const result = await builder.export({ output: out, structure: 'require' });
    expect(result.report.capabilities).toEqual(['sag-structured']);
    expect((await validatePackage(out)).valid).toBe(true);

    const pkg = await openPackage(out);
    try {
      const ids = new Map<string, string>();
      for await (const d of pkg.documents()) {
        expect(d.kind, d.path).toBe('concept');
        ids.set(d.path, d.documentId!);
      }
      expect([...ids.keys()].sort()).toEqual([
        'knowledge/_index.md',
        'knowledge/guides/_index.md',
        'knowledge/guides/deploy.md',
        'knowledge/guides/setup.md',
        'knowledge/reference/commands.md',
      ]);
      // The id given in the frontmatter is kept; the others were minted.
      expect(ids.get('knowledge/reference/commands.md')).toBe('019c7a00-0000-7000-8000-00000000d001');
      const byChunk = new Map<string, string>();
      for await (const { record: c } of pkg.chunks()) byChunk.set(c.id, c.document_id);
      expect(byChunk.get('019c7a00-0000-7000-8000-0000000c0001')).toBe(ids.get('knowledge/_index.md'));
      expect(byChunk.get('019c7a00-0000-7000-8000-0000000c0002')).toBe(ids.get('knowledge/guides/_index.md'));
      expect(byChunk.get('019c7a00-0000-7000-8000-0000000c0003')).toBe(ids.get('knowledge/guides/setup.md'));
      expect(byChunk.get('019c7a00-0000-7000-8000-0000000c0004')).toBe(ids.get('knowledge/guides/deploy.md'));
      // The renamed page keeps its text, and gets the frontmatter a concept needs.
      const page = (await pkg.readFile('knowledge/guides/_index.md')).toString('utf8');
      expect(page).toMatch(/^---\n/);
      expect(page).toContain('sidebar_position: 1');
      expect(page).toContain('Step-by-step guides: first [set up](setup.md)');
    } finally {
      await pkg.close();
    }
  });

  it('the CLI flag: --index-files as-documents builds the fixture with complete structure; warnings in CLI terms', async () => {
    const out = join(tempDir(), 'cli.octx');
    const r = await runCli(['build', 'fixtures/docs-site', '-o', out, '--name', 'Docs', '--index-files', 'as-documents', '--require-structure']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning[OCTX_INDEX_FILE_RENAMED]: knowledge/guides/index.md is not an OKF index.md (only the bundle-root index.md may carry frontmatter); kept as the concept document knowledge/guides/_index.md (--index-files as-documents)\n  --> knowledge/guides/index.md\n',
    );
    expect(r.stdout).toContain('  renamed       knowledge/guides/index.md → knowledge/guides/_index.md (not an OKF index.md)');
    expect(r.stdout).toContain('structure     written: 5 chunks, 2 events, 2 entities');
    const bad = await runCli(['build', 'fixtures/docs-site', '-o', out, '--name', 'Docs', '--index-files', 'rename']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: --index-files must be one of okf, as-documents, skip/);
  });

  it('skip leaves them out with a warning; a chunk naming a skipped page is an error with its record and field', async () => {
    const e = await failure(load(SITE, 'skip'));
    expect(e.code).toBe('OCTX_REFERENCE_UNKNOWN');
    expect(e.issues[0]).toMatchObject({ path: 'data/chunks.jsonl', line: 1, recordId: '019c7a00-0000-7000-8000-0000000c0001', field: 'document' });
    expect(e.issues[0]!.message).toContain('no Concept Document at knowledge/index.md: it was left out (indexFiles: skip)');
    // Without the chunks of the skipped pages, it builds.
    const dir = site();
    const lines = readFileSync(join(dir, 'data/chunks.jsonl'), 'utf8').trimEnd().split('\n');
    writeFileSync(join(dir, 'data/chunks.jsonl'), `${lines.slice(2).join('\n')}\n`);
    const { builder, report } = await load(dir, 'skip');
    await builder.dispose();
    expect(report.skipped).toEqual(['guides/index.md', 'index.md']);
    expect(report.warnings.map((w) => w.code)).toEqual(['OCTX_INDEX_FILE_SKIPPED', 'OCTX_INDEX_FILE_SKIPPED']);
    expect(report.documents).toBe(3);
  });

  it('a valid OKF index.md stays reserved; a rename that would collide is refused', async () => {
    const { builder, report } = await load(join(ROOT, 'fixtures/kb-three-kingdoms'), 'as-documents');
    await builder.dispose();
    expect(report.renamed).toEqual([]);
    expect(report.warnings).toEqual([]);
    const dir = site();
    writeFileSync(join(dir, 'knowledge/guides/_index.md'), '# Also a guides page\n');
    const e = await failure(load(dir, 'as-documents'));
    expect(e.code).toBe('OCTX_FILE_PATH_DUPLICATE');
    expect(e.issues[0]).toMatchObject({ path: 'knowledge/guides/index.md' });
    expect(e.message).toContain('knowledge/guides/_index.md');
    const invalid = await failure(load(SITE, 'rename' as never));
    expect(invalid.code).toBe('OCTX_OPTIONS_INVALID');
  });
});

describe('chunks that name their document by path', () => {
  it('an unknown path, or both document and document_id, is an error naming the record and field', async () => {
    const dir = site();
    const chunks = join(dir, 'data/chunks.jsonl');
    const lines = readFileSync(chunks, 'utf8').trimEnd().split('\n');
    writeFileSync(chunks, [...lines.slice(0, 2), lines[2]!.replace('guides/setup.md', 'guides/install.md'), ...lines.slice(3)].join('\n') + '\n');
    const unknown = await failure(load(dir, 'as-documents'));
    expect(unknown.code).toBe('OCTX_REFERENCE_UNKNOWN');
    expect(unknown.issues[0]).toMatchObject({ path: 'data/chunks.jsonl', line: 3, recordId: '019c7a00-0000-7000-8000-0000000c0003', field: 'document' });
    expect(unknown.issues[0]!.message).toContain('no Concept Document at knowledge/guides/install.md (document paths are relative to knowledge/)');

    writeFileSync(
      chunks,
      [lines[0]!.replace('"document":"index.md"', '"document":"index.md","document_id":"019c7a00-0000-7000-8000-00000000d001"'), ...lines.slice(1)].join('\n') + '\n',
    );
    const both = await failure(load(dir, 'as-documents'));
    expect(both.code).toBe('OCTX_RECORD_INVALID');
    expect(both.issues[0]).toMatchObject({ line: 1, field: 'document' });

    // The CLI prints it in the one error format, with --json the same fields.
    mkdirSync(join(dir, 'out'));
    const r = await runCli(['build', dir, '-o', join(dir, 'out/x.octx'), '--name', 'Docs', '--index-files', 'as-documents', '--json']);
    expect(r.code).toBe(1);
    expect(jsonOf(r)).toMatchObject({ ok: false, error: { code: 'OCTX_RECORD_INVALID', issues: [{ path: 'data/chunks.jsonl', line: 1, field: 'document' }] } });
  });
});
