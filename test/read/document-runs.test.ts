/**
 * Small documents are read in runs (`readMany`), the others one by one, and both readers —
 * `OctxPackage.documents()` and `validatePackage` — still hand out documents, errors and issues
 * in manifest order, with bytes that are the reading's own.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from '../../src/index.js';
import { RUN_DOCUMENTS, SMALL_DOCUMENT_BYTES, documentRuns } from '../../src/read/document-runs.js';
import type { PackageSource } from '../../src/read/source.js';
import { cleanupTempDirs, conceptMd, entriesOf, sha256, tid, writeZip } from './helpers.js';

afterAll(cleanupTempDirs);

// Above the run size, and not compressible past the reader's ratio limit.
const big = `${conceptMd(tid(), 'Big')}\n${randomBytes((SMALL_DOCUMENT_BYTES >> 1) + 10).toString('hex')}\n`;
const files = {
  'knowledge/a.md': conceptMd(tid(), 'A'),
  'knowledge/b.md': conceptMd(tid(), 'B'),
  'knowledge/big.md': big,
  'knowledge/c.md': conceptMd(tid(), 'C'),
};

/** A source that only knows sizes, with or without `readMany`. */
function sizedSource(sizes: Record<string, number>, readMany: boolean): PackageSource {
  return {
    kind: 'zip',
    path: 'x.octx',
    names: () => Object.keys(sizes),
    has: (n: string) => n in sizes,
    size: (n: string) => sizes[n]!,
    open: () => {
      throw new Error('not read');
    },
    readAll: () => Promise.reject(new Error('not read')),
    ...(readMany ? { readMany: () => Promise.resolve() } : {}),
    close: () => Promise.resolve(),
  };
}

describe('documentRuns', () => {
  it('groups small documents, caps a run by count and by maxFileSize, and leaves missing and large ones alone', () => {
    const sizes: Record<string, number> = { s1: 10, s2: 20, l1: SMALL_DOCUMENT_BYTES + 1, s3: 30, m: 500 };
    const paths = ['s1', 's2', 'l1', 'gone', 's3', 'm'];
    const runs = (max: number, readMany = true): string[] =>
      [...documentRuns(sizedSource(sizes, readMany), paths, max)].map((r) => `${r.small ? 'run' : 'one'}:${paths.slice(r.start, r.end).join(',')}`);
    expect(runs(1 << 30)).toEqual(['run:s1,s2', 'one:l1,gone', 'run:s3,m']);
    // A file above maxFileSize is read alone (its reader refuses it in its turn).
    expect(runs(100)).toEqual(['run:s1,s2', 'one:l1,gone', 'run:s3', 'one:m']);
    // A folder package has no readMany: every document alone.
    expect(runs(1 << 30, false)).toEqual(['one:s1,s2,l1,gone,s3,m']);
    const many = Array.from({ length: RUN_DOCUMENTS + 5 }, (_, i) => `p${i}`);
    const manySizes = Object.fromEntries(many.map((p) => [p, 1]));
    expect([...documentRuns(sizedSource(manySizes, true), many, 1 << 30)].map((r) => r.end - r.start)).toEqual([RUN_DOCUMENTS, 5]);
  });
});

describe('reading documents in runs', () => {
  it('documents() hands out every document in manifest order with its own bytes', async () => {
    const pkg = await openPackage(await writeZip(entriesOf({ files })));
    try {
      const readings = [];
      for await (const d of pkg.documents()) readings.push(d);
      expect(readings.map((d) => d.path)).toEqual(Object.keys(files));
      // The first reading's bytes were not overwritten by the later reads of its run.
      for (const d of readings) expect(sha256(d.bytes)).toBe(sha256(files[d.path as keyof typeof files]));
      expect(readings.map((d) => d.issues)).toEqual([[], [], [], []]);
    } finally {
      await pkg.close();
    }
  });

  it('a document whose bytes are not the listed ones: documents() throws in its turn, validatePackage reports it and reads on', async () => {
    const wrong = sha256('something else');
    const zip = await writeZip(
      entriesOf({
        files,
        edit: (m) => {
          m.files.find((f: { path: string }) => f.path === 'knowledge/b.md').sha256 = wrong;
        },
      }),
    );
    const pkg = await openPackage(zip);
    const seen: string[] = [];
    try {
      await expect(
        (async () => {
          for await (const d of pkg.documents()) seen.push(d.path);
        })(),
      ).rejects.toMatchObject({ code: 'OCTX_FILE_DIGEST_MISMATCH', issues: [{ path: 'knowledge/b.md' }] });
    } finally {
      await pkg.close();
    }
    expect(seen).toEqual(['knowledge/a.md']);
    const report = await validatePackage(zip);
    expect(report.valid).toBe(false);
    expect(report.issues.map((i) => [i.code, i.path])).toEqual([['OCTX_FILE_DIGEST_MISMATCH', 'knowledge/b.md']]);
  });
});
