import { Scalar, YAMLMap, isMap, stringify } from 'yaml';
import { OctxError } from '../model/errors.js';
import { isUuidV7 } from '../model/ids.js';
import { baseName, logicalPathProblem, RESERVED_DOCUMENT_NAMES } from '../package/paths.js';
import { documentTypeProblem } from './concept.js';
import { parseFrontmatter, splitFrontmatter, stripBom } from './frontmatter.js';
import { reservedDocumentProblems } from './reserved.js';
import { deriveTitle } from './title.js';

/** A document as the caller hands it to `addDocument`. */
export interface DocumentInput {
  /** Path relative to `knowledge/`, POSIX separators, ending in `.md` (e.g. `guides/setup.md`). */
  readonly path: string;
  /** The Markdown text, or its UTF-8 bytes (decoded strictly). A leading BOM is accepted and dropped. */
  readonly markdown: string | Uint8Array;
}

/** A document ready to be written: final path, final bytes and what was learned from it. */
export interface PreparedDocument {
  /** `knowledge/…` package path (NFC). */
  readonly path: string;
  /** `concept` for Concept Documents, `reserved` for `index.md`/`log.md`. */
  readonly kind: 'concept' | 'reserved';
  /** `octx.document_id` (concepts only). */
  readonly documentId?: string;
  /** The frontmatter `title` (concepts only). */
  readonly title?: string;
  /** The frontmatter `type` (concepts only). */
  readonly type?: string;
  /** The exact bytes that go into the package: UTF-8, never a BOM. */
  readonly bytes: Buffer;
}

/** Options for {@link prepareDocument}. */
export interface PrepareDocumentOptions {
  /** Mints (or recalls) a document id for a `knowledge/…` path whose frontmatter has none. */
  readonly mintId: (path: string) => string;
  /** Default `type` for documents without one. */
  readonly defaultType?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Normalises a caller's document path into a `knowledge/` package path: NFC, then the logical
 * path rules, `.md` (lower case) only.
 * @throws OctxError `OCTX_PATH_INVALID`
 */
export function knowledgePath(input: string): string {
  if (typeof input !== 'string') throw OctxError.of({ code: 'OCTX_PATH_INVALID', field: 'path', message: 'document path must be a string' });
  const nfc = input.normalize('NFC');
  const problem = logicalPathProblem(nfc);
  if (problem) throw OctxError.of({ code: 'OCTX_PATH_INVALID', path: input, field: 'path', message: `${problem}; use a relative POSIX path under knowledge/ such as "guides/setup.md"` });
  if (!nfc.endsWith('.md') || nfc === '.md' || baseName(nfc) === '.md') {
    throw OctxError.of({ code: 'OCTX_PATH_INVALID', path: input, field: 'path', message: 'knowledge documents must be Markdown files ending in lower-case ".md"' });
  }
  return `knowledge/${nfc}`;
}

/**
 * Turns a caller's document into package bytes. Concept Documents get the frontmatter keys they
 * lack — `type` (default `Document`), `title` (first H1, else the file stem) and
 * `octx.document_id` (minted) — and nothing that exists is overwritten: when no key is missing
 * the bytes are kept exactly (minus a BOM); when keys are added the rest of the YAML keeps its
 * formatting and comments. Reserved `index.md`/`log.md` are checked against the OKF structure
 * and never get an id.
 * @throws OctxError with `OCTX_PATH_INVALID`, `OCTX_DOCUMENT_INVALID`, `OCTX_DOCUMENT_FRONTMATTER`,
 *   `OCTX_DOCUMENT_TYPE_MISSING`, `OCTX_ID_INVALID` or `OCTX_OKF_RESERVED_INVALID`.
 */
export function prepareDocument(input: DocumentInput, options: PrepareDocumentOptions): PreparedDocument {
  if (input === null || typeof input !== 'object') throw OctxError.of({ code: 'OCTX_DOCUMENT_INVALID', message: 'addDocument expects { path, markdown }' });
  const path = knowledgePath(input.path);
  const text = stripBom(decodeMarkdown(input.markdown, path));
  if (RESERVED_DOCUMENT_NAMES.has(baseName(path))) {
    const problems = reservedDocumentProblems(path, text);
    if (problems.length > 0) {
      throw OctxError.of({ code: 'OCTX_OKF_RESERVED_INVALID', path, message: `${baseName(path)} is reserved by OKF and is not a Concept Document: ${problems.join('; ')}` });
    }
    return { path, kind: 'reserved', bytes: Buffer.from(text, 'utf8') };
  }
  return prepareConcept(path, text, options);
}

function decodeMarkdown(markdown: string | Uint8Array, path: string): string {
  if (typeof markdown === 'string') {
    if (!markdown.isWellFormed()) throw OctxError.of({ code: 'OCTX_DOCUMENT_INVALID', path, field: 'markdown', message: 'Markdown text contains a lone UTF-16 surrogate' });
    return markdown;
  }
  if (markdown instanceof Uint8Array) {
    try {
      return utf8.decode(markdown);
    } catch {
      throw OctxError.of({ code: 'OCTX_DOCUMENT_INVALID', path, field: 'markdown', message: 'Markdown bytes are not valid UTF-8' });
    }
  }
  throw OctxError.of({ code: 'OCTX_DOCUMENT_INVALID', path, field: 'markdown', message: 'markdown must be a string or UTF-8 bytes' });
}

function quoted(value: string): Scalar {
  const s = new Scalar(value);
  s.type = 'QUOTE_DOUBLE';
  return s;
}

function prepareConcept(path: string, text: string, options: PrepareDocumentOptions): PreparedDocument {
  const split = splitFrontmatter(text);
  if (!split.ok) throw OctxError.of({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, message: split.reason });
  const { frontmatter, body, newline } = split.parts;
  const title = deriveTitle(body, baseName(path));
  const type = options.defaultType ?? 'Document';

  if (frontmatter === undefined) {
    const documentId = options.mintId(path);
    // Fresh frontmatter: block style, every string double-quoted so YAML 1.1 readers agree.
    const yamlText = stringify(
      { type, title, octx: { document_id: documentId } },
      { lineWidth: 0, minContentWidth: 0, indent: 2, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', doubleQuotedAsJSON: true, aliasDuplicateObjects: false },
    );
    const out = `---\n${yamlText}---\n\n${body}`;
    return { path, kind: 'concept', documentId, title, type, bytes: Buffer.from(newline === '\r\n' ? out.replace(/\r?\n/g, '\r\n') : out, 'utf8') };
  }

  const parsed = parseFrontmatter(frontmatter);
  if (!parsed.ok) throw OctxError.of({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, message: `unsafe or invalid YAML frontmatter: ${parsed.reason}` });
  const { data, document, yaml11 } = parsed.value;
  let changed = false;
  if (!isMap(document.contents)) {
    document.contents = new YAMLMap() as unknown as typeof document.contents;
  }
  const finalType = data.type === undefined ? type : data.type;
  if (data.type === undefined) {
    document.set('type', quoted(type));
    changed = true;
  } else {
    const problem = documentTypeProblem(data.type, yaml11.type);
    if (problem) throw OctxError.of({ code: 'OCTX_DOCUMENT_TYPE_MISSING', path, field: 'type', message: problem });
  }
  let finalTitle = data.title;
  if (finalTitle === undefined) {
    finalTitle = title;
    document.set('title', quoted(title));
    changed = true;
  }
  const octx = data.octx;
  let documentId: string;
  if (octx === undefined) {
    documentId = options.mintId(path);
    const map = new YAMLMap();
    map.set('document_id', quoted(documentId));
    document.set('octx', map);
    changed = true;
  } else if (octx === null || typeof octx !== 'object' || Array.isArray(octx)) {
    throw OctxError.of({ code: 'OCTX_DOCUMENT_INVALID', path, field: 'octx', message: 'frontmatter key octx must be a mapping (it holds document_id)' });
  } else {
    const given = (octx as Record<string, unknown>).document_id;
    if (given === undefined) {
      documentId = options.mintId(path);
      document.setIn(['octx', 'document_id'], quoted(documentId));
      changed = true;
    } else {
      const given11 = (yaml11.octx as Record<string, unknown> | undefined)?.document_id;
      if (!isUuidV7(given) || given11 !== given) {
        throw OctxError.of({ code: 'OCTX_ID_INVALID', path, field: 'octx.document_id', message: `octx.document_id must be a canonical lowercase UUIDv7 (got ${JSON.stringify(given)})` });
      }
      documentId = given;
    }
  }
  if (!changed) {
    return { path, kind: 'concept', documentId, title: String(finalTitle), type: String(finalType), bytes: Buffer.from(text, 'utf8') };
  }
  let yamlText = document.toString({ lineWidth: 0, minContentWidth: 0, indent: 2, doubleQuotedAsJSON: true });
  if (newline === '\r\n') yamlText = yamlText.replace(/\r?\n/g, '\r\n');
  const out = `---${newline}${yamlText}---${newline}${body}`;
  return { path, kind: 'concept', documentId, title: String(finalTitle), type: String(finalType), bytes: Buffer.from(out, 'utf8') };
}
