/**
 * The docs generator's conventions met while loading a tree, counted per kind: the ones applied
 * (an mdBook include expanded, a Hugo `ref` resolved…) and the ones kept as written (a template
 * shortcode, an include that cannot be read), each with its files — so nothing a generator would
 * render differently passes silently. Each kind not applied is one `OCTX_CONVENTION_NOT_APPLIED`
 * warning with its count.
 */
import { issue, type OctxIssue } from '../../model/errors.js';
import type { DocsSite } from '../docs-site/detect.js';
import type { FinishedPage, ReadPage } from './page-text.js';
import type { ConventionCount } from './types.js';

type Tally = Map<string, { count: number; files: string[] }>;

function add(tally: Tally, kind: string, file: string, n: number): void {
  const t = tally.get(kind) ?? { count: 0, files: [] };
  t.count += n;
  if (t.files.at(-1) !== file) t.files.push(file);
  tally.set(kind, t);
}

function list(tally: Tally): ConventionCount[] {
  return [...tally].map(([kind, t]) => ({ kind, count: t.count, files: t.files }));
}

/** The conventions of one load. */
export class Conventions {
  readonly #applied: Tally = new Map();
  readonly #kept: Tally = new Map();
  readonly #site: DocsSite | undefined;

  constructor(site: DocsSite | undefined) {
    this.#site = site;
  }

  /** A convention applied `n` times in `file`. */
  apply(kind: string, file: string, n = 1): void {
    add(this.#applied, kind, file, n);
  }

  /** A convention met `n` times in `file` and kept as written. */
  keep(kind: string, file: string, n = 1): void {
    add(this.#kept, kind, file, n);
  }

  /** Counts what reading a page applied and kept (mdBook helpers, Docusaurus admonitions, MkDocs blocks). */
  countPage(file: string, page: ReadPage): void {
    for (const [kind, n] of Object.entries(page.mdbook?.expanded ?? {})) this.apply(`mdBook {{#${kind}}}`, file, n);
    for (const f of page.mdbook?.failed ?? []) this.keep(`mdBook helper kept as written (${f.reason.replace(/^cannot read .*?: /, 'cannot read: ')})`, file);
    const d = page.docusaurus;
    if (d) {
      if (d.converted > 0) this.apply('Docusaurus admonition (:::note[Title]) as a bold label line', file, d.converted);
      for (const [name, n] of Object.entries(d.others)) this.keep(`Docusaurus container directive :::${name} (not an admonition)`, file, n);
      if (d.unread > 0) this.keep("Docusaurus ':::' paragraph that is no directive (Docusaurus 2's `:::note Title`?)", file, d.unread);
    }
    const m = page.mkdocs;
    if (m) {
      if (m.admonitions > 0) this.apply('MkDocs admonition (!!! note "Title") as a bold label line and its content', file, m.admonitions);
      if (m.details > 0) this.apply('MkDocs collapsible block (??? note "Title") as a bold label line and its content', file, m.details);
      if (m.tabs > 0) this.apply('MkDocs content tab (=== "Label") as a bold label line and its content', file, m.tabs);
      if (m.snippets > 0) this.keep('MkDocs snippet --8<-- (pymdownx.snippets): not expanded', file, m.snippets);
    }
  }

  /** Counts what finishing a page applied and kept (Hugo shortcodes, frontmatter keys). */
  countFinished(file: string, page: FinishedPage): void {
    const label = this.#site?.label ?? '';
    const generator = this.#site?.generator ?? '';
    if (page.hugo) {
      if (page.hugo.resolved > 0) this.apply('Hugo {{< ref >}}/{{< relref >}} as a relative link', file, page.hugo.resolved);
      if (page.hugo.unresolved.length > 0) this.keep('Hugo {{< ref >}} naming no page of the tree', file, page.hugo.unresolved.length);
      for (const [name, n] of Object.entries(page.hugo.others)) this.keep(`Hugo shortcode {{< ${name} >}} (a template this cannot run)`, file, n);
    }
    if (page.keys.includes('title')) this.apply(`${label} title without its heading anchor ({#id}) or from {{#title}}`, file);
    if (page.keys.includes('type')) this.apply(`${label} frontmatter type (the generator's, not the OKF type) moved under ${generator}:`, file);
    if (page.keptKeys.includes('type')) this.keep(`${label} frontmatter type left as the OKF type (it spans lines, or ${generator}: exists)`, file);
  }

  /** What was applied, per kind, in the order first met. */
  get applied(): ConventionCount[] {
    return list(this.#applied);
  }

  /** What was kept as written, per kind, in the order first met. */
  get kept(): ConventionCount[] {
    return list(this.#kept);
  }

  /** One warning per kind kept as written. */
  warnings(): OctxIssue[] {
    return list(this.#kept).map((c) => {
      const shown = c.files.slice(0, 3).join(', ') + (c.files.length > 3 ? `, … (${c.files.length} files)` : '');
      return issue({
        code: 'OCTX_CONVENTION_NOT_APPLIED',
        severity: 'warning',
        path: c.files[0]!,
        message: `${c.kind}: ${c.count} kept as written, in ${shown}`,
      });
    });
  }
}
