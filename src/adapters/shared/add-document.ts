/**
 * Adding one source document to a builder, the way every adapter does it: the caller's text
 * (decoded strictly as UTF-8 when it comes as bytes), the adapter's frontmatter keys merged in
 * without overwriting the file's own, a warning when the file already had the adapter's
 * provenance key, and the document id the builder settled on.
 */
import type { PackageBuilder } from '../../builder/package-builder.js';
import { mergeFrontmatter, type FrontmatterAdditions } from './frontmatter-merge.js';

/** Fatal: a byte sequence that is not UTF-8 is refused, never replaced with U+FFFD. A BOM is dropped. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The text of a source document given as text or bytes: bytes are decoded as UTF-8 (a leading BOM
 * dropped); text is returned as it is.
 * @returns `undefined` when the bytes are not valid UTF-8 (the adapter reports it with its own locators)
 */
export function decodeDocumentText(content: string | Uint8Array): string | undefined {
  if (typeof content === 'string') return content;
  try {
    return UTF8.decode(content);
  } catch {
    return undefined;
  }
}

/** One document an adapter adds. */
export interface AdapterDocument {
  /** Its path under `knowledge/` (without that prefix). */
  readonly path: string;
  /** The source's Markdown text, with or without frontmatter. */
  readonly markdown: string;
  /** The keys the adapter sets where the file has none (`type`, `title`, `octx.document_id`, `x-…`). */
  readonly additions: FrontmatterAdditions;
  /** What the file is, for the warning about a provenance key it already has: `the original`, `the source`. */
  readonly origin: string;
}

/** What {@link addAdapterDocument} added. */
export interface AddedAdapterDocument {
  /** The document's id (its own `octx.document_id` when it had one, else the one added). */
  readonly documentId: string;
  /** The body after the frontmatter, exactly as in the source (a full-text chunk's text). */
  readonly body: string;
}

/**
 * Merges the adapter's frontmatter keys into a source document and adds it to the builder. An
 * `additions.extras` key the file already has is kept as the file says, and `warnings` gets
 * `knowledge/<path>: <origin> already has <keys> in its frontmatter; kept as is`.
 * @throws OctxError `OCTX_DOCUMENT_FRONTMATTER` (the file's own frontmatter is unsafe or unclosed),
 *   and the builder's `addDocument` errors
 */
export function addAdapterDocument(builder: PackageBuilder, document: AdapterDocument, warnings: string[]): AddedAdapterDocument {
  const { path } = document;
  const merged = mergeFrontmatter(document.markdown, document.additions, `knowledge/${path}`);
  if (merged.keptExtras.length > 0) warnings.push(`knowledge/${path}: ${document.origin} already has ${merged.keptExtras.join(', ')} in its frontmatter; kept as is`);
  builder.addDocument({ path, markdown: merged.markdown });
  return { documentId: builder.documentId(path), body: merged.body };
}
