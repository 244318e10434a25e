/**
 * Review of issue 23: the compression that runs beside the Arrow writing (`writeArchive` starts
 * `compressSpilled(sorted, …, 2 jobs)` before its streamed payloads). What is checked here, beyond
 * `compress-beside-arrow.test.ts`: JSONL snapshots with tails (a `RecordSpill`) as well as
 * document entries, nothing compressed or appended twice (the deflated files are as large as
 * without the early pass), the `compress` progress events unchanged, a spill read error in the
 * early pass (alone, and together with a failing Arrow write), an abort in its middle, and no
 * unhandled rejection on any of these paths.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeArchive, type ArchivePayload } from '../../src/export/archive-writer.js';
import { PayloadSpill, type SpilledEntry } from '../../src/package/payload-spill.js';
import type { ProgressEvent } from '../../src/plan/report.js';
import { RecordSpill } from '../../src/structure/record-spill.js';
import { xorshiftBytes } from '../helpers/bytes.js';
import { gatedStreamed } from '../helpers/streamed-payload.js';
import { tempDir } from '../helpers/temp.js';
import { inspectZip } from '../helpers/zip-inspect.js';

interface Setup {
  readonly spill: PayloadSpill;
  readonly records: RecordSpill;
  readonly payloads: ArchivePayload[];
  readonly close: () => void;
}

/** Documents (ended entries, one over a block) and a JSONL file snapshotted with a tail. */
function setup(dir: string, documents = 12, smallSize = 9000): Setup {
  mkdirSync(dir, { recursive: true });
  const spill = new PayloadSpill({ rawFile: join(dir, 'raw'), deflatedFile: join(dir, 'deflated') });
  const payloads: ArchivePayload[] = [];
  for (let i = 0; i < documents; i++) {
    spill.write(xorshiftBytes(i === 0 ? (1 << 20) + 5000 : smallSize + i, 7 + i, { textLike: true }));
    const entry = spill.endEntry();
    payloads.push({ path: `knowledge/d${String(i).padStart(3, '0')}.md`, size: entry.size, source: { spilled: entry } });
  }
  const records = new RecordSpill(join(dir, 'chunks.jsonl'));
  // ~2.3 MiB of lines: two full blocks and a tail in the snapshot.
  for (let i = 0; i < 24_000; i++) records.append(JSON.stringify({ id: i, text: `line ${i} ${'lorem ipsum '.repeat(8)}` }));
  const entry = records.snapshot();
  expect(entry.tail).toBeDefined();
  expect(entry.endBlock - entry.firstBlock).toBeGreaterThanOrEqual(2);
  payloads.push({ path: 'data/chunks.jsonl', size: entry.size, source: { spilled: entry } });
  return {
    spill,
    records,
    payloads,
    close: () => {
      spill.close();
      records.close();
    },
  };
}

function allCompressed(s: Setup, level: number): boolean {
  return s.payloads.every((p) => {
    const entry = (p.source as { spilled: SpilledEntry }).spilled;
    try {
      entry.spill.deflatedSize(entry, level);
      return true;
    } catch {
      return false;
    }
  });
}

function anyCompressed(s: Setup, level: number): boolean {
  const first = (s.payloads[0]!.source as { spilled: SpilledEntry }).spilled;
  try {
    first.spill.deflatedSize(first, level);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function contentEntries(file: string) {
  return inspectZip(file)
    .filter((e) => e.name !== 'manifest.json' && !e.name.endsWith('.arrow'))
    .map((e) => ({ name: e.name, method: e.method, crc32: e.crc32, compressedSize: e.compressedSize, size: e.size, sha256: createHash('sha256').update(e.data).digest('hex') }));
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  // A rejection left unhandled is reported on a later turn.
  await new Promise((resolve) => setTimeout(resolve, 20));
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toStrictEqual([]);
});

describe('review s5: compression beside the Arrow writing', () => {
  it('documents and a JSONL snapshot with a tail: same archive bytes, nothing compressed twice, same compress events', async () => {
    const dir = tempDir('beside-');
    const arrow = randomBytes(40_000);
    const a = setup(join(dir, 'a'));
    const eventsA: ProgressEvent[] = [];
    await writeArchive(join(dir, 'a.octx'), () => Buffer.from('{}'), a.payloads, {
      level: 6,
      // Everything, tails included, is compressed by the early pass before the Arrow bytes go in.
      streamed: [gatedStreamed('vectors/chunks.arrow', arrow, () => until(() => allCompressed(a, 6), 'the early pass'))],
      onProgress: (e) => eventsA.push(e),
    });
    const b = setup(join(dir, 'b'));
    const eventsB: ProgressEvent[] = [];
    await writeArchive(join(dir, 'b.octx'), () => Buffer.from('{}'), b.payloads, { level: 6, onProgress: (e) => eventsB.push(e) });
    // The second pass found everything done: no block or tail appended a second time.
    expect(statSync(join(dir, 'a', 'deflated')).size).toBe(statSync(join(dir, 'b', 'deflated')).size);
    expect(statSync(join(dir, 'a', 'chunks.jsonl.deflate')).size).toBe(statSync(join(dir, 'b', 'chunks.jsonl.deflate')).size);
    a.close();
    b.close();
    const inA = contentEntries(join(dir, 'a.octx'));
    expect(inA).toHaveLength(13);
    expect(inA.every((e) => e.method === 8)).toBe(true);
    expect(inA).toStrictEqual(contentEntries(join(dir, 'b.octx')));
    // The early pass is quiet: the compress step is reported exactly as without it.
    const compress = (events: ProgressEvent[]) => events.filter((e) => e.phase === 'compress');
    expect(compress(eventsA)).toStrictEqual(compress(eventsB));
    expect(compress(eventsA)[0]).toMatchObject({ completed: 0, total: 13 });
    expect(compress(eventsA).at(-1)).toMatchObject({ completed: 13, total: 13 });
  });

  it('a spill read error in the early pass fails the export once the Arrow file is written (OCTX_IO_ERROR)', async () => {
    const dir = tempDir('beside-eio-');
    const s = setup(dir);
    // Every block must now be read back from a file that ends too early.
    truncateSync(s.spill.rawFile, 100);
    let arrowWritten = false;
    await expect(
      writeArchive(join(dir, 'x.octx'), () => Buffer.from('{}'), s.payloads, {
        level: 6,
        streamed: [
          gatedStreamed('vectors/chunks.arrow', randomBytes(1000), async () => {
            await new Promise((resolve) => setTimeout(resolve, 30));
            arrowWritten = true;
          }),
        ],
      }),
    ).rejects.toMatchObject({ code: 'OCTX_IO_ERROR' });
    expect(arrowWritten).toBe(true);
    s.close();
  });

  it('when the Arrow write fails too, its error is the one reported, and nothing is left unhandled', async () => {
    const dir = tempDir('beside-both-');
    const s = setup(dir);
    truncateSync(s.spill.rawFile, 100);
    const boom = new Error('arrow failed');
    await expect(
      writeArchive(join(dir, 'y.octx'), () => Buffer.from('{}'), s.payloads, {
        level: 6,
        streamed: [
          {
            path: 'vectors/chunks.arrow',
            sizeBound: 10,
            write: async () => {
              // Let the early pass fail first.
              await new Promise((resolve) => setTimeout(resolve, 30));
              throw boom;
            },
          },
        ],
      }),
    ).rejects.toBe(boom);
    s.close();
  });

  it('an abort in the middle of the early pass: OCTX_ABORTED, and no job writes after the call returned', async () => {
    const dir = tempDir('beside-abort-');
    // Entries of 300 kB: the pass takes far longer than the poll that aborts it.
    const s = setup(dir, 40, 300_000);
    const controller = new AbortController();
    await expect(
      writeArchive(join(dir, 'z.octx'), () => Buffer.from('{}'), s.payloads, {
        level: 6,
        signal: controller.signal,
        streamed: [
          gatedStreamed('vectors/chunks.arrow', randomBytes(1000), async () => {
            await until(() => anyCompressed(s, 6), 'a first block');
            controller.abort();
          }),
        ],
      }),
    ).rejects.toMatchObject({ code: 'OCTX_ABORTED' });
    // Not everything was compressed: the abort stopped the early pass in its middle.
    expect(allCompressed(s, 6)).toBe(false);
    const size = statSync(join(dir, 'deflated')).size;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(statSync(join(dir, 'deflated')).size).toBe(size);
    s.close();
  });
});
