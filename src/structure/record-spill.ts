import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { BackgroundDeflate } from '../package/background-deflate.js';
import { PayloadSpill, type SpilledEntry } from '../package/payload-spill.js';

// Small: lines waiting here are live heap (one kind each), and the bytes are only written to the
// raw file here; blocks are cut by the payload spill whatever the flush size (issue 23).
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
  #pending: string[] = [];
  #pendingLength = 0;
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
    // A UTF-16 unit is at most 3 UTF-8 bytes: only lines that could beat the maximum are measured.
    if (line.length * 3 > this.#maxLineBytes) this.#maxLineBytes = Math.max(this.#maxLineBytes, Buffer.byteLength(line, 'utf8'));
    this.#pending.push(line, '\n');
    this.#pendingLength += line.length + 1;
    this.#lines += 1;
    if (this.#pendingLength >= FLUSH_AT) this.flush();
  }

  /** Writes buffered lines to disk (and into the running digests). */
  flush(): void {
    if (this.#pending.length === 0) return;
    const buf = Buffer.from(this.#pending.join(''), 'utf8');
    this.#pending = [];
    this.#pendingLength = 0;
    this.#payload.write(buf);
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
