/**
 * The thread-independent half of checking a structure JSONL file: split the
 * bytes into lines, parse each line as strict JSON and check it against its record schema —
 * everything that needs no other file. What is left for the main thread (ids, references,
 * coverage) needs only a few numbers per record, so the result is compact and transferable:
 * one entry per record or issue, in file order, with typed arrays for the record's id words
 * (the two 4-word slots of `recordProblems`), its line and one number (a chunk's ordinal, an
 * event's level). `StructureChecker.replay` turns it into exactly the issues the in-thread check
 * reports, in the same order.
 *
 * Used by the worker (record-scan-worker.ts); it imports nothing that needs the main thread.
 */
import { issue, OctxError, type OctxIssue } from '../model/errors.js';
import { RECORD_KINDS, type RecordKind, type RecordKindSpec } from '../model/record-kinds.js';
import { JsonlSplitter, parseJsonlRange, type JsonlLineCallback, type ParsedJsonlLine } from './jsonl.js';
import { recordProblems } from './record-rules.js';

/**
 * The issue of a structure JSONL line that did not parse (strict JSON, depth) or holds a number
 * too large to be finite (a weight's own code on an event-entity link); `undefined` for a line
 * whose record can be checked. One wording for the worker scan and the in-thread scan
 * (`validate-package.ts`), so their reports stay identical.
 */
export function jsonlLineIssue(p: ParsedJsonlLine, kind: RecordKind, path: string, line: number): OctxIssue | undefined {
  if (!p.ok) return issue({ code: p.code, path, line, ...(p.field === undefined ? {} : { field: p.field }), message: p.message });
  if (p.nonFinite === undefined) return undefined;
  // A known number field has its own code for a non-finite value (an event-entity link's weight).
  const spec: RecordKindSpec = RECORD_KINDS[kind];
  const own = Object.hasOwn(spec.fields, p.nonFinite) ? spec.fields[p.nonFinite]!.nonFiniteCode : undefined;
  return issue({
    code: own ?? 'OCTX_JSON_INVALID',
    path,
    line,
    field: p.nonFinite || undefined,
    message: `line ${line}: ${p.nonFinite || 'the value'} is a number too large to be finite`,
  });
}

/**
 * The one number per record that a rule across records needs, by kind: a chunk's ordinal (unique
 * per document), an event's level (the hierarchy); 0 when the field is absent.
 */
export const KEPT_NUMBER_FIELD: Readonly<Partial<Record<RecordKind, string>>> = Object.freeze({ chunk: 'ordinal', event: 'level' });

/** What a scan needs to know (plain data: it is sent to a worker). */
export interface RecordScanOptions {
  readonly kind: RecordKind;
  readonly path: string;
  readonly maxLineSize: number;
  readonly maxLines: number;
  readonly maxDepth: number;
}

/** Entry tags of a {@link RecordScan}. */
export const ENTRY_RECORD = 0;
/** An issue (parse or schema problem) of the line. */
export const ENTRY_ISSUE = 1;
/** A resource limit that stopped the parsing (the rest of the file is only hashed). */
export const ENTRY_LIMIT = 2;

/** The compact result of scanning one JSONL file. */
export interface RecordScan {
  /** Entries (records and issues). */
  readonly count: number;
  /** {@link ENTRY_RECORD}, {@link ENTRY_ISSUE} or {@link ENTRY_LIMIT} per entry. */
  readonly tags: Uint8Array;
  /** 1-based line of each entry (0 for a limit). */
  readonly lines: Int32Array;
  /** Eight id words per entry (records only): slot 0 at 0, slot 1 at 4. */
  readonly words: Uint32Array;
  /** Per record: its {@link KEPT_NUMBER_FIELD} (a chunk's ordinal, an event's level; 0 when absent); 0 otherwise. */
  readonly nums: Float64Array;
  /** The issue of each issue or limit entry, in entry order. */
  readonly issues: OctxIssue[];
}

/** Scans one file pushed chunk by chunk; {@link end} returns the result. */
export class RecordScanner {
  private tags = new Uint8Array(1024);
  private lines = new Int32Array(1024);
  private words = new Uint32Array(8 * 1024);
  private nums = new Float64Array(1024);
  private readonly issues: OctxIssue[] = [];
  private count = 0;
  private parsing = true;
  private readonly splitter: JsonlSplitter;
  private readonly w = new Uint32Array(8);
  private readonly onLine: JsonlLineCallback;

  constructor(private readonly o: RecordScanOptions) {
    this.splitter = new JsonlSplitter({ maxLineSize: o.maxLineSize, maxLines: o.maxLines, path: o.path });
    this.onLine = (buf, start, end, line, ascii) => this.line(buf, start, end, line, ascii);
  }

  private entry(tag: number, line: number): number {
    if (this.count === this.tags.length) {
      const n = this.count * 2;
      const grow = <T extends Uint8Array | Int32Array | Uint32Array | Float64Array>(a: T, make: (k: number) => T, per = 1): T => {
        const b = make(n * per);
        b.set(a);
        return b;
      };
      this.tags = grow(this.tags, (k) => new Uint8Array(k));
      this.lines = grow(this.lines, (k) => new Int32Array(k));
      this.words = grow(this.words, (k) => new Uint32Array(k), 8);
      this.nums = grow(this.nums, (k) => new Float64Array(k));
    }
    const e = this.count++;
    this.tags[e] = tag;
    this.lines[e] = line;
    return e;
  }

  private problem(i: OctxIssue, line: number, tag = ENTRY_ISSUE): void {
    this.entry(tag, line);
    this.issues.push(i);
  }

  private line(buf: Buffer, start: number, end: number, line: number, ascii: boolean): void {
    const { kind, path } = this.o;
    const p = parseJsonlRange(buf, start, end, line, ascii, this.o.maxDepth);
    const unparsed = jsonlLineIssue(p, kind, path, line);
    if (unparsed !== undefined || !p.ok) {
      if (unparsed !== undefined) this.problem(unparsed, line);
      return;
    }
    const r = p.record;
    const problems = recordProblems(kind, r, this.w);
    if (problems) {
      const rid = typeof r.id === 'string' ? r.id : undefined;
      for (const q of problems) {
        this.problem(
          issue({
            code: q.code,
            path,
            message: `${kind} record: ${q.message}`,
            line,
            ...(rid === undefined ? {} : { recordId: rid }),
            ...(q.field === undefined ? {} : { field: q.field }),
          }),
          line,
        );
      }
      return;
    }
    const e = this.entry(ENTRY_RECORD, line);
    this.words.set(this.w, e * 8);
    const field = KEPT_NUMBER_FIELD[kind];
    const value = field === undefined ? 0 : r[field];
    this.nums[e] = typeof value === 'number' ? value : 0;
  }

  private feed(step: () => void): void {
    if (!this.parsing) return;
    try {
      step();
    } catch (e) {
      if (!(e instanceof OctxError) || e.code !== 'OCTX_RESOURCE_LIMIT') throw e;
      // Stop parsing; the caller keeps hashing (the digest check still needs every byte).
      this.problem(e.issues[0]!, 0, ENTRY_LIMIT);
      this.parsing = false;
    }
  }

  /** Checks the lines completed by `chunk`. */
  push(chunk: Buffer): void {
    this.feed(() => this.splitter.push(chunk, this.onLine));
  }

  /** Checks the last line; returns the result (the arrays are trimmed copies, transferable). */
  end(): RecordScan {
    this.feed(() => this.splitter.end(this.onLine));
    const n = this.count;
    return {
      count: n,
      tags: this.tags.slice(0, n),
      lines: this.lines.slice(0, n),
      words: this.words.slice(0, n * 8),
      nums: this.nums.slice(0, n),
      issues: this.issues,
    };
  }
}
