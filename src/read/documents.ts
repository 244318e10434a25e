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
 */
import { isUtf8 } from 'node:buffer';
import { readConceptDocument } from '../knowledge/concept.js';
import { reservedDocumentProblems } from '../knowledge/reserved.js';
import { issue, type OctxIssue } from '../model/errors.js';
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
 * Where the text `splitFrontmatter` needs ends: just after the line that closes a frontmatter
 * block opened on the first line, found by the same rules (`---` then LF or CRLF opens; the
 * first later line that is `---` once one trailing CR is removed closes). Byte and character
 * line splits agree because LF, CR and `-` never occur inside a multi-byte UTF-8 sequence.
 * Without an opening or a closing fence (both errors), the whole file is needed.
 */
function frontmatterEnd(bytes: Buffer, start: number): number {
  let pos: number;
  if (bytes[start] !== DASH || bytes[start + 1] !== DASH || bytes[start + 2] !== DASH) return bytes.length;
  if (bytes[start + 3] === LF) pos = start + 4;
  else if (bytes[start + 3] === CR && bytes[start + 4] === LF) pos = start + 5;
  else return bytes.length;
  while (pos <= bytes.length) {
    const nl = bytes.indexOf(LF, pos);
    const end = nl < 0 ? bytes.length : nl;
    if (isFenceLine(bytes, pos, end)) return nl < 0 ? bytes.length : nl + 1;
    if (nl < 0) break;
    pos = nl + 1;
  }
  return bytes.length;
}

/** Reads and checks one `knowledge/**.md` file. */
export function readKnowledgeDocument(path: string, bytes: Buffer): DocumentReading {
  const kind = isConceptPath(path) ? 'concept' : 'reserved';
  // The same acceptance as a fatal TextDecoder (WHATWG UTF-8: no overlongs, surrogates or
  // code points above U+10FFFF), without building a string.
  if (!isUtf8(bytes)) {
    const code = kind === 'concept' ? 'OCTX_DOCUMENT_FRONTMATTER' : 'OCTX_OKF_RESERVED_INVALID';
    return { path, kind, text: '', bytes, issues: [issue({ code, path, message: `${path} is not valid UTF-8` })] };
  }
  const start = bomLength(bytes);
  if (kind === 'reserved') {
    const text = bytes.toString('utf8', start);
    const issues = reservedDocumentProblems(path, text).map((message) => issue({ code: 'OCTX_OKF_RESERVED_INVALID', path, message }));
    return { path, kind, text, bytes, issues };
  }
  // The Concept rules only read the frontmatter: the body is not decoded here.
  const reading = readConceptDocument(path, bytes.toString('utf8', start, frontmatterEnd(bytes, start)));
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
