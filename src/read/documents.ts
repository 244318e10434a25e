/**
 * Reading one knowledge document from its raw bytes (OCTX-REFERENCE §4, §8): strict UTF-8, one
 * leading BOM stripped, then the Concept rules (`readConceptDocument`) or the reserved
 * `index.md`/`log.md` rules (`reservedDocumentProblems`).
 */
import { readConceptDocument } from '../knowledge/concept.js';
import { stripBom } from '../knowledge/frontmatter.js';
import { reservedDocumentProblems } from '../knowledge/reserved.js';
import { issue, type OctxIssue } from '../model/errors.js';
import { isConceptPath } from '../package/paths.js';

/** A knowledge document of a package. */
export interface PackageDocument {
  /** `knowledge/…` path. */
  readonly path: string;
  /** `concept`, or `reserved` for `index.md`/`log.md`. */
  readonly kind: 'concept' | 'reserved';
  /** Text after strict UTF-8 decoding, without a leading BOM (empty when undecodable). */
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

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads and checks one `knowledge/**.md` file. */
export function readKnowledgeDocument(path: string, bytes: Buffer): DocumentReading {
  const kind = isConceptPath(path) ? 'concept' : 'reserved';
  let text: string;
  try {
    text = stripBom(strictUtf8.decode(bytes));
  } catch {
    const code = kind === 'concept' ? 'OCTX_DOCUMENT_FRONTMATTER' : 'OCTX_OKF_RESERVED_INVALID';
    return { path, kind, text: '', bytes, issues: [issue({ code, path, message: `${path} is not valid UTF-8` })] };
  }
  if (kind === 'reserved') {
    const issues = reservedDocumentProblems(path, text).map((message) => issue({ code: 'OCTX_OKF_RESERVED_INVALID', path, message }));
    return { path, kind, text, bytes, issues };
  }
  const reading = readConceptDocument(path, text);
  return {
    path,
    kind,
    text,
    bytes,
    issues: reading.issues,
    ...(reading.documentId === undefined ? {} : { documentId: reading.documentId }),
    ...(reading.frontmatter === undefined ? {} : { frontmatter: reading.frontmatter }),
  };
}
