/**
 * A builder keeps each document's title and id, and nothing else of its text (issue 23). Values
 * read by the plain-frontmatter fast path, and titles taken from a document's first heading, were
 * slices of the document's Markdown, which V8 keeps whole behind a slice: every document added
 * stayed in memory (the M bench held 330 MiB more heap at the end of collection). Measured in a
 * child process with `--expose-gc`, on the built package (`npm test` builds it first).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/temp.js';

/** How each document of the script is written: its title in the frontmatter, or from its first heading. */
const SHAPES = {
  'a fast-path frontmatter with a title': `'---\\ntype: Document\\ntitle: "Document ' + i + ' title"\\noctx:\\n  document_id: ' + id(0x1000 + i) + '\\n---\\n\\n'`,
  'a frontmatter without a title (taken from the first heading)': `'---\\ntype: Document\\noctx:\\n  document_id: ' + id(0x1000 + i) + '\\n---\\n\\n# Heading of document ' + i + ' here\\n\\n'`,
  'no frontmatter (title from the first heading, id minted)': `'# Heading of document ' + i + ' here\\n\\n'`,
  // Blocks the fast path declines, read by the yaml library, whose plain and single-quoted values
  // are slices too (found by a review); double-quoted ones it builds as copies.
  'a plain title read by the yaml library (a comment line, id minted)': `'---\\n# written by hand\\ntype: Document\\ntitle: Document ' + i + ' of the handbook\\n---\\n\\n'`,
  'a single-quoted title beside a tag list': `'---\\ntype: Document\\ntitle: \\'Document ' + i + ' of the handbook\\'\\ntags: [guide, setup]\\n---\\n\\n'`,
  'a plain document_id read by the yaml library (title from the first heading)': `'---\\n# written by hand\\ntype: Document\\noctx:\\n  document_id: ' + id(0x1000 + i) + '\\n---\\n\\n# Heading of document ' + i + ' here\\n\\n'`,
  'a double-quoted title and document_id read by the yaml library': `'---\\n# written by hand\\ntype: Document\\ntitle: "Document ' + i + ' of the handbook"\\noctx:\\n  document_id: "' + id(0x1000 + i) + '"\\n---\\n\\n'`,
};

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

describe('documents added to a builder are not kept in memory', () => {
  for (const [shape, head] of Object.entries(SHAPES)) {
    it(`with ${shape}`, () => {
      const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script(head)], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const { grownMiB, documentId } = JSON.parse(run.stdout.trim()) as { grownMiB: number; documentId: string };
      expect(documentId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      // 80 documents of ~1.1 MB: ~88 MiB if their text were kept; a few MiB of bookkeeping if not.
      expect(grownMiB).toBeLessThan(20);
    });
  }
});
