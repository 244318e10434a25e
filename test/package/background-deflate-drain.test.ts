import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BackgroundDeflate, DRAIN_YIELD_FRACTION, JOB_OVERHEAD_BYTES } from '../../src/package/background-deflate.js';
import { DEFLATE_END } from '../../src/package/deflate-block.js';

const MiB = 1 << 20;

/** Whether `drain()` let the event loop turn (a setImmediate queued before it ran first). */
async function drainYielded(background: BackgroundDeflate): Promise<boolean> {
  let turned = false;
  setImmediate(() => (turned = true));
  await background.drain();
  return turned;
}

function text(bytes: number, seed: number): Buffer {
  let s = '';
  for (let i = 0; s.length < bytes; i++) s += `line ${seed}:${i} of some text that compresses\n`;
  return Buffer.from(s.slice(0, bytes));
}

describe('BackgroundDeflate.drain()', () => {
  it('resolves at once while less than half the bound is in flight, and yields to deliver once more is', async () => {
    const bound = 8 * MiB;
    const background = new BackgroundDeflate({ level: 6, maxInFlightBytes: bound, threadAfterBytes: Number.MAX_SAFE_INTEGER });
    const done: Buffer[] = [];
    const raw = text(MiB, 1);
    const submit = (): void => {
      expect(background.trySubmit(raw, undefined, (error, out) => (error ? undefined : done.push(out!)))).toBe(true);
    };
    submit();
    expect(background.inFlightBytes).toBe(MiB + JOB_OVERHEAD_BYTES);
    expect(background.inFlightBytes).toBeLessThan(bound * DRAIN_YIELD_FRACTION);
    // Below half the bound: no event-loop turn, so nothing can have been delivered.
    expect(await drainYielded(background)).toBe(false);
    expect(done).toHaveLength(0);
    for (let i = 0; i < 3; i++) submit();
    expect(background.inFlightBytes).toBeGreaterThanOrEqual(bound * DRAIN_YIELD_FRACTION);
    // At half or more: one turn at least, and back within three quarters of the bound.
    expect(await drainYielded(background)).toBe(true);
    expect(background.inFlightBytes).toBeLessThanOrEqual(bound * 0.75);
    await background.settle();
    expect(done).toHaveLength(4);
    // Each block is sync-flushed, not final: the end marker closes it.
    for (const out of done) expect(inflateRawSync(Buffer.concat([out, DEFLATE_END])).equals(raw)).toBe(true);
    expect(background.inFlightBytes).toBe(0);
  });

  it('resolves at once with nothing in flight', async () => {
    const background = new BackgroundDeflate({ level: 6 });
    expect(await drainYielded(background)).toBe(false);
  });
});
