import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import { PayloadSpill, type SpilledEntry } from '../../src/package/payload-spill.js';
import { OctxError } from '../../src/model/errors.js';
import { tempDir } from '../helpers/temp.js';
import { mixedText, segmentBytes } from '../helpers/spill.js';

/** 600 small entries (a block each), as a build of many documents leaves them for the export. */
function manyEntries(): { spill: PayloadSpill; entries: SpilledEntry[]; inputs: Buffer[] } {
  const dir = tempDir();
  const spill = new PayloadSpill({ rawFile: join(dir, 'raw'), deflatedFile: join(dir, 'deflated') });
  const inputs = Array.from({ length: 600 }, (_, i) => mixedText(200 + (i % 50), i));
  const entries = inputs.map((buf) => {
    spill.write(buf);
    return spill.endEntry();
  });
  return { spill, entries, inputs };
}

describe('PayloadSpill.compress with many entries', () => {
  it('keeps a bounded window of jobs in the limiter, not one per block, and every entry inflates to its bytes', async () => {
    const { spill, entries, inputs } = manyEntries();
    const limit = pLimit(2);
    let most = 0;
    const watched = Object.assign(
      <T>(fn: () => Promise<T>): Promise<T> => {
        const p = limit(fn);
        most = Math.max(most, limit.activeCount + limit.pendingCount);
        return p;
      },
      {
        get concurrency() {
          return limit.concurrency;
        },
      },
    );
    await spill.compress(entries, 6, { limit: watched as unknown as typeof limit });
    // 32 lanes, each with one job in the limiter (2 running, the rest waiting).
    expect(most).toBe(32);
    entries.forEach((e, i) => expect(inflateRawSync(segmentBytes(spill.segments(e, 'deflate', 6))).equals(inputs[i]!)).toBe(true));
    spill.close();
  });

  it('stops taking jobs after an abort and throws OCTX_ABORTED', async () => {
    const { spill, entries } = manyEntries();
    const controller = new AbortController();
    controller.abort();
    const error = await spill.compress(entries, 6, { signal: controller.signal, concurrency: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OctxError);
    expect((error as OctxError).code).toBe('OCTX_ABORTED');
    // Aborted before the first block: nothing was compressed.
    expect(() => spill.segments(entries[0]!, 'deflate', 6)).toThrow();
    spill.close();
  });
});
