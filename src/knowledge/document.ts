import { isMap, isScalar, type Document } from 'yaml';
import { OctxError } from '../model/errors.js';
import { detachedString } from '../model/detached-string.js';
import { isUuidV7 } from '../model/ids.js';
import { baseName, entryNameProblem, logicalPathProblem, RESERVED_DOCUMENT_NAMES } from '../model/paths.js';
import { documentTypeProblem, retypedType } from './concept.js';
import { parseFrontmatter, splitFrontmatter, stripBom, type FrontmatterBounds, type ParsedFrontmatter } from './frontmatter.js';
import { quoteRetyped } from './pyyaml-reading.js';
import { yamlQuote } from './yaml-quote.js';
import { reservedDocumentProblems } from './reserved.js';
import { deriveTitle, isPythonTitle, pythonHeadingTitle } from './title.js';

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
  /** The frontmatter `title` value when it is not a string (`title: 2024`, `title: null`). */
  readonly titleValue?: unknown;
  /**
   * Set only when the title is not a string Python's `strip()` leaves non-empty: the title a
   * Python reader (SAG's importer) takes instead, from the body's first `# ` line or the file
   * stem ({@link pythonHeadingTitle}).
   */
  readonly titleFallback?: string;
  /** The frontmatter `type` (concepts only). */
  readonly type?: string;
  /** The exact bytes that go into the package: UTF-8, never a BOM. */
  readonly bytes: Buffer;
  /**
   * UTF-8 bytes of the frontmatter block as written (concepts only): the export checks it against
   * its `limits.maxFrontmatterBytes`, which may be lower than what `addDocument` accepted.
   */
  readonly frontmatterBytes?: number;
  /** YAML nodes of that block (concepts only), checked against the export's `limits.maxFrontmatterNodes`. */
  readonly frontmatterNodes?: number;
}

/** Options for {@link prepareDocument}. */
export interface PrepareDocumentOptions {
  /** Mints (or recalls) a document id for a `knowledge/…` path whose frontmatter has none. */
  readonly mintId: (path: string) => string;
  /** Default `type` for documents without one. */
  readonly defaultType?: string;
  /** Largest frontmatter block, in UTF-8 bytes (default `DEFAULT_ARCHIVE_LIMITS.maxFrontmatterBytes`). */
  readonly maxFrontmatterBytes?: number;
  /** Most YAML nodes of a frontmatter block (default `DEFAULT_ARCHIVE_LIMITS.maxFrontmatterNodes`). */
  readonly maxFrontmatterNodes?: number;
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
  if (problem)
    throw OctxError.of({ code: 'OCTX_PATH_INVALID', path: input, field: 'path', message: `${problem}; use a relative POSIX path under knowledge/ such as "guides/setup.md"` });
  if (!nfc.endsWith('.md') || nfc === '.md' || baseName(nfc) === '.md') {
    throw OctxError.of({ code: 'OCTX_PATH_INVALID', path: input, field: 'path', message: 'knowledge documents must be Markdown files ending in lower-case ".md"' });
  }
  const packagePath = `knowledge/${nfc}`;
  const tooLong = entryNameProblem(packagePath);
  if (tooLong) throw OctxError.of({ code: 'OCTX_PATH_INVALID', path: input.slice(0, 200), field: 'path', message: tooLong });
  return packagePath;
}

/**
 * Turns a caller's document into package bytes. Concept Documents get the frontmatter keys they
 * lack — `type` (default `Document`), `title` (first H1, else the file stem) and
 * `octx.document_id` (minted) — and nothing that exists is overwritten: when no key is missing
 * the bytes are kept exactly (minus a BOM); when keys are added the rest of the YAML keeps its
 * formatting and comments. Reserved `index.md`/`log.md` are checked against the OKF structure
 * and never get an id.
 * @throws OctxError with `OCTX_PATH_INVALID`, `OCTX_DOCUMENT_INVALID`, `OCTX_DOCUMENT_FRONTMATTER`,
 *   `OCTX_FRONTMATTER_TOO_LARGE`, `OCTX_FRONTMATTER_TOO_COMPLEX`, `OCTX_DOCUMENT_TYPE_MISSING`, `OCTX_ID_INVALID` or
 *   `OCTX_OKF_RESERVED_INVALID`.
 */
export function prepareDocument(input: DocumentInput, options: PrepareDocumentOptions): PreparedDocument {
  if (input === null || typeof input !== 'object') throw OctxError.of({ code: 'OCTX_DOCUMENT_INVALID', message: 'addDocument expects { path, markdown }' });
  const path = knowledgePath(input.path);
  const text = stripBom(decodeMarkdown(input.markdown, path));
  if (RESERVED_DOCUMENT_NAMES.has(baseName(path))) {
    const problems = reservedDocumentProblems(path, text, boundsOf(options));
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

export { yamlQuote } from './yaml-quote.js';

function fail(path: string, message: string): never {
  throw OctxError.of({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, message });
}

/**
 * Where to insert `document_id` into an existing block-style `octx:` mapping: the start of the
 * line of its first key, and that key's indentation.
 */
function octxInsertion(document: Document.Parsed, source: string, path: string): { at: number; indent: string } {
  const contents = document.contents;
  const pair = isMap(contents) ? contents.items.find((p) => isScalar(p.key) && p.key.value === 'octx') : undefined;
  const value = pair?.value;
  if (!isMap(value) || value.flow || value.items.length === 0 || !isScalar(value.items[0]!.key) || !value.items[0]!.key.range) {
    fail(path, 'octx is written in flow style ({…}) or is empty; write it as a block mapping, or add octx.document_id yourself');
  }
  const keyStart = value.items[0]!.key.range[0];
  const lineStart = source.lastIndexOf('\n', keyStart - 1) + 1;
  const indent = source.slice(lineStart, keyStart);
  if (!/^[ ]+$/.test(indent)) fail(path, 'octx must be a block mapping with its keys on their own indented lines');
  return { at: lineStart, indent };
}

function prepareConcept(path: string, text: string, options: PrepareDocumentOptions): PreparedDocument {
  const split = splitFrontmatter(text);
  if (!split.ok) fail(path, split.reason);
  const { frontmatter, body, newline } = split.parts;
  const type = options.defaultType ?? 'Document';

  if (frontmatter === undefined) {
    const documentId = options.mintId(path);
    // A copy, as below: the builder keeps it until the export.
    const title = detachedString(deriveTitle(body, baseName(path)));
    // Fresh frontmatter: block style, strings double-quoted so YAML 1.1 and 1.2 readers agree.
    // Only the fences and the new block use the document's line ending; the body is untouched.
    const block = [`type: ${yamlQuote(type)}`, `title: ${yamlQuote(title)}`, 'octx:', `  document_id: ${yamlQuote(documentId)}`].join(newline);
    const out = `---${newline}${block}${newline}---${newline}${newline}${body}`;
    const nodes = assertReadable(path, `${block}${newline}`, boundsOf(options));
    return {
      path,
      kind: 'concept',
      documentId,
      title,
      ...(isPythonTitle(title) ? {} : { titleFallback: detachedString(pythonHeadingTitle(body, path)) }),
      type,
      bytes: Buffer.from(out, 'utf8'),
      frontmatterBytes: Buffer.byteLength(`${block}${newline}`),
      frontmatterNodes: nodes,
    };
  }

  const parsed = parseFrontmatter(frontmatter, boundsOf(options));
  if (!parsed.ok && parsed.tooLarge) {
    throw OctxError.of({ code: 'OCTX_FRONTMATTER_TOO_LARGE', path, field: 'frontmatter', message: `${parsed.reason}; keep large values in the body` });
  }
  if (!parsed.ok && parsed.tooComplex) throw OctxError.of({ code: 'OCTX_FRONTMATTER_TOO_COMPLEX', path, field: 'frontmatter', message: parsed.reason });
  if (!parsed.ok) fail(path, `unsafe or invalid YAML frontmatter: ${parsed.reason}`);
  // `document` is not read here: for a simple block it is parsed only when it is needed.
  const { data, retyped } = parsed.value;
  if (data.type !== undefined) {
    const problem = documentTypeProblem(data.type, retypedType(retyped)?.pyyaml);
    if (problem) throw OctxError.of({ code: 'OCTX_DOCUMENT_TYPE_MISSING', path, field: 'type', message: problem });
  }
  // Missing keys are inserted as text, never by re-serialising: every existing byte, value,
  // comment and style stays exactly as the author wrote it. The one exception: a plain string
  // PyYAML would type otherwise (`date: 2024-01-01`, `draft: yes`) is written double-quoted, so
  // that every reader reads the string this SDK reads.
  let fm = retyped.length === 0 ? frontmatter : quoteRetyped(frontmatter, retyped, yamlQuote);
  let yaml: ParsedFrontmatter = parsed.value;
  if (fm !== frontmatter) {
    const quoted = parseFrontmatter(fm, boundsOf(options));
    if (!quoted.ok || quoted.value.retyped.length > 0)
      fail(path, `quoting the values PyYAML reads otherwise does not give a block both read alike${quoted.ok ? '' : ` (${quoted.reason})`}`);
    yaml = quoted.value;
  }
  const appended: string[] = [];
  if (data.type === undefined) appended.push(`type: ${yamlQuote(type)}`);
  // Copies (see `detachedString`): the builder keeps the title and id until the export, and a
  // slice of the document (a heading, a frontmatter value) would keep all of it alive with them.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a title may be any YAML scalar (`title: 2024`); String() is the intended conversion
  const title = detachedString(data.title === undefined ? deriveTitle(body, baseName(path)) : String(data.title));
  if (data.title === undefined) appended.push(`title: ${yamlQuote(title)}`);
  const octx = data.octx;
  let documentId: string;
  if (octx === undefined) {
    documentId = options.mintId(path);
    appended.push('octx:', `  document_id: ${yamlQuote(documentId)}`);
  } else if (octx === null || typeof octx !== 'object' || Array.isArray(octx)) {
    throw OctxError.of({ code: 'OCTX_DOCUMENT_INVALID', path, field: 'octx', message: 'frontmatter key octx must be a mapping (it holds document_id)' });
  } else {
    const given = (octx as Record<string, unknown>).document_id;
    if (given === undefined) {
      documentId = options.mintId(path);
      const { at, indent } = octxInsertion(yaml.document, fm, path);
      fm = `${fm.slice(0, at)}${indent}document_id: ${yamlQuote(documentId)}${newline}${fm.slice(at)}`;
    } else {
      if (!isUuidV7(given)) {
        throw OctxError.of({
          code: 'OCTX_ID_INVALID',
          path,
          field: 'octx.document_id',
          message: `octx.document_id must be a canonical lowercase UUIDv7 (got ${JSON.stringify(given)})`,
        });
      }
      documentId = detachedString(given);
    }
  }
  const pythonTitle = data.title === undefined ? title : data.title;
  const result = {
    path,
    kind: 'concept' as const,
    documentId,
    title,
    ...(data.title !== undefined && typeof data.title !== 'string' ? { titleValue: structuredClone(data.title) } : {}),
    ...(isPythonTitle(pythonTitle) ? {} : { titleFallback: detachedString(pythonHeadingTitle(body, path)) }),
    type: typeof data.type === 'string' ? data.type : type,
  };
  if (fm === frontmatter && appended.length === 0) {
    return { ...result, bytes: Buffer.from(text, 'utf8'), frontmatterBytes: Buffer.byteLength(frontmatter), frontmatterNodes: parsed.value.nodes };
  }
  if (appended.length > 0) {
    if (fm !== '' && !fm.endsWith('\n')) fm += newline;
    fm += appended.map((l) => `${l}${newline}`).join('');
  }
  const nodes = assertReadable(path, fm, boundsOf(options), data);
  return { ...result, bytes: Buffer.from(`---${newline}${fm}---${newline}${body}`, 'utf8'), frontmatterBytes: Buffer.byteLength(fm), frontmatterNodes: nodes };
}

/** The frontmatter bounds of the options (each absent one takes its default). */
function boundsOf(options: PrepareDocumentOptions): FrontmatterBounds {
  return {
    ...(options.maxFrontmatterBytes !== undefined ? { maxBytes: options.maxFrontmatterBytes } : {}),
    ...(options.maxFrontmatterNodes !== undefined ? { maxNodes: options.maxFrontmatterNodes } : {}),
  };
}

/**
 * Re-reads a completed frontmatter block: it must parse under the safe rules, and every key the
 * author wrote must read exactly as before (under YAML 1.2 and 1.1), so completion never changes
 * a value. Returns the block's YAML node count.
 */
function assertReadable(path: string, frontmatter: string, bounds: FrontmatterBounds, before?: Record<string, unknown>): number {
  const again = parseFrontmatter(frontmatter, bounds);
  if (!again.ok && again.tooLarge) {
    throw OctxError.of({ code: 'OCTX_FRONTMATTER_TOO_LARGE', path, field: 'frontmatter', message: `with the keys it lacks added, ${again.reason}` });
  }
  if (!again.ok && again.tooComplex) {
    throw OctxError.of({ code: 'OCTX_FRONTMATTER_TOO_COMPLEX', path, field: 'frontmatter', message: `with the keys it lacks added, ${again.reason}` });
  }
  if (!again.ok) fail(path, `the completed frontmatter does not parse (${again.reason}); add type, title and octx.document_id yourself`);
  if (again.value.retyped.length > 0)
    fail(path, `the completed frontmatter reads differently under PyYAML (${again.value.retyped[0]!.where}); add type, title and octx.document_id yourself`);
  if (before === undefined) return again.value.nodes;
  for (const [key, value] of Object.entries(before)) {
    const now = again.value.data[key];
    const same =
      key === 'octx'
        ? JSON.stringify({ ...(now as object), document_id: undefined }) === JSON.stringify({ ...(value as object), document_id: undefined })
        : JSON.stringify(now) === JSON.stringify(value);
    if (!same) fail(path, `completing the frontmatter would change the value of ${key}; add type, title and octx.document_id yourself`);
  }
  return again.value.nodes;
}
