/**
 * Small entries are re-verified in runs of adjacent entries (`readMany` of the ZIP source, one
 * positional read per run, inflated in-thread) instead of one stream each (issue 23). The
 * outcome must be the stream's, entry for entry: the same issue code, path and message for every
 * kind of damage, and nothing missed.
 */
import { deflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { SMALL_ENTRY_BYTES, verifyEntries } from '../../src/export/verify-entries.js';
import { openPackage, sourceOf } from '../../src/read/open-package.js';
import { xorshiftBytes } from '../helpers/bytes.js';
import { smallDocumentsPackage, verifyAll } from '../helpers/verify-runs.js';
import { cleanupTempDirs, manifestFor, rawZip, writeBytes, type RawEntry } from '../read/helpers.js';

afterAll(cleanupTempDirs);

const text = (seed: number, n = 3000): Buffer => xorshiftBytes(n, seed, { textLike: true });

/** What each listed file should hold (the manifest lists these digests). */
const INTENDED: Record<string, Buffer> = {
  'knowledge/a-ok.md': text(1),
  'knowledge/b-crc-stored.md': text(2),
  'knowledge/c-crc-deflated.md': text(3),
  'knowledge/d-not-deflate.md': text(4),
  'knowledge/e-truncated.md': text(5),
  'knowledge/f-longer-than-declared.md': text(6),
  'knowledge/g-shorter-than-declared.md': text(7),
  'knowledge/h-other-bytes.md': text(8),
  'knowledge/i-empty.md': Buffer.alloc(0),
  'knowledge/j-ok-stored.md': text(10),
  // Above SMALL_ENTRY_BYTES: streamed, alongside the runs.
  'knowledge/k-large.md': text(11, SMALL_ENTRY_BYTES + 1000),
  'knowledge/l-large-damaged.md': text(12, SMALL_ENTRY_BYTES + 5000),
};

/** The damage done to each entry, and the issue code the stream reports for it. */
function entries(): RawEntry[] {
  const d = (p: string): Buffer => INTENDED[p]!;
  const deflated = (p: string): Buffer => deflateRawSync(d(p));
  const flipped = (b: Buffer, at: number): Buffer => {
    const c = Buffer.from(b);
    c[at] = c[at]! ^ 0xff;
    return c;
  };
  return [
    { name: 'knowledge/a-ok.md', data: d('knowledge/a-ok.md'), method: 8 },
    { name: 'knowledge/b-crc-stored.md', data: d('knowledge/b-crc-stored.md'), crc: 12345 },
    { name: 'knowledge/c-crc-deflated.md', data: d('knowledge/c-crc-deflated.md'), method: 8, crc: 54321 },
    { name: 'knowledge/d-not-deflate.md', data: d('knowledge/d-not-deflate.md'), method: 8, payload: Buffer.alloc(64, 0xff) },
    {
      name: 'knowledge/e-truncated.md',
      data: d('knowledge/e-truncated.md'),
      method: 8,
      payload: deflated('knowledge/e-truncated.md').subarray(0, 100),
    },
    { name: 'knowledge/f-longer-than-declared.md', data: d('knowledge/f-longer-than-declared.md'), method: 8, uncompressedSize: 2000 },
    { name: 'knowledge/g-shorter-than-declared.md', data: d('knowledge/g-shorter-than-declared.md'), method: 8, uncompressedSize: 4000 },
    // Intact as a ZIP entry (its CRC is of the bytes written), but not the bytes listed.
    { name: 'knowledge/h-other-bytes.md', data: flipped(d('knowledge/h-other-bytes.md'), 10), method: 8 },
    { name: 'knowledge/i-empty.md', data: d('knowledge/i-empty.md'), method: 8 },
    { name: 'knowledge/j-ok-stored.md', data: d('knowledge/j-ok-stored.md') },
    { name: 'knowledge/k-large.md', data: d('knowledge/k-large.md'), method: 8 },
    { name: 'knowledge/l-large-damaged.md', data: d('knowledge/l-large-damaged.md'), method: 8, crc: 1 },
  ];
}

const EXPECTED_CODES: Record<string, string | undefined> = {
  'knowledge/a-ok.md': undefined,
  'knowledge/b-crc-stored.md': 'OCTX_ARCHIVE_CORRUPT',
  'knowledge/c-crc-deflated.md': 'OCTX_ARCHIVE_CORRUPT',
  'knowledge/d-not-deflate.md': 'OCTX_ARCHIVE_CORRUPT',
  'knowledge/e-truncated.md': 'OCTX_ARCHIVE_CORRUPT',
  'knowledge/f-longer-than-declared.md': 'OCTX_ARCHIVE_CORRUPT',
  'knowledge/g-shorter-than-declared.md': 'OCTX_ARCHIVE_CORRUPT',
  'knowledge/h-other-bytes.md': 'OCTX_FILE_DIGEST_MISMATCH',
  'knowledge/i-empty.md': undefined,
  'knowledge/j-ok-stored.md': undefined,
  'knowledge/k-large.md': undefined,
  'knowledge/l-large-damaged.md': 'OCTX_ARCHIVE_CORRUPT',
};

async function damagedPackage(): Promise<string> {
  const manifest = `${JSON.stringify(manifestFor({ files: INTENDED }), null, 2)}\n`;
  return writeBytes(rawZip([{ name: 'manifest.json', data: manifest, method: 8 }, ...entries()]));
}

describe('integrity verification of small entries in runs', () => {
  it('reports every damage with the code, path and message a stream reports, entry for entry', async () => {
    const pkg = await openPackage(await damagedPackage());
    try {
      const inRuns = await verifyAll(pkg, true);
      const streamed = await verifyAll(pkg, false);
      const paths = pkg.listedFiles().map((f) => f.path);
      expect(Object.fromEntries(paths.map((p, i) => [p, inRuns[i]?.code]))).toEqual(EXPECTED_CODES);
      expect(inRuns).toEqual(streamed);
      for (const [i, found] of inRuns.entries()) if (found) expect(found.path).toBe(paths[i]);
      expect(inRuns[paths.indexOf('knowledge/h-other-bytes.md')]!.message).toMatch(/has SHA-256 [0-9a-f]{64}, but the manifest lists [0-9a-f]{64}/);
      expect(inRuns[paths.indexOf('knowledge/f-longer-than-declared.md')]!.message).toMatch(/holds more than its 2000 declared bytes/);
      expect(inRuns[paths.indexOf('knowledge/g-shorter-than-declared.md')]!.message).toMatch(/holds 3000 bytes but 4000 were declared/);
    } finally {
      await pkg.close();
    }
  });

  it('reads adjacent small entries with one read per run of up to 1 MiB', async () => {
    const path = await smallDocumentsPackage(300, 100, 0);
    const pkg = await openPackage(path);
    try {
      const source = sourceOf(pkg) as unknown as { reader: { pread: (...a: unknown[]) => void } };
      const pread = source.reader.pread.bind(source.reader);
      let reads = 0;
      source.reader.pread = (...a: unknown[]) => {
        reads += 1;
        pread(...a);
      };
      const found = await verifyEntries(pkg, pkg.listedFiles(), undefined);
      expect(found.every((f) => f === undefined)).toBe(true);
      // 300 × 8,000 bytes stored (plus headers) is 2.4 MB: three runs of at most 1 MiB.
      expect(reads).toBe(3);
    } finally {
      await pkg.close();
    }
  });
});
