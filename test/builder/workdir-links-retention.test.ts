/**
 * Review of issue 23 (retention): `loadWorkdir` keeps every document's local link targets until
 * the whole tree is read (`links`, for the dangling-link count). `linkTargets` returns regular-
 * expression captures of the document's text: in V8 a capture of 13 characters or more is a
 * slice that keeps the whole decoded page alive, so a docs folder's load held the text of every
 * page that links to another one (a docs tree: nearly all of them) until its last page. Measured
 * as `frontmatter-retention.test.ts` measures a builder: a child process with `--expose-gc`, the
 * heap at the last `load` progress event against the heap before the load, on the built package.
 * Fixed: `linkTargets` returns copies (`detachedString`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/temp.js';

const script = (dir: string, withLinks: boolean): string => `
const { mkdirSync, writeFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { PackageBuilder, loadWorkdir } = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
const dir = ${JSON.stringify(dir)};
mkdirSync(dir, { recursive: true });
const name = (i) => 'page-' + String(i).padStart(6, '0') + '-of-the-handbook.md';
const N = 60;
for (let i = 0; i < N; i++) {
  const link = ${withLinks} ? 'Next: [the next page](' + name((i + 1) % N) + ').\\n\\n' : 'Next: the next page.\\n\\n';
  writeFileSync(join(dir, name(i)), '# Page ' + i + ' of the handbook\\n\\n' + link + ('Paragraph ' + i + ' of a long page. ').repeat(40_000) + '\\n');
}
const b = new PackageBuilder({ asset: { name: 'Retention' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
globalThis.gc();
const before = process.memoryUsage().heapUsed;
let atLast;
await loadWorkdir(b, dir, {
  indexFiles: 'as-documents',
  onProgress: (e) => {
    if (e.phase === 'load' && e.kind === 'documents' && e.total === N && e.completed === N) {
      globalThis.gc();
      atLast = process.memoryUsage().heapUsed;
    }
  },
});
console.log(JSON.stringify({ grownMiB: (atLast - before) / 2 ** 20 }));
await b.dispose();
`;

function grownMiB(withLinks: boolean): number {
  const dir = join(tempDir('links-'), 'docs');
  const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script(dir, withLinks)], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return (JSON.parse(run.stdout.trim()) as { grownMiB: number }).grownMiB;
}

// 60 pages of ~1.1 MB: ~66 MiB if their text were kept until the last one is read.
const BOUND_MIB = 20;

describe('review s5: loading a docs folder does not keep the pages it has read', () => {
  it('pages without links (control)', () => {
    expect(grownMiB(false)).toBeLessThan(BOUND_MIB);
  });

  // FINDING (medium: memory): each page's link targets (captures of its text) keep the whole page
  // alive until the folder is read: a docs tree's load holds all of its text at its last page.
  it('pages that link to one another', () => {
    expect(grownMiB(true)).toBeLessThan(BOUND_MIB);
  });
});
