/**
 * MkDocs' block syntax (Python-Markdown extensions, as MkDocs Material documents them) that
 * CommonMark reads otherwise: admonitions (`!!! note "Title"`, the `admonition` extension),
 * collapsible blocks (`??? note`, `???+ note`: `pymdownx.details`) and content tabs
 * (`=== "Label"`: `pymdownx.tabbed`). Their content is the block of lines indented by four spaces
 * under the marker; left as it is, CommonMark reads that content as indented code. Each becomes a
 * bold label line — `**Note: Title**` (as an MDX `<Admonition>` or a Docusaurus `:::note[Title]`
 * becomes), `**Label**` for a tab — and its content without the four spaces; blocks nested in a
 * block are converted the same way. Lines inside fenced code are never read as markers, and every
 * other line keeps its bytes. Snippets (`--8<--`, `pymdownx.snippets`) are counted, not expanded.
 */

/** What {@link convertMkdocsBlocks} did to one page, by kind. */
export interface MkdocsBlocks {
  readonly text: string;
  readonly admonitions: number;
  readonly details: number;
  readonly tabs: number;
  /** `--8<--` snippet lines, kept as written. */
  readonly snippets: number;
}

// Python-Markdown's admonition pattern: `!!! type [more classes] ["Title"]`; `???`/`???+` for details.
const ADMONITION = /^(!!!|\?\?\?\+?) ?([\w-]+(?: +[\w-]+)*)(?: +"(.*?)")? *$/;
// pymdownx.tabbed: `=== "Label"`, with `+` (selected) or `!` (a new tab set).
const TAB = /^===[!+]{0,2}[ \t]+"(.*)"[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SNIPPET = /^\s*-{1,}8<-{1,}(?:\s|$)/;

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The width of a line's indentation, a tab counting to the next multiple of four (Python-Markdown's `tab_length`). */
function indentWidth(line: string): number {
  let w = 0;
  for (const ch of line) {
    if (ch === ' ') w++;
    else if (ch === '\t') w += 4 - (w % 4);
    else break;
  }
  return w;
}

/** The line without its first four columns of indentation. */
function dedent(line: string): string {
  let w = 0;
  let i = 0;
  while (i < line.length && w < 4) {
    if (line[i] === ' ') w++;
    else if (line[i] === '\t') w += 4 - (w % 4);
    else break;
    i++;
  }
  return line.slice(i);
}

/** Converts a page body's MkDocs blocks (see the module comment). Lines end as they did (`\n` or `\r\n`). */
export function convertMkdocsBlocks(body: string): MkdocsBlocks {
  const counts = { admonitions: 0, details: 0, tabs: 0, snippets: 0 };
  const eol = body.includes('\r\n') ? '\r\n' : '\n';
  const lines = body.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const out = convertLines(lines, counts);
  if (counts.admonitions + counts.details + counts.tabs === 0) return { text: body, ...counts };
  return { text: out.join(eol), ...counts };
}

function convertLines(lines: readonly string[], counts: { admonitions: number; details: number; tabs: number; snippets: number }): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    i++;
    if (fence !== undefined) {
      out.push(line);
      const f = FENCE.exec(line);
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = undefined;
      continue;
    }
    const f = FENCE.exec(line);
    if (f) {
      fence = f[1]!;
      out.push(line);
      continue;
    }
    const admonition = ADMONITION.exec(line);
    const tab = admonition ? undefined : TAB.exec(line);
    if (!admonition && !tab) {
      if (SNIPPET.test(line)) counts.snippets++;
      out.push(line);
      continue;
    }
    // The block: the lines after the marker that are blank or indented by four columns.
    const block: string[] = [];
    let j = i;
    while (j < lines.length && (lines[j]!.trim() === '' || indentWidth(lines[j]!) >= 4)) block.push(dedent(lines[j++]!));
    // Blank lines after the block are not its own.
    while (block.length > 0 && block[block.length - 1]!.trim() === '') {
      block.pop();
      j--;
    }
    i = j;
    let label: string;
    if (admonition) {
      const type = admonition[2]!.split(/ +/)[0]!;
      const title = admonition[3];
      label = title !== undefined && title.trim() !== '' ? `${capitalise(type)}: ${title.trim()}` : capitalise(type);
      if (admonition[1] === '!!!') counts.admonitions++;
      else counts.details++;
    } else {
      label = tab![1]!.trim();
      counts.tabs++;
    }
    out.push(`**${label}**`);
    if (block.length > 0 && block[0]!.trim() !== '') out.push('');
    out.push(...convertLines(block, counts));
  }
  return out;
}
