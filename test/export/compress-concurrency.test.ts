/**
 * Review of issue 23 (performance): the early compression pass of `writeArchive` runs two jobs at
 * a time so that the Arrow writes still find pool threads. When the Arrow files are written
 * before it is done (few vectors, or much text left: a producer that never yields leaves most
 * blocks to the export, and so does an export at another level than the builder's, or a builder
 * at level 0), the rest of the compression still runs two at a time after the Arrow writing,
 * while the main thread only waits (`await early`): half the parallelism the compress step had
 * before (four jobs, the pool's size). Measured as the most `deflateBlock` calls in flight once
 * the streamed payloads are written. Fixed: the early pass runs under one limiter whose
 * concurrency goes up to four once the streamed payloads are written.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { writeArchive, type ArchivePayload, type StreamedPayload } from '../../src/export/archive-writer.js';
import { PayloadSpill } from '../../src/package/payload-spill.js';
import type * as DeflateBlock from '../../src/package/deflate-block.js';
import { xorshiftBytes } from '../helpers/bytes.js';
import { tempDir } from '../helpers/temp.js';

const probe = vi.hoisted(() => ({ inFlight: 0, max: 0, counting: false }));

vi.mock('../../src/package/deflate-block.js', async (importOriginal) => {
  const original = await importOriginal<typeof DeflateBlock>();
  return {
    ...original,
    deflateBlock: async (...args: Parameters<typeof original.deflateBlock>) => {
      probe.inFlight++;
      if (probe.counting) probe.max = Math.max(probe.max, probe.inFlight);
      try {
        return await original.deflateBlock(...args);
      } finally {
        probe.inFlight--;
      }
    },
  };
});

/** 24 one-block documents that the background never saw (all left to the export). */
function spilled(dir: string): { spill: PayloadSpill; payloads: ArchivePayload[] } {
  mkdirSync(dir, { recursive: true });
  const spill = new PayloadSpill({ rawFile: join(dir, 'raw'), deflatedFile: join(dir, 'deflated') });
  const payloads: ArchivePayload[] = [];
  for (let i = 0; i < 24; i++) {
    spill.write(xorshiftBytes(1 << 20, 11 + i, { textLike: true }));
    const entry = spill.endEntry();
    payloads.push({ path: `knowledge/d${String(i).padStart(3, '0')}.md`, size: entry.size, source: { spilled: entry } });
  }
  return { spill, payloads };
}

/** A small Arrow file, written at once: counting starts when it is in the archive. */
function quickStreamed(): StreamedPayload {
  const bytes = Buffer.alloc(64, 1);
  return {
    path: 'vectors/chunks.arrow',
    sizeBound: bytes.length,
    write: async ({ handle, position }) => {
      await handle.write(bytes, 0, bytes.length, position);
      probe.max = probe.inFlight;
      probe.counting = true;
      return { size: bytes.length, crc32: crc32(bytes), sha256: createHash('sha256').update(bytes).digest('hex') };
    },
  };
}

describe('review s5: compression left after the Arrow writing', () => {
  it('without Arrow files, the compress step runs four jobs at a time (control)', async () => {
    const dir = tempDir('conc-a-');
    const { spill, payloads } = spilled(dir);
    probe.max = 0;
    probe.counting = true;
    await writeArchive(join(dir, 'a.octx'), () => Buffer.from('{}'), payloads, { level: 6 });
    probe.counting = false;
    spill.close();
    expect(probe.max).toBe(4);
  });

  // FINDING (medium: performance): once the Arrow files are written, what the early pass has not
  // done yet is still compressed two jobs at a time (the main thread waits on `await early`); the
  // compress step of an export with vectors lost half its parallelism on machines with 4+ cores.
  // A fix: one p-limit shared by both passes whose concurrency is raised to 4 after the streamed
  // payloads (p-limit 7 has a `concurrency` setter), or abandon the early pass's queue then.
  it('with a quick Arrow file, the rest is compressed four jobs at a time as before', async () => {
    const dir = tempDir('conc-b-');
    const { spill, payloads } = spilled(dir);
    probe.max = 0;
    probe.counting = false;
    await writeArchive(join(dir, 'b.octx'), () => Buffer.from('{}'), payloads, { level: 6, streamed: [quickStreamed()] });
    probe.counting = false;
    spill.close();
    expect(probe.max).toBe(4);
  });
});
