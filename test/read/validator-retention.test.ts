/**
 * Review of issue 23 (retention), in the validator: it decodes only a Concept Document's
 * frontmatter block (up to `maxFrontmatterBytes`, 1 MiB by default) and keeps its
 * `octx.document_id` until the structure checks (`concepts`). A plain `document_id` in a block
 * the fast path declines (a comment, a list, a single quote…) is read by the yaml library as a
 * substring of that block, so the validator keeps every such document's whole decoded block:
 * memory that grows with the sum of the frontmatter blocks of an untrusted package instead of
 * 36 characters per document. Measured in a child process with `--expose-gc`: the heap when the
 * documents step ends against the heap before validation, on the built package. Fixed:
 * `readConceptDocument` keeps a copy of the id (`detachedString`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/temp.js';

const script = (out: string, quotedId: boolean): string => `
const { PackageBuilder, validatePackage } = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
const id = (n) => '019c0000-0000-7000-8000-' + n.toString(16).padStart(12, '0');
const N = 60;
{
  const b = new PackageBuilder({ asset: { id: id(1), name: 'Retention' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
  for (let i = 0; i < N; i++) {
    // A comment line of 400 kB: the block goes to the yaml library.
    const docId = ${quotedId} ? '"' + id(0x1000 + i) + '"' : id(0x1000 + i);
    const markdown = '---\\n# ' + ('note ' + i + ' ').repeat(50_000) + '\\ntype: Document\\ntitle: "Document ' + i + '"\\noctx:\\n  document_id: ' + docId + '\\n---\\n\\n# Document ' + i + '\\n';
    b.addDocument({ path: 'd' + i + '.md', markdown });
  }
  await b.export({ output: ${JSON.stringify(out)}, documentsOnly: true });
}
globalThis.gc();
const before = process.memoryUsage().heapUsed;
let atEnd;
const report = await validatePackage(${JSON.stringify(out)}, {
  onProgress: (e) => {
    if (e.phase === 'validate' && e.kind === 'documents' && e.total === N && e.completed === N) {
      globalThis.gc();
      atEnd = process.memoryUsage().heapUsed;
    }
  },
});
console.log(JSON.stringify({ valid: report.valid, grownMiB: (atEnd - before) / 2 ** 20 }));
`;

function grownMiB(quotedId: boolean): number {
  const out = join(tempDir('validator-'), 'p.octx');
  const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script(out, quotedId)], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  const result = JSON.parse(run.stdout.trim()) as { valid: boolean; grownMiB: number };
  expect(result.valid).toBe(true);
  return result.grownMiB;
}

// 60 blocks of ~400 kB: ~23 MiB if they were kept; little if only the ids are.
const BOUND_MIB = 8;

describe('review s5: the validator does not keep the frontmatter blocks it has read', () => {
  it('quoted document ids (control: yaml copies them)', () => {
    expect(grownMiB(true)).toBeLessThan(BOUND_MIB);
  });

  // FINDING (medium: memory, untrusted input): plain document ids are slices of their block.
  it('plain document ids in blocks the yaml library reads', () => {
    expect(grownMiB(false)).toBeLessThan(BOUND_MIB);
  });
});
