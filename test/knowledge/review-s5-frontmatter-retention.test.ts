/**
 * Review of issue 23 (retention): the fast path and `deriveTitle` copy what a builder keeps, but a
 * frontmatter block that the fast path declines (a comment, a list, a single-quoted value, a
 * date…: most hand-written blocks) is read by the yaml library, whose plain and single-quoted
 * scalars are substrings of the block, itself a slice of the document's Markdown. V8 keeps the
 * whole parent string behind a slice of 13 characters or more, so a title or an
 * `octx.document_id` kept by the builder (`#documents`, `#documentIds`) keeps the whole document
 * alive. Double-quoted values are built character by character by yaml: they are copies (the
 * control case). Same method as `frontmatter-retention.test.ts`: a child process with
 * `--expose-gc`, on the built package (`npm run build` first). Fixed: `prepareConcept` keeps
 * copies of the title and the document id (`detachedString`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/temp.js';

const script = (head: string): string => `
const { PackageBuilder } = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
const id = (n) => '019c0000-0000-7000-8000-' + n.toString(16).padStart(12, '0');
const b = new PackageBuilder({ asset: { id: id(1), name: 'Retention' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
const body = (i) => ('Paragraph ' + i + ' of a long document. ').repeat(40_000); // ~1.1 MB each
globalThis.gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < 80; i++) {
  const markdown = ${head} + body(i) + '\\n';
  b.addDocument({ path: 'd' + i + '.md', markdown });
}
globalThis.gc();
const after = process.memoryUsage().heapUsed;
console.log(JSON.stringify({ grownMiB: (after - before) / 2 ** 20, documentId: b.documentId('d7.md') }));
await b.dispose();
`;

function grownMiB(head: string): number {
  const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script(head)], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  const out = JSON.parse(run.stdout.trim()) as { grownMiB: number; documentId: string };
  expect(out.documentId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  return out.grownMiB;
}

// 80 documents of ~1.1 MB: ~88 MiB if their text were kept; a few MiB of bookkeeping if not.
const BOUND_MIB = 20;

describe('review s5: documents whose frontmatter the yaml library reads are not kept in memory', () => {
  // FINDING (high: memory): a plain title of 13+ characters in a block the fast path declines (here
  // a comment line) is a slice of the document. The builder keeps it until export: every such
  // document stays in memory (measured: the whole 80 x 1.1 MB).
  it('a title read by the yaml library (comment line, plain title, id minted)', () => {
    expect(grownMiB(`'---\\n# written by hand\\ntype: Document\\ntitle: Document ' + i + ' of the handbook\\n---\\n\\n'`)).toBeLessThan(BOUND_MIB);
  });

  // FINDING (high: memory): the same for a single-quoted title beside a list.
  it('a single-quoted title beside a tag list', () => {
    expect(grownMiB(`'---\\ntype: Document\\ntitle: \\'Document ' + i + ' of the handbook\\'\\ntags: [guide, setup]\\n---\\n\\n'`)).toBeLessThan(BOUND_MIB);
  });

  // FINDING (high: memory): an author's plain `octx.document_id` (36 characters) read by the yaml
  // library is a slice too; the builder keeps it in `#documentIds` and in its document list.
  it('a plain document_id read by the yaml library (the title comes from the first heading)', () => {
    expect(
      grownMiB(`'---\\n# written by hand\\ntype: Document\\noctx:\\n  document_id: ' + id(0x1000 + i) + '\\n---\\n\\n# Heading of document ' + i + ' here\\n\\n'`),
    ).toBeLessThan(BOUND_MIB);
  });

  // Control: yaml builds double-quoted values character by character, so they are copies.
  it('double-quoted title and document_id read by the yaml library', () => {
    expect(
      grownMiB(`'---\\n# written by hand\\ntype: Document\\ntitle: "Document ' + i + ' of the handbook"\\noctx:\\n  document_id: "' + id(0x1000 + i) + '"\\n---\\n\\n'`),
    ).toBeLessThan(BOUND_MIB);
  });
});
