// @module-tag heavy (1,000 shards written and merged, resident memory sampled: 20 s of CPU, and its memory bound wants a worker of its own, not the quick lane's shared one)
/**
 * 1,000 tiny shards merged at once: the merge reads them one at a time, so the open file handles
 * stay at a handful whatever the number of shards (counted in /proc/self/fd while it runs), and the
 * memory it takes is bounded (resident set sampled during the merge). The shards are written
 * directly with the SDK's ZIP assembler and manifest builder (a builder export per shard would make
 * this test take minutes).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mergePackages, validatePackage } from 'octx-export';
import { buildManifest, manifestBytes } from '../../src/package/manifest.js';
import { assembleZip } from '../helpers/assemble-zip.js';
import { tempDir } from '../helpers/temp.js';

const ASSET = '01890a5d-ac96-7000-8000-00000000a55e';
const SHARDS = 1000;

function stored(name: string, bytes: Buffer) {
  return { name, method: 'store' as const, crc32: crc32(bytes), size: bytes.length, compressedSize: bytes.length, segments: [{ bytes }] };
}

/** One valid package holding one document. */
async function tinyShard(path: string, n: number): Promise<void> {
  const docId = `01890a5d-ac96-7001-8000-${n.toString(16).padStart(12, '0')}`;
  const doc = Buffer.from(`---\ntype: Note\ntitle: Shard ${n}\noctx:\n  document_id: ${docId}\n---\n# Shard ${n}\n\nOne page.\n`);
  const docPath = `knowledge/shards/${String(n).padStart(4, '0')}.md`;
  const manifest = buildManifest({
    assetId: ASSET,
    assetName: 'Many shards',
    version: '1.0.0',
    createdAt: '2026-01-01T00:00:00Z',
    capabilities: {},
    files: [{ path: docPath, sha256: createHash('sha256').update(doc).digest('hex') }],
  });
  await assembleZip(path, [stored(docPath, doc), stored('manifest.json', manifestBytes(manifest))]);
}

function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

describe.skipIf(process.platform !== 'linux')('merging 1,000 tiny shards', () => {
  it('keeps file handles and memory bounded, and the result holds every document', { timeout: 240_000 }, async () => {
    const dir = tempDir();
    const shards: string[] = [];
    for (let n = 0; n < SHARDS; n++) {
      const path = join(dir, `shard-${n}.octx`);
      await tinyShard(path, n);
      shards.push(path);
    }
    const fdsBefore = openFds();
    const rssBefore = process.memoryUsage().rss;
    let fdsPeak = fdsBefore;
    let rssPeak = rssBefore;
    const sample = (): void => {
      fdsPeak = Math.max(fdsPeak, openFds());
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    };
    const timer = setInterval(sample, 5);
    let result;
    try {
      // Reversed: the order must not matter for the bytes (checked in merge-packages.test.ts) nor here.
      result = await mergePackages([...shards].reverse(), { output: join(dir, 'merged.octx'), onProgress: sample });
    } finally {
      clearInterval(timer);
    }
    sample();
    // A shard open at a time (its reader and its validator's), the output and the builder's spills:
    // a few tens of handles at most, never one per shard.
    expect(fdsPeak - fdsBefore).toBeLessThan(40);
    expect(rssPeak - rssBefore).toBeLessThan(256 * 1024 * 1024);
    expect(result.report.documents.concepts).toBe(SHARDS);
    expect(result.shards).toHaveLength(SHARDS);
    const report = await validatePackage(join(dir, 'merged.octx'));
    expect(report.valid).toBe(true);
    const files = (report.manifest as { files: { path: string }[] }).files.map((f) => f.path);
    expect(files).toHaveLength(SHARDS);
    expect(files[0]).toBe('knowledge/shards/0000.md');
    expect(files[SHARDS - 1]).toBe('knowledge/shards/0999.md');
    console.log(`1,000 shards: ${fdsPeak - fdsBefore} more fds at peak, ${((rssPeak - rssBefore) / 1048576).toFixed(1)} MiB more RSS at peak`);
  });
});
