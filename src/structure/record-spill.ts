import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { BackgroundDeflate } from '../package/background-deflate.js';
import { PayloadSpill, type SpilledEntry } from '../package/payload-spill.js';

// Small: lines waiting here are live heap (one kind each), and the bytes are only written to the
// raw file here; blocks are cut by the payload spill whatever the flush size, so the flush size
// changes memory, never the package's bytes.
const FLUSH_AT = 256 * 1024;

/**
 * An append-only JSONL file that is the final payload file: lines are written once, through a
 * 256 KiB buffer, hashed and compressed (in the background) as they are written, so the exporter
 * never re-reads, re-hashes or re-compresses them. Synchronous on purpose: `addChunk()` and
 * friends are synchronous fluent calls.
 */
export class RecordSpill {
  /** Path of the JSONL file on disk. */
  readonly file: string;
  readonly #payload: PayloadSpill;
  /**
   * Lines are encoded straight into this buffer, reused after every flush (the payload spill
   * keeps no reference to what it is given). Joining the lines into one string and encoding that
   * cost two copies of every byte, a visible share of the `add*` calls (see BENCHMARKS.md).
   */
  readonly #buffer = Buffer.allocUnsafe(FLUSH_AT);
  #used = 0;
  #lines = 0;
  #maxLineBytes = 0;

  /** `background` compresses the file's blocks while records are still being added. */
  constructor(file: string, background?: BackgroundDeflate) {
    this.file = file;
    this.#payload = new PayloadSpill({ rawFile: file, deflatedFile: `${file}.deflate`, background });
  }

  /** Number of lines appended. */
  get lines(): number {
    return this.#lines;
  }

  /** UTF-8 size of the longest line so far (for the consumers' line-size limit). */
  get maxLineBytes(): number {
    return this.#maxLineBytes;
  }

  /** Appends one JSONL line (without its newline). */
  append(line: string): void {
    // A UTF-16 unit is at most 3 UTF-8 bytes: a line that surely fits is encoded without measuring.
    const most = line.length * 3 + 1;
    if (most > FLUSH_AT - this.#used) {
      this.flush();
      if (most > FLUSH_AT) {
        // Longer than the buffer could ever hold: written on its own.
        const bytes = Buffer.from(`${line}\n`, 'utf8');
        this.#maxLineBytes = Math.max(this.#maxLineBytes, bytes.length - 1);
        this.#lines += 1;
        this.#payload.write(bytes);
        return;
      }
    }
    const n = this.#buffer.write(line, this.#used, 'utf8');
    this.#buffer[this.#used + n] = 0x0a;
    this.#used += n + 1;
    if (n > this.#maxLineBytes) this.#maxLineBytes = n;
    this.#lines += 1;
  }

  /** Writes buffered lines to disk (and into the running digests). */
  flush(): void {
    if (this.#used === 0) return;
    const used = this.#used;
    this.#used = 0;
    this.#payload.write(this.#buffer.subarray(0, used));
  }

  /**
   * Flushes and returns the file as it stands (size, SHA-256, blocks) without closing: the spill
   * can keep growing if the export is refused and the caller adds more records.
   */
  snapshot(): SpilledEntry {
    this.flush();
    return this.#payload.snapshot();
  }

  /** Closes the descriptors without finishing (for cleanup after a failure). */
  close(): void {
    this.#payload.close();
  }
}

/**
 * The records of a spilled JSONL file, read back in order with their 1-based line numbers (for the
 * embedding hook and consumer checks, which run after collection). `size` bounds the read to a
 * snapshot's bytes.
 */
export async function* readSpilledRecords(file: string, size?: number): AsyncGenerator<{ readonly line: number; readonly record: Record<string, unknown> }> {
  if (size === 0) return;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8', ...(size !== undefined ? { end: size - 1 } : {}) }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text !== '') yield { line, record: JSON.parse(text) as Record<string, unknown> };
  }
}
