/**
 * Reading one knowledge document from its raw bytes (OCTX-REFERENCE §4, §8): strict UTF-8, one
 * leading BOM stripped, then the Concept rules (`readConceptDocument`) or the reserved
 * `index.md`/`log.md` rules (`reservedDocumentProblems`).
 *
 * Decoding UTF-8 into a string is the slow part (~110 MiB/s on CJK text, against 2.8 GiB/s to
 * only check validity), and the Concept rules read nothing after the frontmatter. So validity
 * is checked on the whole file with `buffer.isUtf8`, only the frontmatter block is decoded for a
 * Concept Document, and the full text is decoded on first access of `text`. Reserved files are
 * decoded whole: their rules look at every line of the body.
 *
 * Memory: the frontmatter block is located on the bytes, and a block above `maxFrontmatterBytes`
 * is refused (`OCTX_FRONTMATTER_TOO_LARGE`) without being decoded or handed to YAML, whose parser
 * needs tens of times its input. {@link ConceptDocumentScanner} reads a Concept Document from a
 * stream keeping only that block, so the validator never holds a concept's body.
 */
import { isUtf8 } from 'node:buffer';
import { readConceptDocument } from '../knowledge/concept.js';
import { reservedDocumentProblems } from '../knowledge/reserved.js';
import { issue, type OctxIssue } from '../model/errors.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../model/limits.js';
import { isConceptPath } from '../model/paths.js';

/** A knowledge document of a package. */
export interface PackageDocument {
  /** `knowledge/…` path. */
  readonly path: string;
  /** `concept`, or `reserved` for `index.md`/`log.md`. */
  readonly kind: 'concept' | 'reserved';
  /**
   * Text after strict UTF-8 decoding, without a leading BOM (empty when undecodable). For a
   * Concept Document it is decoded on first access (and then kept).
   */
  readonly text: string;
  /** The raw file bytes. */
  readonly bytes: Buffer;
  /** `octx.document_id` of a Concept Document, when valid. */
  readonly documentId?: string;
  /** Parsed frontmatter of a Concept Document, when it parsed. */
  readonly frontmatter?: Record<string, unknown>;
}

/** A document together with the problems found in it. */
export interface DocumentReading extends PackageDocument {
  /** `OCTX_DOCUMENT_*` or `OCTX_OKF_RESERVED_INVALID` issues; empty when the document is valid. */
  readonly issues: readonly OctxIssue[];
}

const DASH = 0x2d;
const CR = 0x0d;
const LF = 0x0a;

/** Byte length of a leading UTF-8 BOM (EF BB BF): 3, or 0 without one. */
function bomLength(bytes: Buffer): number {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

/** True when `bytes[at, end)` is `---`, optionally followed by one CR. */
function isFenceLine(bytes: Buffer, at: number, end: number): boolean {
  const n = end - at;
  return (n === 3 || (n === 4 && bytes[at + 3] === CR)) && bytes[at] === DASH && bytes[at + 1] === DASH && bytes[at + 2] === DASH;
}

/**
 * Where the frontmatter block of a document lies, found on its bytes:
 * - `none`: the first line does not open one;
 * - `closed`: `end` is just after the closing fence line (the text `splitFrontmatter` needs);
 * - `unclosed`: opened, and no later line closes it;
 * - `too-large`: no fence closes it within `max` bytes of YAML, and more bytes follow.
 */
type FrontmatterSpan = { kind: 'none' } | { kind: 'closed'; end: number } | { kind: 'unclosed' } | { kind: 'too-large' };

/**
 * Finds the frontmatter block by the same rules as `splitFrontmatter` (`---` then LF or CRLF
 * opens; the first later line that is `---` once one trailing CR is removed closes). Byte and
 * character line splits agree because LF, CR and `-` never occur inside a multi-byte UTF-8
 * sequence. Never looks further than `max` bytes of YAML plus one fence line, so the scan of a
 * hostile document is bounded too.
 *
 * @param complete `bytes` is the whole file (otherwise a prefix of it: its end is not the file's)
 */
function frontmatterSpan(bytes: Buffer, start: number, max: number, complete: boolean): FrontmatterSpan {
  let pos: number;
  if (bytes[start] !== DASH || bytes[start + 1] !== DASH || bytes[start + 2] !== DASH) return { kind: 'none' };
  if (bytes[start + 3] === LF) pos = start + 4;
  else if (bytes[start + 3] === CR && bytes[start + 4] === LF) pos = start + 5;
  else return { kind: 'none' };
  // A closing fence starts at most `max` bytes after the block's start; its line ("---\r\n")
  // ends within 5 more bytes.
  const window = Math.min(bytes.length, pos + max + 5);
  const eof = complete && window === bytes.length;
  const view = bytes.subarray(0, window);
  while (pos <= window) {
    const lineEnd = view.indexOf(LF, pos);
    if (lineEnd < 0) {
      // The last line of the window: a fence only when the file really ends here.
      if (eof && isFenceLine(bytes, pos, window)) return { kind: 'closed', end: window };
      break;
    }
    if (isFenceLine(bytes, pos, lineEnd)) return { kind: 'closed', end: lineEnd + 1 };
    pos = lineEnd + 1;
  }
  return eof ? { kind: 'unclosed' } : { kind: 'too-large' };
}

function tooLargeIssue(path: string, max: number): OctxIssue {
  return issue({
    code: 'OCTX_FRONTMATTER_TOO_LARGE',
    path,
    field: 'frontmatter',
    message: `${path}: the frontmatter block is not closed within maxFrontmatterBytes (${max} bytes); it was not parsed`,
  });
}

/** The Concept rules on the bytes (from the BOM on) that `span` says are needed. */
function conceptIssues(path: string, bytes: Buffer, start: number, span: FrontmatterSpan, max: number, maxNodes: number): ReturnType<typeof readConceptDocument> {
  if (span.kind === 'too-large') return { issues: [tooLargeIssue(path, max)] };
  if (span.kind === 'unclosed') return { issues: [issue({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, message: 'frontmatter opened with --- is never closed' })] };
  // Without a frontmatter block, the first characters are all the rules look at.
  const end = span.kind === 'closed' ? span.end : Math.min(bytes.length, start + 8);
  return readConceptDocument(path, bytes.toString('utf8', start, end), { maxBytes: max, maxNodes });
}

/** Options of {@link readKnowledgeDocument}. */
export interface KnowledgeDocumentOptions {
  /** Largest frontmatter block in bytes (default `DEFAULT_ARCHIVE_LIMITS.maxFrontmatterBytes`). */
  readonly maxFrontmatterBytes?: number;
  /** Most YAML nodes of a frontmatter block (default `DEFAULT_ARCHIVE_LIMITS.maxFrontmatterNodes`). */
  readonly maxFrontmatterNodes?: number;
}

/** Reads and checks one `knowledge/**.md` file. */
export function readKnowledgeDocument(path: string, bytes: Buffer, options: KnowledgeDocumentOptions = {}): DocumentReading {
  const max = options.maxFrontmatterBytes ?? DEFAULT_ARCHIVE_LIMITS.maxFrontmatterBytes;
  const maxNodes = options.maxFrontmatterNodes ?? DEFAULT_ARCHIVE_LIMITS.maxFrontmatterNodes;
  const kind = isConceptPath(path) ? 'concept' : 'reserved';
  // The same acceptance as a fatal TextDecoder (WHATWG UTF-8: no overlongs, surrogates or
  // code points above U+10FFFF), without building a string.
  if (!isUtf8(bytes)) {
    const code = kind === 'concept' ? 'OCTX_DOCUMENT_FRONTMATTER' : 'OCTX_OKF_RESERVED_INVALID';
    return { path, kind, text: '', bytes, issues: [issue({ code, path, message: `${path} is not valid UTF-8` })] };
  }
  const start = bomLength(bytes);
  const span = frontmatterSpan(bytes, start, max, true);
  if (kind === 'reserved') {
    const text = bytes.toString('utf8', start);
    // Only the root index.md's frontmatter is parsed (elsewhere any frontmatter is refused as such).
    if (span.kind === 'too-large' && path === 'knowledge/index.md') return { path, kind, text, bytes, issues: [tooLargeIssue(path, max)] };
    const issues = reservedDocumentProblems(path, text, { maxBytes: max, maxNodes }).map((message) => issue({ code: 'OCTX_OKF_RESERVED_INVALID', path, message }));
    return { path, kind, text, bytes, issues };
  }
  // The Concept rules only read the frontmatter: the body is not decoded here.
  const reading = conceptIssues(path, bytes, start, span, max, maxNodes);
  let text: string | undefined;
  return {
    path,
    kind,
    get text(): string {
      return (text ??= bytes.toString('utf8', start));
    },
    bytes,
    issues: reading.issues,
    ...(reading.documentId === undefined ? {} : { documentId: reading.documentId }),
    ...(reading.frontmatter === undefined ? {} : { frontmatter: reading.frontmatter }),
  };
}

/** What {@link ConceptDocumentScanner.finish} learned: the problems and the document id. */
export interface ConceptScan {
  /** `OCTX_DOCUMENT_*` / `OCTX_FRONTMATTER_TOO_LARGE` issues; empty when the document is valid. */
  readonly issues: readonly OctxIssue[];
  /** `octx.document_id`, when valid. */
  readonly documentId?: string;
}

/** Bytes a UTF-8 sequence led by `b` has (1 for bytes that cannot lead one: they fail anyway). */
function sequenceLength(b: number): number {
  return b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
}

/**
 * Reads a Concept Document chunk by chunk, as the validator streams it: checks strict UTF-8 over
 * the whole file and keeps only the bytes the Concept rules need (the frontmatter block, at most
 * `maxFrontmatterBytes` of it), so memory does not grow with the body. Gives the same issues as
 * {@link readKnowledgeDocument}.
 */
export class ConceptDocumentScanner {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private total = 0;
  /** The bytes of an incomplete UTF-8 sequence at the end of the last chunk. */
  private carry: Buffer | undefined;
  private utf8 = true;
  private readonly max: number;
  private readonly maxNodes: number;
  private readonly headLimit: number;

  /**
   * @param path package path, for the issues
   * @param maxFrontmatterBytes largest frontmatter block (default `DEFAULT_ARCHIVE_LIMITS`)
   * @param maxFrontmatterNodes most YAML nodes of that block (default `DEFAULT_ARCHIVE_LIMITS`)
   */
  constructor(
    readonly path: string,
    maxFrontmatterBytes: number = DEFAULT_ARCHIVE_LIMITS.maxFrontmatterBytes,
    maxFrontmatterNodes: number = DEFAULT_ARCHIVE_LIMITS.maxFrontmatterNodes,
  ) {
    this.max = maxFrontmatterBytes;
    this.maxNodes = maxFrontmatterNodes;
    // BOM, opening fence line, the block, the closing fence line.
    this.headLimit = 3 + 5 + maxFrontmatterBytes + 5;
  }

  /** Takes the next bytes of the file. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < this.headLimit) {
      const part = chunk.subarray(0, this.headLimit - this.headBytes);
      this.head.push(Buffer.from(part));
      this.headBytes += part.length;
    }
    if (!this.utf8) return;
    let data = chunk;
    if (this.carry !== undefined) {
      // Complete the carried sequence with the first bytes of this chunk (not a copy of all of it).
      const need = sequenceLength(this.carry[0]!) - this.carry.length;
      const joined = Buffer.concat([this.carry, chunk.subarray(0, need)]);
      if (joined.length < need + this.carry.length) {
        this.carry = joined;
        return;
      }
      this.carry = undefined;
      if (!isUtf8(joined)) {
        this.utf8 = false;
        return;
      }
      data = chunk.subarray(need);
    }
    // Cut before a sequence the chunk ends inside of; it is checked with the next chunk.
    let cut = data.length;
    for (let back = 1; back <= 3 && back <= data.length; back++) {
      const b = data[data.length - back]!;
      if ((b & 0xc0) === 0x80) continue;
      if (b >= 0xc0 && sequenceLength(b) > back) cut = data.length - back;
      break;
    }
    if (!isUtf8(data.subarray(0, cut))) this.utf8 = false;
    this.carry = cut < data.length ? Buffer.from(data.subarray(cut)) : undefined;
  }

  /** The issues and id, once every byte was pushed. */
  finish(): ConceptScan {
    if (this.carry !== undefined) this.utf8 = false;
    if (!this.utf8) return { issues: [issue({ code: 'OCTX_DOCUMENT_FRONTMATTER', path: this.path, message: `${this.path} is not valid UTF-8` })] };
    const head = Buffer.concat(this.head, this.headBytes);
    const start = bomLength(head);
    const span = frontmatterSpan(head, start, this.max, this.total === this.headBytes);
    const reading = conceptIssues(this.path, head, start, span, this.max, this.maxNodes);
    return { issues: reading.issues, ...(reading.documentId === undefined ? {} : { documentId: reading.documentId }) };
  }
}
