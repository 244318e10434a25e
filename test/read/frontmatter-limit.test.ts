/**
 * Issue 16, item 2: frontmatter has its own size limit (`maxFrontmatterBytes`, default 1 MiB,
 * `OCTX_FRONTMATTER_TOO_LARGE`), enforced by the validator, `openPackage().documents()` and
 * `addDocument`; documents the validator holds at once are bounded by bytes (`ByteBudget`).
 * The 250 MiB case under a 512 MiB heap is in memory-bound.test.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, isOctxError } from '../../src/index.js';
import { ByteBudget } from '../../src/read/byte-budget.js';
import { openPackage, validatePackage } from '../../src/read/index.js';
import { DOC_ID, conceptMd, entriesOf, writeDir } from './helpers.js';
import { failureAsync } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

const MiB = 1024 * 1024;
const bigTitle = (bytes: number): string => `---\ntype: Reference\ntitle: "${'t'.repeat(bytes)}"\noctx:\n  document_id: ${DOC_ID}\n---\n# Big\n`;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isOctxError(e)) return `${e.code}:${e.issues[0]?.field ?? ''}`;
    throw e;
  }
  return undefined;
}

describe('maxFrontmatterBytes in the validator and openPackage', () => {
  it('refuses a 2 MiB frontmatter by default, accepts it when the limit is raised', async () => {
    const dir = await writeDir(entriesOf({ files: { 'knowledge/big.md': bigTitle(2 * MiB) } }));
    const report = await validatePackage(dir);
    expect(report.valid).toBe(false);
    expect(report.issues.map((i) => [i.code, i.path, i.field])).toEqual([['OCTX_FRONTMATTER_TOO_LARGE', 'knowledge/big.md', 'frontmatter']]);
    const raised = await validatePackage(dir, { limits: { maxFrontmatterBytes: 3 * MiB } });
    expect(raised.issues).toEqual([]);
    expect(raised.valid).toBe(true);

    const pkg = await openPackage(dir, { limits: { maxFrontmatterBytes: 64 * 1024 } });
    try {
      const codes: string[] = [];
      for await (const d of pkg.documents()) codes.push(...d.issues.map((i) => i.code));
      expect(codes).toEqual(['OCTX_FRONTMATTER_TOO_LARGE']);
    } finally {
      await pkg.close();
    }
  });

  it('a package of many documents, some large, validates with every digest settled in manifest order', async () => {
    const files: Record<string, string> = {};
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = `019c0000-0000-7000-8000-0000000009${String(i).padStart(2, '0')}`;
      ids.push(id);
      files[`knowledge/d${String(i).padStart(2, '0')}.md`] = conceptMd(id, `D${i}`) + 'x'.repeat(i % 3 === 0 ? 3 * MiB : 10);
    }
    files['knowledge/index.md'] = `# Home\n\n${'* [A](d00.md) - a\n'.repeat(50_000)}`;
    const report = await validatePackage(await writeDir(entriesOf({ files })));
    expect(report.issues).toEqual([]);
    expect(report.valid).toBe(true);
  });
});

describe('maxFrontmatterBytes in addDocument', () => {
  const builder = (o: { maxFrontmatterBytes?: number } = {}) => new PackageBuilder({ asset: { name: 'A' }, ...o });

  it('refuses a frontmatter block above 1 MiB with OCTX_FRONTMATTER_TOO_LARGE before parsing it', async () => {
    const b = builder();
    expect(codeOf(() => b.addDocument({ path: 'big.md', markdown: bigTitle(MiB) }))).toBe('OCTX_FRONTMATTER_TOO_LARGE:frontmatter');
    expect(codeOf(() => b.addDocument({ path: 'big.md', markdown: Buffer.from(bigTitle(MiB)) }))).toBe('OCTX_FRONTMATTER_TOO_LARGE:frontmatter');
    // Completion would push a block just under the limit over it: refused with the same code.
    const nearly = `---\ntitle: "${'t'.repeat(MiB - 20)}"\n---\n# T\n`;
    expect(codeOf(() => b.addDocument({ path: 'nearly.md', markdown: nearly }))).toBe('OCTX_FRONTMATTER_TOO_LARGE:frontmatter');
    expect(codeOf(() => b.addDocument({ path: 'index.md', markdown: `---\nokf_version: "${'1'.repeat(MiB)}"\n---\n# Home\n\n* [A](a.md)\n` }))).toBe('OCTX_OKF_RESERVED_INVALID:');
    await b.dispose();
  });

  it('takes the limit from the builder option, which is checked', async () => {
    const b = builder({ maxFrontmatterBytes: 2 * MiB });
    expect(codeOf(() => b.addDocument({ path: 'big.md', markdown: bigTitle(MiB) }))).toBeUndefined();
    await b.dispose();
    const small = builder({ maxFrontmatterBytes: 100 });
    expect(codeOf(() => small.addDocument({ path: 'a.md', markdown: bigTitle(100) }))).toBe('OCTX_FRONTMATTER_TOO_LARGE:frontmatter');
    await small.dispose();
    expect(codeOf(() => builder({ maxFrontmatterBytes: 0 }))).toBe('OCTX_OPTIONS_INVALID:maxFrontmatterBytes');
  });

  it('a block the builder option accepted but the export limits do not: the planner refuses it (OCTX_RESOURCE_LIMIT naming the document), nothing is written', async () => {
    const dir = tempDir();
    const doc = bigTitle(MiB);
    const blockBytes = Buffer.byteLength(doc.slice(4, doc.indexOf('---\n#')));
    for (const limits of [undefined, { maxFrontmatterBytes: blockBytes - 1 }]) {
      const b = builder({ maxFrontmatterBytes: 2 * MiB }).addDocument({ path: 'big.md', markdown: doc });
      const out = join(dir, 'refused.octx');
      const e = await failureAsync(b.export({ output: out, ...(limits ? { limits } : {}) }));
      expect(e.code).toBe('OCTX_RESOURCE_LIMIT');
      expect(e.issues).toEqual([
        expect.objectContaining({
          code: 'OCTX_RESOURCE_LIMIT',
          path: 'knowledge/big.md',
          field: 'frontmatter',
          message: expect.stringContaining(`the frontmatter block is ${blockBytes} bytes, above maxFrontmatterBytes ${limits?.maxFrontmatterBytes ?? MiB}`),
        }),
      ]);
      expect(existsSync(out)).toBe(false);
      await b.dispose();
    }
    // Raised at export too: written, and read back with the same limit.
    const b = builder({ maxFrontmatterBytes: 2 * MiB }).addDocument({ path: 'big.md', markdown: doc });
    const out = join(dir, 'ok.octx');
    await b.export({ output: out, limits: { maxFrontmatterBytes: blockBytes } });
    expect((await validatePackage(out, { limits: { maxFrontmatterBytes: blockBytes } })).valid).toBe(true);
  });
});

describe('ByteBudget', () => {
  it('never grants more than its capacity, runs an oversized request alone, and serves in order', async () => {
    const budget = new ByteBudget(100);
    let held = 0;
    let peak = 0;
    const order: number[] = [];
    const work = async (i: number, bytes: number): Promise<void> => {
      const release = await budget.acquire(bytes);
      order.push(i);
      held += Math.min(bytes, 100);
      peak = Math.max(peak, held);
      await new Promise((r) => setTimeout(r, 2));
      held -= Math.min(bytes, 100);
      release();
      release(); // a second call gives nothing back twice
    };
    await Promise.all([work(0, 60), work(1, 60), work(2, 500), work(3, 10), work(4, 30), work(5, 30)]);
    expect(peak).toBeLessThanOrEqual(100);
    // 3 (10 bytes) would fit beside 0 but waits behind the larger requests: first come, first served.
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
