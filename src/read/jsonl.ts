/**
 * Streaming JSONL line splitting (OCTX-REFERENCE §4): LF-terminated lines, a `\r` before the LF
 * is dropped, a final newline is optional, an empty or whitespace-only line is reported (it is
 * invalid in OCTX), and no line may exceed a byte limit. Memory stays bounded by the limit: a
 * line is refused as soon as its partial length passes it, before it is ever assembled.
 */
import { isAscii } from 'node:buffer';
import type { OctxCode } from '../model/codes.js';
import { OctxError } from '../model/errors.js';
import { parseStrictJson } from './strict-json.js';

/** One line of a JSONL file. */
export interface JsonlLine {
  /** 1-based line number. */
  readonly line: number;
  /** The line bytes without `\n` and without a trailing `\r`. A view: copy it to keep it. */
  readonly bytes: Buffer;
  /** True when the line is empty or only holds spaces, tabs or carriage returns. */
  readonly empty: boolean;
}

/** Options of {@link JsonlSplitter} and {@link readJsonlLines}. */
export interface JsonlSplitOptions {
  /** Largest line in bytes (without the terminator); default 16 MiB. */
  readonly maxLineSize?: number;
  /** Most lines allowed; default 1 000 000. */
  readonly maxLines?: number;
  /** Package path used in errors. */
  readonly path?: string;
}

/**
 * Receives one line as a byte range of `buf` (without `\n` and a trailing `\r`). `ascii` is
 * true when the bytes are known to be ASCII, which lets callers skip UTF-8 decoding.
 */
export type JsonlLineCallback = (buf: Buffer, start: number, end: number, line: number, ascii: boolean) => void;

/** True when `buf[start…end)` is empty or only holds spaces, tabs or carriage returns. */
export function isBlankRange(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * Synchronous core of the splitter: feed chunks with {@link push}, then call {@link end}. Lines
 * are handed to the callback synchronously as byte ranges of the chunk — no copy, no object per
 * line — which is what lets the validator parse each line without allocating or awaiting. A
 * line that spans chunks is assembled once.
 */
export class JsonlSplitter {
  private readonly maxLineSize: number;
  private readonly maxLines: number;
  private readonly path: string | undefined;
  private carry: Buffer[] = [];
  private carryLength = 0;
  private lineNo = 0;

  constructor(options: JsonlSplitOptions = {}) {
    this.maxLineSize = options.maxLineSize ?? 16 * 1024 * 1024;
    this.maxLines = options.maxLines ?? 1_000_000;
    this.path = options.path;
  }

  /** Lines seen so far. */
  get lines(): number {
    return this.lineNo;
  }

  /**
   * Splits one chunk.
   * @throws OctxError `OCTX_RESOURCE_LIMIT` when a line or the line count exceeds its limit.
   */
  push(chunk: Buffer, onLine: JsonlLineCallback): void {
    // One vectorised check per chunk instead of one UTF-8 decode per line.
    const ascii = isAscii(chunk);
    let pos = 0;
    for (;;) {
      const nl = chunk.indexOf(10, pos);
      if (nl < 0) {
        if (pos < chunk.length) {
          this.carryLength += chunk.length - pos;
          this.checkLength(this.carryLength, this.lineNo + 1);
          this.carry.push(pos === 0 ? chunk : chunk.subarray(pos));
        }
        return;
      }
      if (this.carryLength > 0) {
        this.carry.push(chunk.subarray(pos, nl));
        const joined = Buffer.concat(this.carry, this.carryLength + (nl - pos));
        this.carry = [];
        this.carryLength = 0;
        this.emit(joined, 0, joined.length, isAscii(joined), onLine);
      } else this.emit(chunk, pos, nl, ascii, onLine);
      pos = nl + 1;
    }
  }

  /** Emits the last line when the data did not end with a newline. */
  end(onLine: JsonlLineCallback): void {
    if (this.carryLength === 0) return;
    const bytes = this.carry.length === 1 ? this.carry[0]! : Buffer.concat(this.carry, this.carryLength);
    this.carry = [];
    this.carryLength = 0;
    this.emit(bytes, 0, bytes.length, isAscii(bytes), onLine);
  }

  private emit(buf: Buffer, start: number, end: number, ascii: boolean, onLine: JsonlLineCallback): void {
    const line = ++this.lineNo;
    if (line > this.maxLines) {
      throw OctxError.of({
        code: 'OCTX_RESOURCE_LIMIT',
        ...(this.path === undefined ? {} : { path: this.path }),
        line,
        message: `more than ${this.maxLines} JSONL lines (limit maxJsonlRecords)`,
      });
    }
    if (end > start && buf[end - 1] === 0x0d) end -= 1;
    this.checkLength(end - start, line);
    onLine(buf, start, end, line, ascii);
  }

  private checkLength(length: number, line: number): void {
    if (length > this.maxLineSize) {
      throw OctxError.of({
        code: 'OCTX_RESOURCE_LIMIT',
        ...(this.path === undefined ? {} : { path: this.path }),
        line,
        message: `JSONL line ${line} is longer than ${this.maxLineSize} bytes (limit maxJsonlLineSize)`,
      });
    }
  }
}

/**
 * Splits a byte stream into JSONL lines lazily: lines are yielded as soon as their chunk
 * arrives, and at most one line plus one chunk is held in memory.
 * @throws OctxError `OCTX_RESOURCE_LIMIT` (with `path` and `line`) for an oversized line or too
 *   many lines; stream errors propagate unchanged.
 */
export async function* readJsonlLines(stream: AsyncIterable<Uint8Array | string>, options: JsonlSplitOptions = {}): AsyncGenerator<JsonlLine, void, undefined> {
  const splitter = new JsonlSplitter(options);
  const pending: JsonlLine[] = [];
  // Each line is copied so a caller may keep it after the next chunk arrives.
  const collect: JsonlLineCallback = (buf, start, end, line) => {
    pending.push({ line, bytes: Buffer.from(buf.subarray(start, end)), empty: isBlankRange(buf, start, end) });
  };
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    splitter.push(buf, collect);
    yield* drain(pending);
  }
  splitter.end(collect);
  yield* drain(pending);
}

function* drain(pending: JsonlLine[]): Generator<JsonlLine, void, undefined> {
  // Index instead of shift(): a 1 MiB chunk can hold thousands of short lines.
  for (let i = 0; i < pending.length; i++) yield pending[i]!;
  pending.length = 0;
}

/** Result of {@link parseJsonlLine}. */
export type ParsedJsonlLine =
  | {
      readonly ok: true;
      /** The record (a JSON object). */
      readonly record: Record<string, unknown>;
      /** Path of the first number that overflowed to ±Infinity (e.g. `1e999`), if any. */
      readonly nonFinite?: string;
    }
  | { readonly ok: false; readonly code: OctxCode; readonly message: string; readonly field?: string };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses one JSONL line strictly (§4): not empty (`OCTX_JSONL_EMPTY_LINE`), UTF-8 without BOM and
 * strict JSON without lone surrogate escapes (`OCTX_JSON_INVALID`, with the field), no repeated key (`OCTX_JSON_DUPLICATE_KEY`), an object
 * (`OCTX_JSONL_RECORD_TYPE`).
 */
export function parseJsonlLine(line: JsonlLine, maxDepth = 100): ParsedJsonlLine {
  return parseJsonlRange(line.bytes, 0, line.bytes.length, line.line, isAscii(line.bytes), maxDepth);
}

/** {@link parseJsonlLine} for the byte range `buf[start…end)` (what {@link JsonlSplitter} hands out). */
export function parseJsonlRange(buf: Buffer, start: number, end: number, line: number, ascii: boolean, maxDepth = 100): ParsedJsonlLine {
  if (isBlankRange(buf, start, end)) return { ok: false, code: 'OCTX_JSONL_EMPTY_LINE', message: `line ${line} is empty; JSONL allows no blank lines` };
  let text: string;
  if (ascii) text = buf.toString('latin1', start, end);
  else {
    try {
      // ignoreBOM keeps a BOM in the text, so JSON.parse rejects it as the spec requires.
      text = strictUtf8.decode(buf.subarray(start, end));
    } catch {
      return { ok: false, code: 'OCTX_JSON_INVALID', message: `line ${line} is not valid UTF-8` };
    }
  }
  const parsed = parseStrictJson(text, { maxDepth });
  if (!parsed.ok) {
    if (parsed.kind === 'duplicate-key') return { ok: false, code: 'OCTX_JSON_DUPLICATE_KEY', message: `line ${line}: ${parsed.message}` };
    if (parsed.kind === 'surrogate') return { ok: false, code: 'OCTX_JSON_INVALID', message: `line ${line}: ${parsed.message}`, ...(parsed.at ? { field: parsed.at } : {}) };
    return { ok: false, code: 'OCTX_JSON_INVALID', message: `line ${line} is not strict JSON: ${parsed.message}` };
  }
  const v = parsed.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    return { ok: false, code: 'OCTX_JSONL_RECORD_TYPE', message: `line ${line} is ${Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`}, not a JSON object` };
  }
  return parsed.nonFinite === undefined ? { ok: true, record: v as Record<string, unknown> } : { ok: true, record: v as Record<string, unknown>, nonFinite: parsed.nonFinite };
}
