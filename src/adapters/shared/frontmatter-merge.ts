/**
 * Give a caller's Markdown the frontmatter keys an adapter knows — `type`, `title`,
 * `octx.document_id` and one namespaced provenance object such as `x-rag` — without overwriting
 * anything the file already says. The builder then fills what is still missing and checks the
 * result. Adapters call it through `addAdapterDocument` (`add-document.ts`).
 */
import { Document as YamlDocument, isMap, YAMLMap } from 'yaml';
import { OctxError } from '../../model/errors.js';
import type { JsonValue } from '../../model/json.js';
import { parseFrontmatter, splitFrontmatter, stripBom } from '../../knowledge/frontmatter.js';
import { deriveTitle } from '../../knowledge/title.js';

/** Keys an adapter wants in a document's frontmatter (each only when the file lacks it). */
export interface FrontmatterAdditions {
  /** `type` when the file has none. */
  readonly type?: string;
  /** `title` when the file has none and its body has no level-one heading. */
  readonly title?: string;
  /** `octx.document_id` when the file has none. */
  readonly documentId?: string;
  /** Extra top-level keys (e.g. `x-rag`), each added only when absent. */
  readonly extras?: Readonly<Record<string, JsonValue>>;
}

/** The merged Markdown and what the adapter needs to know about it. */
export interface MergedMarkdown {
  /** The Markdown to hand to `builder.addDocument`. */
  readonly markdown: string;
  /** The body (everything after the frontmatter) — exactly as in the caller's file. */
  readonly body: string;
  /** Extra keys that the file already had and were therefore left alone. */
  readonly keptExtras: readonly string[];
}

const STRINGIFY = { lineWidth: 0, minContentWidth: 0, indent: 2, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', doubleQuotedAsJSON: true } as const;

/** True when the body has a level-one ATX heading outside code fences. */
export function hasLevelOneHeading(body: string): boolean {
  return deriveTitle(body, '') !== '';
}

/**
 * Adds frontmatter keys to Markdown text. Strings are written double-quoted (JSON escapes) so
 * YAML 1.1 and 1.2 readers agree; existing keys, values, comments and formatting are kept.
 * @param path package path, for errors
 * @throws OctxError `OCTX_DOCUMENT_FRONTMATTER` when the file's own frontmatter is unsafe or unclosed
 */
export function mergeFrontmatter(markdown: string, additions: FrontmatterAdditions, path: string): MergedMarkdown {
  const text = stripBom(markdown);
  const split = splitFrontmatter(text);
  if (!split.ok) throw OctxError.of({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, message: split.reason });
  const { frontmatter, body } = split.parts;
  const wantTitle = additions.title !== undefined && !hasLevelOneHeading(body);
  const keptExtras: string[] = [];

  if (frontmatter === undefined) {
    const doc = new YamlDocument({});
    if (additions.type !== undefined) doc.set('type', additions.type);
    if (wantTitle) doc.set('title', additions.title);
    if (additions.documentId !== undefined) doc.set('octx', doc.createNode({ document_id: additions.documentId }));
    for (const [k, v] of Object.entries(additions.extras ?? {})) doc.set(k, doc.createNode(v));
    const yaml = doc.contents && isMap(doc.contents) && doc.contents.items.length > 0 ? doc.toString(STRINGIFY) : '';
    return { markdown: yaml === '' ? body : `---\n${yaml}---\n\n${body}`, body, keptExtras };
  }

  const parsed = parseFrontmatter(frontmatter);
  if (!parsed.ok) throw OctxError.of({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, message: `unsafe or invalid YAML frontmatter: ${parsed.reason}` });
  const { data, document } = parsed.value;
  if (!isMap(document.contents)) document.contents = new YAMLMap() as unknown as typeof document.contents;
  if (data.type === undefined && additions.type !== undefined) document.set('type', additions.type);
  if (data.title === undefined && wantTitle) document.set('title', additions.title);
  if (additions.documentId !== undefined) {
    const octx = data.octx;
    if (octx === undefined) document.set('octx', document.createNode({ document_id: additions.documentId }));
    else if (octx !== null && typeof octx === 'object' && !Array.isArray(octx) && (octx as Record<string, unknown>).document_id === undefined) {
      document.setIn(['octx', 'document_id'], additions.documentId);
    }
  }
  for (const [k, v] of Object.entries(additions.extras ?? {})) {
    if (data[k] === undefined) document.set(k, document.createNode(v));
    else keptExtras.push(k);
  }
  const newline = split.parts.newline;
  let yaml = document.toString(STRINGIFY);
  if (newline === '\r\n') yaml = yaml.replace(/\r?\n/g, '\r\n');
  return { markdown: `---${newline}${yaml}---${newline}${body}`, body, keptExtras };
}
