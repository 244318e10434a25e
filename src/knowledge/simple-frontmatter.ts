/**
 * A reader for the plainest frontmatter blocks, which every YAML reading agrees on: the blocks
 * this SDK writes and the ones most tools write (`type: Document`, `title: "Setup"`, then
 * `octx:` with an indented `document_id`). For them the result is what the full, safe-YAML
 * parse of `frontmatter.ts` gives — the same data under YAML 1.2 and 1.1, the same node count —
 * without loading the yaml library's parser: a build's first documents paid its warm-up, about
 * 0.1 ms each, most of a small document's cost (see BENCHMARKS.md).
 *
 * Anything else — a comment, a blank line, a number, a word either YAML version reads as a
 * boolean or null, a quote with an escape, a list, a flow collection, a second level of
 * nesting, a repeated key, CR line ends — is declined (`undefined`) and goes to the full parse,
 * which also gives the errors. A differential test compares the two on generated blocks.
 */

/** A block read here: its data (strings and one level of mappings) and its YAML node count. */
export interface SimpleFrontmatter {
  readonly data: Record<string, string | Record<string, string>>;
  /** What `lexCounted` counts for the block: 3 per `key: value`, 2 per `key:` opening a mapping. */
  readonly nodes: number;
}

// A key: letters, digits, "_" and "-", starting with a letter or "_" (never "__", which could
// name `__proto__`), of at most 1024 characters: YAML's bound on an implicit key, which the yaml
// library and PyYAML enforce.
const KEY = '(?!__)[A-Za-z_][A-Za-z0-9_-]{0,1023}';
// Letters the reader takes in plain values besides ASCII: Latin-1 and Latin Extended letters, CJK
// (from U+3001: U+3000 is a space), Hangul and the full-width forms. None is a YAML indicator,
// a space or a line break in either YAML version.
const WIDE = '\\u00c0-\\u00d6\\u00d8-\\u00f6\\u00f8-\\u024f\\u3001-\\u9fff\\uac00-\\ud7a3\\uff01-\\uff60';
// A plain value starts with a letter (so it is never a number, a date, `.inf` or an indicator)
// and holds no ":" or "#" (so no ": " or " #") and no trailing space.
const PLAIN = `[A-Za-z${WIDE}](?:[A-Za-z0-9 _.,()/+${WIDE}-]*[A-Za-z0-9_.,()/+${WIDE}-])?`;
// A canonical lower-case UUID, the usual `document_id`: a string in both YAML versions.
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
// A double-quoted value without escapes, quotes or characters YAML 1.1 reads as line breaks
// (U+0085, U+2028, U+2029) or a BOM; controls are refused before this reader runs.
const QUOTED = '"[^"\\\\\\t\\u0085\\u2028\\u2029\\ufeff]*"';

const PAIR = new RegExp(`^(${KEY}): (?:(${PLAIN}|${UUID})|(${QUOTED}))$`);
const OPEN = new RegExp(`^(${KEY}):$`);
const NESTED = new RegExp(`^( +)(${KEY}): (?:(${PLAIN}|${UUID})|(${QUOTED}))$`);

/**
 * Words a YAML 1.2 (core) or 1.1 reading types as a boolean or null, and 1.1 floats without a
 * mantissa (`e5`): as keys or plain values they are declined. Compared in lower case, so more
 * spellings are declined than either schema claims.
 */
const TYPED_WORDS: ReadonlySet<string> = new Set(['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null']);
const MANTISSA_LESS_FLOAT = /^[eE][-+]?[0-9]/;

function typedWord(word: string): boolean {
  return TYPED_WORDS.has(word.toLowerCase()) || MANTISSA_LESS_FLOAT.test(word);
}

/**
 * A value of a matched line: the plain text, or the quoted text without its quotes. Slices of the
 * block, as the yaml library's plain values are: a caller that keeps one copies it.
 */
function valueOf(plain: string | undefined, quoted: string | undefined): string | undefined {
  if (plain !== undefined) return typedWord(plain) ? undefined : plain;
  return quoted!.slice(1, -1);
}

/**
 * Reads `source` (a frontmatter block without its fences) when it is one of the plain shapes
 * described above; `undefined` otherwise. The caller has already refused blocks that are too
 * large, hold control characters or lone surrogates.
 */
export function readSimpleFrontmatter(source: string): SimpleFrontmatter | undefined {
  if (source.length === 0 || source.charCodeAt(source.length - 1) !== 10 || source.includes('\r')) return undefined;
  const lines = source.split('\n');
  lines.pop(); // the empty string after the last "\n"
  const data: Record<string, string | Record<string, string>> = {};
  let nodes = 0;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const pair = PAIR.exec(line);
    if (pair) {
      const key = pair[1]!;
      const value = valueOf(pair[2], pair[3]);
      if (typedWord(key) || Object.hasOwn(data, key) || value === undefined) return undefined;
      data[key] = value;
      nodes += 3;
      i++;
      continue;
    }
    const open = OPEN.exec(line);
    if (!open) return undefined;
    const key = open[1]!;
    if (typedWord(key) || Object.hasOwn(data, key)) return undefined;
    const inner: Record<string, string> = {};
    let indent: string | undefined;
    nodes += 2;
    i++;
    while (i < lines.length && lines[i]!.charCodeAt(0) === 32) {
      const nested = NESTED.exec(lines[i]!);
      if (!nested) return undefined;
      const innerKey = nested[2]!;
      const value = valueOf(nested[3], nested[4]);
      if ((indent !== undefined && nested[1] !== indent) || typedWord(innerKey) || Object.hasOwn(inner, innerKey) || value === undefined) return undefined;
      indent = nested[1]!;
      inner[innerKey] = value;
      nodes += 3;
      i++;
    }
    // `key:` with nothing under it is null: the full parse reads that.
    if (indent === undefined) return undefined;
    data[key] = inner;
  }
  return { data, nodes };
}
