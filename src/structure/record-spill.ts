import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';

const FLUSH_AT = 1 << 20;

/**
 * An append-only JSONL file that is the final payload file: lines are written once, through a
 * 1 MiB buffer, and hashed as they are written, so the exporter never re-reads or re-hashes them.
 * Synchronous on purpose: `addChunk()` and friends are synchronous fluent calls.
 */
export class RecordSpill {
  /** Path of the file on disk. */
  readonly file: string;
  #fd: number;
  #pending: string[] = [];
  #pendingLength = 0;
  #hash: Hash = createHash('sha256');
  #bytes = 0;
  #lines = 0;
  #maxLineBytes = 0;

  constructor(file: string) {
    this.file = file;
    this.#fd = openSync(file, 'w');
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

  /** Writes buffered lines to disk and into the running hash. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const buf = Buffer.from(this.#pending.join(''), 'utf8');
    this.#pending = [];
    this.#pendingLength = 0;
    this.#hash.update(buf);
    this.#bytes += buf.length;
    let off = 0;
    while (off < buf.length) off += writeSync(this.#fd, buf, off);
  }

  /**
   * Flushes and returns the file's size and SHA-256 (hex) so far, without closing: the spill can
   * keep growing if the export is refused and the caller adds more records.
   */
  snapshot(): { size: number; sha256: string } {
    this.flush();
    return { size: this.#bytes, sha256: this.#hash.copy().digest('hex') };
  }

  /** Closes the descriptor without finishing (for cleanup after a failure). */
  close(): void {
    if (this.#fd >= 0) {
      closeSync(this.#fd);
      this.#fd = -1;
    }
  }
}
