import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BLOCK_BYTES, DEFLATE_END, deflateBlock, outputChunkBytes } from '../../src/package/deflate-block.js';
import { DeflateThread } from '../../src/package/deflate-thread.js';
import { BackgroundDeflate } from '../../src/package/background-deflate.js';
import { PayloadSpill } from '../../src/package/payload-spill.js';
import { deflateBlockSync } from '../helpers/deflate.js';
import { tempDir } from '../helpers/temp.js';
import { mixedText, segmentBytes } from '../helpers/spill.js';

const REPO = join(import.meta.dirname, '..', '..');

/** Mixed text that compresses like real chunks, with a fixed seed. */

const cases: { name: string; raw: Buffer; dictionary: Buffer | undefined; level: number }[] = [
  { name: 'a text block, no dictionary, level 6', raw: mixedText(BLOCK_BYTES, 1), dictionary: undefined, level: 6 },
  { name: 'a text block primed with 32 KiB, level 6', raw: mixedText(BLOCK_BYTES, 2), dictionary: mixedText(32 * 1024, 3), level: 6 },
  { name: 'random bytes (incompressible), level 9', raw: randomBytes(300_000), dictionary: undefined, level: 9 },
  { name: 'a small document, level 1', raw: mixedText(700, 4), dictionary: undefined, level: 1 },
  // A slice of a larger buffer: only its own bytes may be sent, not the whole backing store.
  { name: 'a view into a larger buffer', raw: mixedText(100_000, 5).subarray(10_000, 60_000), dictionary: mixedText(40_000, 6).subarray(8_000, 40_000), level: 6 },
];

describe('DeflateThread', () => {
  it.each(cases)('writes the same bytes as zlib on the main thread: $name', async ({ raw, dictionary, level }) => {
    const thread = new DeflateThread();
    try {
      const out = await thread.deflate(raw, dictionary, level);
      expect(thread.running).toBe(true);
      expect(out.equals(deflateBlockSync(raw, dictionary, level))).toBe(true);
      // The pool path (the fallback) writes them too.
      expect((await deflateBlock(raw, dictionary, level)).equals(out)).toBe(true);
      const stream = Buffer.concat([out, DEFLATE_END]);
      expect(inflateRawSync(stream, dictionary ? { dictionary } : {}).equals(raw)).toBe(true);
    } finally {
      await thread.stop();
    }
  });

  it('answers many jobs in flight, each with its own block, and leaves the caller its buffers', async () => {
    const thread = new DeflateThread();
    try {
      const blocks = Array.from({ length: 40 }, (_, i) => mixedText(5_000 + i * 997, 10 + i));
      const outs = await Promise.all(blocks.map((b) => thread.deflate(b, undefined, 6)));
      outs.forEach((out, i) => expect(out.equals(deflateBlockSync(blocks[i]!, undefined, 6))).toBe(true));
      // Nothing was transferred away from the caller.
      expect(blocks.every((b) => b.length > 0 && b.buffer.byteLength > 0)).toBe(true);
      expect(thread.pending).toBe(0);
    } finally {
      await thread.stop();
    }
  });

  it('uses the libuv pool when no worker can start: same bytes', async () => {
    const thread = new DeflateThread(() => {
      throw new Error('worker threads are not available here');
    });
    const raw = mixedText(200_000, 7);
    expect((await thread.deflate(raw, undefined, 6)).equals(deflateBlockSync(raw, undefined, 6))).toBe(true);
    expect(thread.running).toBe(false);
  });

  it('fails the jobs a dying worker held, then goes on with the pool', async () => {
    // A worker that exits on its first message, with a job in hand.
    const thread = new DeflateThread((_source) => new Worker("require('node:worker_threads').parentPort.on('message', () => process.exit(7));", { eval: true }));
    await expect(thread.deflate(mixedText(10_000, 8), undefined, 6)).rejects.toThrow(/compressing thread stopped/);
    const raw = mixedText(10_000, 9);
    expect((await thread.deflate(raw, undefined, 6)).equals(deflateBlockSync(raw, undefined, 6))).toBe(true);
    expect(thread.running).toBe(false);
  });

  it('stops an idle worker after its idle time, and starts a new one for the next job', async () => {
    const thread = new DeflateThread(undefined, 50);
    await thread.deflate(mixedText(1_000, 11), undefined, 6);
    expect(thread.running).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(thread.running).toBe(false);
    const raw = mixedText(2_000, 12);
    expect((await thread.deflate(raw, undefined, 6)).equals(deflateBlockSync(raw, undefined, 6))).toBe(true);
    expect(thread.running).toBe(true);
    await thread.stop();
  });

  it('never keeps a process alive: a script that compressed and returned exits at once', () => {
    const script = [
      "import { deflateOnThread } from './src/package/deflate-thread.ts';",
      "const out = await deflateOnThread(Buffer.from('hello '.repeat(1000)), undefined, 6);",
      'console.log(out.length > 0);',
    ].join('\n');
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8', timeout: 20_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('true');
    expect(r.status).toBe(0);
    // The idle stop is 2 s away; an unreferenced worker lets the process end well before that.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('deflate output chunk', () => {
  it('holds a whole block, even an incompressible one, so a block is one pool job', () => {
    for (const n of [0, 1, 700, 16_384, BLOCK_BYTES]) {
      const out = deflateBlockSync(randomBytes(n), undefined, 6);
      expect(out.length).toBeLessThanOrEqual(outputChunkBytes(n));
    }
  });
});

describe('PayloadSpill with a background that fails', () => {
  it('compresses the failed blocks at export from the raw file: the entry is complete and inflates to its bytes', async () => {
    const dir = tempDir();
    // A background whose every job fails (as when the compressing thread dies).
    const failing = {
      level: 6,
      inFlightBytes: 0,
      hasRoomFor: () => true,
      trySubmit: (_raw: Buffer, _dictionary: Buffer | undefined, done: (e: Error | undefined, c?: Buffer) => void) => {
        setImmediate(() => done(new Error('the compressing thread stopped')));
        return true;
      },
      drain: async () => undefined,
      settle: async () => new Promise<void>((r) => setImmediate(r)),
    } as unknown as BackgroundDeflate;
    const spill = new PayloadSpill({ rawFile: join(dir, 'raw'), deflatedFile: join(dir, 'deflated'), background: failing });
    const raw = mixedText(2 * BLOCK_BYTES + 999, 13);
    spill.write(raw);
    const entry = spill.endEntry();
    await new Promise((r) => setImmediate(r));
    await spill.compress([entry], 6);
    const stream = segmentBytes(spill.segments(entry, 'deflate', 6));
    spill.close();
    expect(inflateRawSync(stream).equals(raw)).toBe(true);
  });
});

describe('BackgroundDeflate: pool first, then the compressing thread', () => {
  it('compresses the same bytes either way, and moves to the thread only past its threshold', async () => {
    const blocks = Array.from({ length: 6 }, (_, i) => mixedText(100_000, 40 + i));
    const run = async (threadAfterBytes: number): Promise<Buffer[]> => {
      const background = new BackgroundDeflate({ level: 6, threadAfterBytes });
      const outs: Buffer[] = [];
      blocks.forEach((b, i) => expect(background.trySubmit(b, undefined, (e, c) => (outs[i] = e ? Buffer.alloc(0) : c!))).toBe(true));
      await background.settle();
      return outs;
    };
    const pool = await run(Number.MAX_SAFE_INTEGER);
    const thread = await run(0);
    const mixed = await run(250_000);
    blocks.forEach((b, i) => {
      const expected = deflateBlockSync(b, undefined, 6);
      expect(pool[i]!.equals(expected)).toBe(true);
      expect(thread[i]!.equals(expected)).toBe(true);
      expect(mixed[i]!.equals(expected)).toBe(true);
    });
  });
});
