/**
 * `diffPackages(a, b, { findRenames })` and `diff --find-renames[=<n>]`: between two packages
 * whose document ids differ (two builds without a producer state), a removed document and an
 * added one are paired by content as git's `-M` pairs files — at exactly the threshold and not
 * below it, identical contents as a move without a change, several candidates in a fixed order,
 * and only identical contents above the rename limit.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffPackages, isOctxError, openPackage, PackageBuilder } from '../../src/index.js';
import { findDocumentRenames } from '../../src/read/diff/document-renames.js';
import { tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from '../cli/run-cli.js';
import { id } from './fixtures.js';

/**
 * A page whose frontmatter is 60 bytes once its id is taken out (`---`, `type: Document`,
 * `title: Page 12`, `octx:`, `  document_id: `, `---`): the builder adds nothing to it.
 */
const page = (docId: string, body: string): string => `---\ntype: Document\ntitle: Page 12\noctx:\n  document_id: ${docId}\n---\n${body}`;
/** Ten-byte lines (`line-aaaa\n`…), each a span of git's measure. */
const lines = (...names: string[]): string => names.map((n) => `line-${n.padEnd(4, n)}\n`).join('');

async function pack(file: string, docs: Record<string, string>): Promise<string> {
  const b = new PackageBuilder({ asset: { id: id(0xa0), name: 'Docs' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
  for (const [path, markdown] of Object.entries(docs)) b.addDocument({ path, markdown });
  await b.export({ output: file });
  return file;
}

/** Two packages: `old` and `new` documents by path, with the ids given (distinct per side). */
async function pair(oldDocs: Record<string, string>, newDocs: Record<string, string>): Promise<[string, string]> {
  const dir = tempDir();
  return [await pack(join(dir, 'old.octx'), oldDocs), await pack(join(dir, 'new.octx'), newDocs)];
}

describe('diffPackages findRenames', () => {
  // 60 bytes of frontmatter + ten lines: 160 bytes; sharing the frontmatter and two lines is 80 bytes, exactly 50%.
  const old = page(id(1), lines('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'));
  const half = page(id(2), lines('a', 'b', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r'));
  // One byte more: 80 of 161 bytes, under 50%.
  const under = page(id(3), `${lines('a', 'b', 'k', 'l', 'm', 'n', 'o', 'p', 'q')}line-rrrrr\n`);

  it('exactly 50% is a rename at the default threshold: moved and changed, with the old id and the similarity', async () => {
    expect(Buffer.byteLength(old.replace(id(1), ''))).toBe(160);
    const [a, b] = await pair({ 'guide/setup.md': old }, { 'guide/install.md': half });
    const without = await diffPackages(a, b);
    expect(without.documents).toEqual({
      added: [{ id: id(2), path: 'knowledge/guide/install.md' }],
      removed: [{ id: id(1), path: 'knowledge/guide/setup.md' }],
      changed: [],
      moved: [],
      unchanged: 0,
    });
    const diff = await diffPackages(a, b, { findRenames: true });
    expect(diff.documents).toEqual({
      added: [],
      removed: [],
      changed: [{ id: id(2), path: 'knowledge/guide/install.md' }],
      moved: [{ id: id(2), from: 'knowledge/guide/setup.md', to: 'knowledge/guide/install.md', fromId: id(1), similarity: 50 }],
      unchanged: 0,
      renames: { threshold: 50, samePath: 0, exact: 0, similar: 1, skipped: false, candidates: { removed: 1, added: 1 }, limit: 1000 },
    });
    expect(diff.hasChanges).toBe(true);
    // The package's bytes are the page's: the frontmatter was complete, nothing was added.
    const pkg = await openPackage(b);
    expect((await pkg.readFile('knowledge/guide/install.md')).toString('utf8')).toBe(half);
    await pkg.close();
  });

  it('just under the threshold is no rename; a lower threshold (0.45) takes it', async () => {
    expect(Buffer.byteLength(under.replace(id(3), ''))).toBe(161);
    const [a, b] = await pair({ 'setup.md': old }, { 'install.md': under });
    const diff = await diffPackages(a, b, { findRenames: true });
    expect(diff.documents).toMatchObject({ added: [{ path: 'knowledge/install.md' }], removed: [{ path: 'knowledge/setup.md' }], moved: [] });
    expect(diff.documents.renames).toMatchObject({ exact: 0, similar: 0 });
    const lower = await diffPackages(a, b, { findRenames: 0.45 });
    // floor(80 × 60000 / 161) = 29813 of git's 60000: 49.6%.
    expect(lower.documents.moved).toEqual([{ id: id(3), from: 'knowledge/setup.md', to: 'knowledge/install.md', fromId: id(1), similarity: 49.6 }]);
    expect(lower.documents.renames?.threshold).toBe(45);
  });

  it('identical contents (the ids aside) are a move without a change', async () => {
    const body = '# Deploying\n\nRun the deploy command.\n';
    const [a, b] = await pair({ 'old/deploy.md': page(id(1), body), 'kept.md': page(id(5), 'Kept.\n') }, { 'new/deploy.md': page(id(2), body), 'kept.md': page(id(5), 'Kept.\n') });
    const diff = await diffPackages(a, b, { findRenames: true });
    expect(diff.documents).toEqual({
      added: [],
      removed: [],
      changed: [],
      moved: [{ id: id(2), from: 'knowledge/old/deploy.md', to: 'knowledge/new/deploy.md', fromId: id(1), similarity: 100 }],
      unchanged: 1,
      renames: { threshold: 50, samePath: 0, exact: 1, similar: 0, skipped: false, candidates: { removed: 1, added: 1 }, limit: 1000 },
    });
  });

  it('several candidates: the best score first, then the same file name, then path order; each document once', async () => {
    const same = '# The same page\n\nwith two lines\n';
    const near = lines('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j');
    const [a, b] = await pair(
      {
        'b/page.md': page(id(1), same),
        'a/other.md': page(id(2), same),
        'x/near.md': page(id(3), near),
        'y/nearer.md': page(id(4), `${near}line-zzzz\n`),
      },
      {
        'c/page.md': page(id(11), same),
        'c/zzz.md': page(id(12), same),
        // 170 of 180 bytes shared with y/nearer.md (94.4%), 160 with x/near.md (88.8%): it takes y/nearer.md.
        'z/renamed.md': page(id(13), `${near}line-zzzz\nline-tail\n`),
      },
    );
    const diff = await diffPackages(a, b, { findRenames: true });
    expect(diff.documents.moved).toEqual([
      { id: id(11), from: 'knowledge/b/page.md', to: 'knowledge/c/page.md', fromId: id(1), similarity: 100 },
      { id: id(12), from: 'knowledge/a/other.md', to: 'knowledge/c/zzz.md', fromId: id(2), similarity: 100 },
      { id: id(13), from: 'knowledge/y/nearer.md', to: 'knowledge/z/renamed.md', fromId: id(4), similarity: 94.4 },
    ]);
    expect(diff.documents.removed).toEqual([{ id: id(3), path: 'knowledge/x/near.md' }]);
    expect(diff.documents.changed).toEqual([{ id: id(13), path: 'knowledge/z/renamed.md' }]);
    expect(diff.documents.renames).toMatchObject({ exact: 2, similar: 1, candidates: { removed: 4, added: 3 } });
    // The same packages pair the same way in the other direction too.
    const back = await diffPackages(b, a, { findRenames: true });
    expect(back.documents.moved.map((m) => [m.from, m.to])).toEqual([
      ['knowledge/c/zzz.md', 'knowledge/a/other.md'],
      ['knowledge/c/page.md', 'knowledge/b/page.md'],
      ['knowledge/z/renamed.md', 'knowledge/y/nearer.md'],
    ]);
  });

  it('OKF index files are never paired; empty bodies are paired only when identical', async () => {
    const index = '# Docs\n\n* [Setup](setup.md)\n';
    const [a, b] = await pair({ 'a/index.md': index, 'setup.md': page(id(1), '') }, { 'b/index.md': index, 'install.md': page(id(2), '') });
    const diff = await diffPackages(a, b, { findRenames: true });
    expect(diff.documents.added).toEqual([{ id: null, path: 'knowledge/b/index.md' }]);
    expect(diff.documents.removed).toEqual([{ id: null, path: 'knowledge/a/index.md' }]);
    // Two pages of frontmatter only: the same content, so a move (git pairs identical files too).
    expect(diff.documents.moved).toEqual([{ id: id(2), from: 'knowledge/setup.md', to: 'knowledge/install.md', fromId: id(1), similarity: 100 }]);
  });

  it('above the rename limit only identical contents are paired, and the result says so', async () => {
    const [a, b] = await pair(
      { 'same.md': page(id(1), 'Same.\n'), 'p.md': page(id(2), lines('a', 'b', 'c')), 'q.md': page(id(3), lines('d', 'e', 'f')) },
      { 'moved.md': page(id(11), 'Same.\n'), 'p2.md': page(id(12), lines('a', 'b', 'c', 'x')), 'q2.md': page(id(13), lines('d', 'e', 'f', 'y')) },
    );
    const diff = await diffPackages(a, b, { findRenames: true });
    expect(diff.documents.moved.map((m) => m.to)).toEqual(['knowledge/moved.md', 'knowledge/p2.md', 'knowledge/q2.md']);
    const [pa, pb] = [await openPackage(a), await openPackage(b)];
    try {
      const plain = await diffPackages(pa, pb);
      const order = new Map(pb.info.files.map((f, i) => [f.path, i]));
      // A limit of 1: the 2 × 2 pairs left after the exact pass are more than 1 × 1.
      const limited = await findDocumentRenames(plain.documents, pa, pb, 30000, order, 1);
      expect(limited.moved).toEqual([{ id: id(11), from: 'knowledge/same.md', to: 'knowledge/moved.md', fromId: id(1), similarity: 100 }]);
      expect(limited.renames).toEqual({ threshold: 50, samePath: 0, exact: 1, similar: 0, skipped: true, candidates: { removed: 3, added: 3 }, limit: 1 });
      expect(limited.removed.map((r) => r.path)).toEqual(['knowledge/p.md', 'knowledge/q.md']);
    } finally {
      await pa.close();
      await pb.close();
    }
  });

  it('refuses a findRenames that is not true, false or a fraction from 0 to 1', async () => {
    const [a, b] = await pair({ 'a.md': page(id(1), 'A.\n') }, { 'a.md': page(id(1), 'A.\n') });
    for (const bad of [2, -0.1, '50%', Number.NaN]) {
      const e = await diffPackages(a, b, { findRenames: bad as number }).catch((x: unknown) => x);
      expect(isOctxError(e) && e.issues[0]).toMatchObject({ code: 'OCTX_OPTIONS_INVALID', field: 'findRenames' });
    }
    expect((await diffPackages(a, b, { findRenames: false })).documents.renames).toBeUndefined();
  });
});

describe('octx-export diff --find-renames', () => {
  it('alone is 50%; =<n> takes git syntax; the summary names the pair, its similarity and both ids', async () => {
    const old = page(id(1), lines('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'));
    const edited = page(id(2), lines('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'k', 'l'));
    // 140 of 160 bytes shared (the frontmatter and eight lines): 87.5%.
    const [a, b] = await pair({ 'setup.md': old }, { 'install.md': edited });
    const text = await runCli(['diff', a, b, '--find-renames']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('  documents       +0 -0 ~1 →1 (0 unchanged)\n');
    expect(text.stdout).toContain(`                  → knowledge/setup.md → knowledge/install.md (87.5% similar, id ${id(1)} → ${id(2)})\n`);
    expect(text.stdout).toContain('                  renames by content (at least 50% similar): 0 identical, 1 similar, of 1 removed × 1 added\n');
    const strict = await runCli(['diff', a, b, '--find-renames=90%', '--json']);
    expect(strict.code, strict.stderr).toBe(0);
    expect(jsonOf(strict).documents).toMatchObject({ moved: [], renames: { threshold: 90, similar: 0 } });
    const plain = await runCli(['diff', a, b, '--json']);
    expect(jsonOf(plain).documents).not.toHaveProperty('renames');
    const bad = await runCli(['diff', a, b, '--find-renames=most']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--find-renames must be a similarity as git writes it');
  });
});
