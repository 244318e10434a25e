/**
 * Issue 23: what the background left to compress is compressed while the Arrow files are written
 * (`writeArchive` starts it before its streamed payloads). The archive's bytes do not depend on
 * it, the compress step then finds nothing left, and when the Arrow writing fails or is cancelled
 * no compression job outlives the call.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeArchive, type ArchivePayload } from '../../src/export/archive-writer.js';
import { PayloadSpill, type SpilledEntry } from '../../src/package/payload-spill.js';
import type { ProgressEvent } from '../../src/plan/report.js';
import { xorshiftBytes } from '../helpers/bytes.js';
import { gatedStreamed } from '../helpers/streamed-payload.js';
import { tempDir } from '../helpers/temp.js';
import { inspectZip } from '../helpers/zip-inspect.js';

/** A spill of `count` text entries (nothing compressed yet: no background). */
function spilled(dir: string, count: number): { spill: PayloadSpill; payloads: ArchivePayload[] } {
  mkdirSync(dir, { recursive: true });
  const spill = new PayloadSpill({ rawFile: join(dir, 'raw'), deflatedFile: join(dir, 'deflated') });
  const payloads: ArchivePayload[] = [];
  for (let i = 0; i < count; i++) {
    // A block and a tail for the first entry, small ones after it.
    spill.write(xorshiftBytes(i === 0 ? (1 << 20) + 5000 : 9000 + i, 7 + i, { textLike: true }));
    const entry = spill.endEntry();
    payloads.push({ path: `knowledge/d${String(i).padStart(3, '0')}.md`, size: entry.size, source: { spilled: entry } });
  }
  return { spill, payloads };
}

describe('compression beside the Arrow writing', () => {
  it('compresses while the Arrow file is written, with the bytes of compressing after it', async () => {
    const dir = tempDir('beside-arrow');
    const arrow = randomBytes(50_000);
    const a = spilled(join(dir, 'a'), 12);
    const events: ProgressEvent[] = [];
    // The Arrow writing waits until every block and tail of the spill is compressed (the deflated
    // size of an entry throws until then): only the pass beside it can get there.
    const allCompressed = (): boolean =>
      a.payloads.every((p) => {
        try {
          a.spill.deflatedSize((p.source as { spilled: SpilledEntry }).spilled, 6);
          return true;
        } catch {
          return false;
        }
      });
    const waitForCompression = async (): Promise<void> => {
      const until = Date.now() + 10_000;
      while (!allCompressed()) {
        if (Date.now() > until) throw new Error('nothing was compressed while the Arrow file was written');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await writeArchive(join(dir, 'a.octx'), () => Buffer.from('{}'), a.payloads, {
      level: 6,
      streamed: [gatedStreamed('vectors/chunks.arrow', arrow, waitForCompression)],
      onProgress: (e) => events.push(e),
    });
    a.spill.close();
    // The compress step still reports every entry.
    expect(events.filter((e) => e.phase === 'compress').at(-1)).toMatchObject({ completed: 12, total: 12 });

    // The same payloads without a streamed entry: compressed at the compress step.
    const b = spilled(join(dir, 'b'), 12);
    await writeArchive(join(dir, 'b.octx'), () => Buffer.from('{}'), b.payloads, { level: 6 });
    b.spill.close();
    const entries = (file: string) =>
      inspectZip(join(dir, file))
        .filter((e) => e.name.startsWith('knowledge/'))
        .map((e) => ({
          name: e.name,
          method: e.method,
          crc32: e.crc32,
          compressedSize: e.compressedSize,
          size: e.size,
          sha256: createHash('sha256').update(e.data).digest('hex'),
        }));
    const inA = entries('a.octx');
    expect(inA).toHaveLength(12);
    expect(inA.every((e) => e.method === 8)).toBe(true);
    expect(inA).toStrictEqual(entries('b.octx'));
  });

  it('leaves no compression job running when the Arrow writing fails', async () => {
    const dir = tempDir('beside-arrow-fail');
    const { spill, payloads } = spilled(dir, 40);
    const boom = new Error('arrow failed');
    const before = readdirSync('/proc/self/fd').length;
    await expect(
      writeArchive(join(dir, 'f.octx'), () => Buffer.from('{}'), payloads, {
        level: 6,
        streamed: [{ path: 'vectors/chunks.arrow', sizeBound: 10, write: async () => Promise.reject(boom) }],
      }),
    ).rejects.toBe(boom);
    // Every job settled before the call returned: closing the spill now cannot fail a job later.
    spill.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(before);
  });

  it('stops on abort with OCTX_ABORTED, its jobs settled', async () => {
    const dir = tempDir('beside-arrow-abort');
    const { spill, payloads } = spilled(dir, 40);
    const controller = new AbortController();
    const arrow = randomBytes(1000);
    await expect(
      writeArchive(join(dir, 'x.octx'), () => Buffer.from('{}'), payloads, {
        level: 6,
        signal: controller.signal,
        streamed: [
          gatedStreamed('vectors/chunks.arrow', arrow, async () => {
            controller.abort();
          }),
        ],
      }),
    ).rejects.toMatchObject({ code: 'OCTX_ABORTED' });
    spill.close();
  });
});
