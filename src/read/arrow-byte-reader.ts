/**
 * The bytes of one Arrow file, pulled from a stream of chunks in the sizes the Arrow reader asks
 * for (`read/arrow-file.ts`), and the tail of a file read again for a footer schema.
 */
import type { OctxCode } from '../model/codes.js';
import { OctxError } from '../model/errors.js';

/** Reused body buffers: the batch being checked, apache-arrow's read-ahead, and one spare. */
const POOL_SLOTS = 3;

function problem(code: OctxCode, path: string, message: string): OctxError {
  return OctxError.of({ code, path, message });
}

/**
 * The last `maxBytes` bytes of a byte stream, read to its end (memory: `maxBytes` plus one chunk).
 * For `ArrowReadOptions.tail` (`read/arrow-file.ts`).
 */
export async function tailOf(stream: AsyncIterable<Buffer>, maxBytes: number): Promise<Buffer> {
  const kept: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    kept.push(chunk);
    bytes += chunk.length;
    while (kept.length > 1 && bytes - kept[0]!.length >= maxBytes) bytes -= kept.shift()!.length;
  }
  const all = Buffer.concat(kept, bytes);
  return all.length > maxBytes ? all.subarray(all.length - maxBytes) : all;
}

/**
 * Pull-based byte reader over an async iterator of chunks. `read(n)` returns exactly `n` bytes:
 * a view when they lie in one chunk, else one copy. Large reads copy each chunk as it arrives
 * and drop it at once, instead of collecting a backlog of chunks first: chunks held across many
 * awaits get promoted to V8's old generation, and their external memory then forced a full
 * mark-compact every ~100 ms while big Arrow bodies were assembled.
 */
export class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  /** Bytes consumed so far. */
  position = 0;
  private readonly pool: Buffer[] = [];
  private readonly generations: number[] = [];
  private nextSlot = 0;

  constructor(
    private readonly source: AsyncIterator<Buffer>,
    private readonly path: string,
  ) {}

  private async pull(): Promise<Buffer | null> {
    for (;;) {
      const r = await this.source.next();
      if (r.done) {
        this.ended = true;
        return null;
      }
      if (r.value.length > 0) return r.value;
    }
  }

  private truncated(): OctxError {
    return problem('OCTX_VECTOR_ARROW_INVALID', this.path, 'the Arrow file is truncated');
  }

  /** Makes sure at least one chunk is buffered when possible (for the view fast path). */
  private async prime(): Promise<void> {
    if (this.chunks.length === 0 && !this.ended) {
      const c = await this.pull();
      if (c) {
        this.chunks.push(c);
        this.buffered += c.length;
      }
    }
  }

  /** The next `n` bytes as a view of the first buffered chunk, or undefined when they span chunks. */
  private view(n: number): Buffer | undefined {
    const first = this.chunks[0];
    if (!first || first.length < n) return undefined;
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.buffered -= n;
    this.position += n;
    return first.subarray(0, n);
  }

  /** Copies the next `n` bytes into `out`, pulling (and dropping) chunks as needed. */
  private async fillInto(out: Buffer, n: number): Promise<void> {
    let at = 0;
    while (at < n && this.chunks.length > 0) {
      const c = this.chunks[0]!;
      const take = Math.min(c.length, n - at);
      c.copy(out, at, 0, take);
      at += take;
      this.buffered -= take;
      if (take === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(take);
    }
    while (at < n) {
      const c = await this.pull();
      if (!c) throw this.truncated();
      const take = Math.min(c.length, n - at);
      c.copy(out, at, 0, take);
      at += take;
      if (take < c.length) {
        this.chunks.push(c.subarray(take));
        this.buffered += c.length - take;
      }
    }
    this.position += n;
  }

  /** Exactly `n` bytes, or `OCTX_VECTOR_ARROW_INVALID` when the file ends first. */
  async read(n: number): Promise<Buffer> {
    if (n === 0) return Buffer.alloc(0);
    await this.prime();
    const v = this.view(n);
    if (v) return v;
    // allocUnsafeSlow: an 8-byte-aligned buffer of its own, so Arrow never copies it again.
    const out = n >= 4096 ? Buffer.allocUnsafeSlow(n) : Buffer.allocUnsafe(n);
    await this.fillInto(out, n);
    return out;
  }

  /**
   * {@link read} into the next buffer of a ring of {@link POOL_SLOTS} reused buffers (or a view
   * when the bytes lie in one chunk). The ticket tells {@link intact} whether the bytes were
   * overwritten since.
   */
  async readPooled(n: number): Promise<{ bytes: Buffer; slot: number; generation: number }> {
    await this.prime();
    const v = this.view(n);
    if (v) return { bytes: v, slot: -1, generation: 0 };
    const slot = this.nextSlot;
    this.nextSlot = (slot + 1) % POOL_SLOTS;
    let buf = this.pool[slot];
    if (!buf || buf.length < n) {
      buf = Buffer.allocUnsafeSlow(n);
      this.pool[slot] = buf;
    }
    const generation = (this.generations[slot] ?? 0) + 1;
    this.generations[slot] = generation;
    const out = buf.subarray(0, n);
    await this.fillInto(out, n);
    return { bytes: out, slot, generation };
  }

  /** True when the bytes of a {@link readPooled} ticket have not been overwritten. */
  intact(slot: number, generation: number): boolean {
    return slot < 0 || this.generations[slot] === generation;
  }

  /** Everything that is left, refused with `OCTX_RESOURCE_LIMIT` above `max` bytes. */
  async readRest(max: number): Promise<Buffer> {
    while (!this.ended && this.buffered <= max) {
      const c = await this.pull();
      if (c) {
        this.chunks.push(c);
        this.buffered += c.length;
      }
    }
    if (this.buffered > max) throw problem('OCTX_RESOURCE_LIMIT', this.path, `more than ${max} bytes follow the last Arrow message`);
    const out = Buffer.concat(this.chunks, this.buffered);
    this.position += this.buffered;
    this.chunks = [];
    this.buffered = 0;
    return out;
  }

  /** Consumes the rest of the source without keeping it (so a hash over the stream completes). */
  async drain(): Promise<void> {
    this.chunks = [];
    this.buffered = 0;
    while (!this.ended) await this.pull();
  }
}
