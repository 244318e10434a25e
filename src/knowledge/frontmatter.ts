import { Composer, isMap, isNode, isScalar, Lexer, parseDocument, Parser, visit, type CST, type Document, type YAMLMap } from 'yaml';
import { DEFAULT_ARCHIVE_LIMITS } from '../model/limits.js';
import { comparePyYaml, lineOf, pyyamlLineBreakProblem, pyyamlTextProblem, type RetypedScalar } from './pyyaml-reading.js';
import { readSimpleFrontmatter, type SimpleFrontmatter } from './simple-frontmatter.js';

/**
 * The parts of a Markdown file: an optional YAML frontmatter block between `---` fences on the
 * first lines, and the body after it. Offsets index the BOM-stripped text.
 */
export interface MarkdownParts {
  /** The frontmatter source between the fences, without the fences; `undefined` when absent. */
  readonly frontmatter?: string;
  /** Everything after the closing fence line (or the whole text when there is no frontmatter). */
  readonly body: string;
  /** The line ending of the opening fence: frontmatter we write keeps it. */
  readonly newline: '\n' | '\r\n';
}

/** Result of {@link splitFrontmatter}: either the parts, or why an opened block is not closed. */
export type SplitResult = { ok: true; parts: MarkdownParts } | { ok: false; reason: string };

/** Strips one leading UTF-8 BOM (U+FEFF), which readers must accept and producers never write. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Splits Markdown into frontmatter and body the way the reference reader does: the first line
 * must be exactly `---` (CRLF accepted) and a later line exactly `---` closes the block; a fence
 * line with trailing spaces is not a fence.
 */
export function splitFrontmatter(text: string): SplitResult {
  const first = /^---(\r?\n)/.exec(text);
  if (!first) return { ok: true, parts: { body: text, newline: text.includes('\r\n') ? '\r\n' : '\n' } };
  const newline = first[1] === '\r\n' ? '\r\n' : '\n';
  let pos = first[0].length;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl;
    // Compared in place: slicing (and regex-trimming) every line would copy a huge one.
    const n = end - pos;
    if ((n === 3 || (n === 4 && text.charCodeAt(pos + 3) === 13)) && text.startsWith('---', pos)) {
      const frontmatter = text.slice(first[0].length, pos);
      const body = nl < 0 ? '' : text.slice(nl + 1);
      return { ok: true, parts: { frontmatter, body, newline } };
    }
    if (nl < 0) break;
    pos = nl + 1;
  }
  return { ok: false, reason: 'frontmatter opened with --- is never closed' };
}

const ALLOWED_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));

// Characters PyYAML (the reference reader) refuses anywhere in a YAML stream.
// eslint-disable-next-line no-control-regex
const NON_PRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

/** A frontmatter block that passed the safe-YAML rules, with its data and editable document. */
export interface ParsedFrontmatter {
  /**
   * The mapping as plain data (YAML 1.2 core schema). PyYAML (YAML 1.1, the reference reader)
   * reads the same data, except for the scalars listed in `retyped`.
   */
  readonly data: Record<string, unknown>;
  /** The yaml Document, kept so missing keys can be added without reformatting the rest. */
  readonly document: Document.Parsed;
  /**
   * Plain scalars YAML 1.2 reads as strings and PyYAML as something else (`date: 2024-01-01`, a
   * date to PyYAML): the validator refuses them, the builder writes them double-quoted. Empty for
   * almost every block.
   */
  readonly retyped: readonly RetypedScalar[];
  /** The block's YAML node count ({@link lexCounted}): the export checks it against its limits. */
  readonly nodes: number;
}

/**
 * Why a frontmatter block is unsafe, or its parsed form. `tooLarge` marks a block refused for its
 * size alone (`OCTX_FRONTMATTER_TOO_LARGE`), `tooComplex` one refused for its node count
 * (`OCTX_FRONTMATTER_TOO_COMPLEX`), both before any parsing.
 */
export type ParseResult = { ok: true; value: ParsedFrontmatter } | { ok: false; reason: string; tooLarge?: true; tooComplex?: true };

/** The bounds {@link parseFrontmatter} enforces before it parses. */
export interface FrontmatterBounds {
  /** UTF-8 bytes of the block (default `DEFAULT_ARCHIVE_LIMITS.maxFrontmatterBytes`). */
  readonly maxBytes?: number;
  /** YAML nodes of the block, see {@link lexCounted} (default `DEFAULT_ARCHIVE_LIMITS.maxFrontmatterNodes`). */
  readonly maxNodes?: number;
}

// Lexer tokens that each open at most one node (or one key/value pair): a plain or block scalar
// (its marker), a quoted scalar, an alias, a sequence item, an explicit key, a value indicator, a
// flow separator and a flow collection. Their count bounds the nodes the composer would make.
const SCALAR_MARKER = '\x1f';
const NODE_INDICATORS: ReadonlySet<string> = new Set([SCALAR_MARKER, '-', '?', ':', ',', '[', '{']);

/** Whether a lexer token opens a node (see {@link NODE_INDICATORS}; a quoted scalar starts with its quote, an alias with "*"). */
function opensNode(token: string): boolean {
  const c = token.charCodeAt(0);
  return NODE_INDICATORS.has(token) || c === 0x22 || c === 0x27 || c === 0x2a;
}

/**
 * Lexes `source` once, counting its YAML nodes on the lexer's tokens and stopping as soon as the
 * count passes `max`: linear in the text. Every scalar, alias and node indicator counts, so an
 * empty value counts through its indicator and the count bounds the nodes parsing would compose
 * (`key: value` counts 3, a flow list item 2). Returns the count (`max + 1` when it passes `max`)
 * and the tokens, which the parser is then fed instead of lexing the text again (the lexer was a
 * fifth of a small frontmatter's cost, twice); `lexemes` is `undefined` past `max`. The tokens
 * kept are slices of a block already bounded in bytes.
 */
export function lexCounted(source: string, max: number): { readonly nodes: number; readonly lexemes: readonly string[] | undefined } {
  const lexemes: string[] = [];
  let nodes = 0;
  for (const token of new Lexer().lex(source)) {
    if (opensNode(token) && ++nodes > max) return { nodes, lexemes: undefined };
    lexemes.push(token);
  }
  return { nodes, lexemes };
}

/** The CST of a lexed block: what `new Parser().parse(source)` yields, from tokens lexed once. */
function parseLexemes(lexemes: readonly string[]): CST.Token[] {
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  for (const lexeme of lexemes) for (const token of parser.next(lexeme)) tokens.push(token);
  for (const token of parser.end()) tokens.push(token);
  return tokens;
}

/**
 * Why a frontmatter block of `source` is refused for its size, or `undefined` when it has at most
 * `maxBytes` UTF-8 bytes. Counted without encoding: a string is never shorter in UTF-8 bytes than
 * in UTF-16 units, and never longer than three times.
 */
export function frontmatterSizeProblem(source: string, maxBytes: number): string | undefined {
  if (source.length * 3 <= maxBytes) return undefined;
  const bytes = source.length > maxBytes ? source.length : Buffer.byteLength(source, 'utf8');
  if (bytes <= maxBytes) return undefined;
  return `the frontmatter block is ${source.length > maxBytes ? 'more than ' : ''}${bytes} bytes, above maxFrontmatterBytes ${maxBytes}`;
}

type StrictResult = { ok: true; doc: Document.Parsed; data: unknown } | { ok: false; reason: string };

function parseStrict(source: string, lexemes: readonly string[]): StrictResult {
  const options = {
    version: '1.2' as const,
    schema: 'core' as const,
    // yaml checks duplicate keys by comparing each new key with every earlier one of its map
    // (quadratic: 20,000 keys took 6 s); they are found with a Set in the walk below instead.
    uniqueKeys: false,
    merge: false,
    strict: true,
    stringKeys: true,
    prettyErrors: false,
    logLevel: 'silent' as const,
  };
  // The parser is iterative, the composer recursive: deep nesting ([[[[…, "- - - …") would
  // overflow the stack (a RangeError, or a V8 abort while it compiles a regular expression), so
  // the depth is bounded on the parse tree before anything is composed.
  if (obviouslyTooDeep(source, MAX_DEPTH)) return { ok: false, reason: TOO_DEEP };
  const tokens = parseLexemes(lexemes);
  if (cstDepthExceeds(tokens, MAX_DEPTH)) return { ok: false, reason: TOO_DEEP };
  const splitKey = implicitKeyAcrossLines(tokens, source);
  if (splitKey !== undefined) return { ok: false, reason: splitKey };
  // parseDocument() would silently drop a second document ("--- " with a trailing space, or
  // "--- key: value", does not close the frontmatter but starts one); PyYAML refuses the stream.
  const all = Array.from(new Composer(options).compose(tokens));
  if (all.length > 1) return { ok: false, reason: 'the frontmatter holds more than one YAML document (a "---" marker line inside it)' };
  const doc = all.length === 1 ? all[0]! : parseDocument(source, options);
  if (doc.errors.length > 0) return { ok: false, reason: doc.errors[0]!.message.split('\n')[0]! };
  if (doc.warnings.length > 0) return { ok: false, reason: doc.warnings[0]!.message.split('\n')[0]! };
  let problem: string | undefined;
  let depth = 0;
  visit(doc, {
    Alias() {
      problem ??= 'YAML aliases are not allowed';
      return visit.BREAK;
    },
    Node(_, node) {
      if (node.anchor) {
        problem ??= `YAML anchor &${node.anchor} is not allowed`;
        return visit.BREAK;
      }
      if (node.tag && !ALLOWED_TAGS.has(node.tag)) {
        problem ??= `YAML tag ${node.tag} is not allowed (only plain scalars, mappings and sequences)`;
        return visit.BREAK;
      }
      // Checked here, not in a Map visitor: yaml calls only the most specific one.
      const duplicate = isMap(node) ? duplicateKey(node) : undefined;
      if (duplicate !== undefined) {
        problem ??= `Map keys must be unique (the key ${JSON.stringify(duplicate)} appears twice)`;
        return visit.BREAK;
      }
      return undefined;
    },
    Pair(_, pair) {
      if (isNode(pair.key) && !isScalar(pair.key)) {
        problem ??= 'complex (non-scalar) mapping keys are not allowed';
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (problem) return { ok: false, reason: problem };
  const data: unknown = doc.toJS({ maxAliasCount: 0 });
  depth = measureDepth(data);
  if (depth > MAX_DEPTH) return { ok: false, reason: TOO_DEEP };
  return { ok: true, doc, data };
}

/**
 * The first key of `map` that an earlier key equals, found with a Set (linear; yaml's own
 * uniqueKeys check compares each key with every earlier one). With stringKeys every key is a
 * string scalar (other keys are errors), so equal values are exactly what yaml calls duplicates.
 */
function duplicateKey(map: YAMLMap): unknown {
  const seen = new Set<unknown>();
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

/** Deepest nesting of mappings and sequences a frontmatter may have (the root mapping is 1). */
const MAX_DEPTH = 100;
const TOO_DEEP = `frontmatter nesting is too deep (more than ${MAX_DEPTH} levels of mappings and sequences)`;

/**
 * A fast exit for hostile nesting, before the parser (which takes ~18 µs a character on deeply
 * nested input: 17 s for 1 MiB of "["). Only text with more than `max` "[", "{" or "- " can nest
 * that deep on one line; for it, the lexer's tokens are read until more than `max` flow
 * collections are open, or more than `max` block indicators ("- ", "? ") follow each other on one
 * line — each of them opens a nested collection (or is a syntax error). `false` means "not
 * obviously": the parse tree is still measured ({@link cstDepthExceeds}).
 */
function obviouslyTooDeep(source: string, max: number): boolean {
  let opens = 0;
  let indicators = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) opens++;
    else if ((c === 0x2d || c === 0x3f) && source.charCodeAt(i + 1) === 0x20) indicators++;
  }
  if (opens <= max && indicators <= max) return false;
  let flow = 0;
  let run = 0;
  for (const token of new Lexer().lex(source)) {
    if (token === '[' || token === '{') {
      run = 0;
      if (++flow > max) return true;
    } else if (token === ']' || token === '}') {
      run = 0;
      flow = Math.max(0, flow - 1);
    } else if ((token === '-' || token === '?') && flow === 0) {
      if (++run > max) return true;
    } else if (!/^ +$/.test(token)) run = 0;
  }
  return false;
}

/**
 * Whether the collections of a CST nest deeper than `max`, walked with an explicit stack (the
 * input may be nested far deeper than the call stack allows). Keys count like values, so the
 * depth is never below the depth of the data the document composes to.
 */
export function cstDepthExceeds(tokens: readonly CST.Token[], max: number): boolean {
  const stack: [unknown, number][] = tokens.map((t) => [t, 0]);
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    if (token === null || typeof token !== 'object') continue;
    const t = token as { type?: string; value?: unknown; items?: readonly { key?: unknown; value?: unknown }[] };
    if (t.type === 'document') {
      stack.push([t.value, depth]);
      continue;
    }
    if (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection') continue;
    const inner = depth + 1;
    if (inner > max) return true;
    for (const item of t.items ?? []) {
      if (item.key) stack.push([item.key, inner]);
      if (item.value) stack.push([item.value, inner]);
    }
  }
  return false;
}

/**
 * Why a mapping key without `?` runs onto another line before its `:` (`a\n : 1` in a block
 * mapping, `{a\n: 1}` or `{a b\n c: 1}` in a flow one), or `undefined`. The yaml library reads
 * such a key; PyYAML (and the YAML specs) allow an implicit key on one line only, so the reference
 * validator and SAG refuse the block. Walked with an explicit stack, as {@link cstDepthExceeds}.
 */
function implicitKeyAcrossLines(tokens: readonly CST.Token[], source: string): string | undefined {
  const stack: unknown[] = [...tokens];
  while (stack.length > 0) {
    const token = stack.pop();
    if (token === null || typeof token !== 'object') continue;
    const t = token as { type?: string; value?: unknown; items?: readonly CST.CollectionItem[] };
    if (t.type === 'document') {
      stack.push(t.value);
      continue;
    }
    if (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection') continue;
    for (const item of t.items ?? []) {
      const indicator = item.sep?.find((s) => s.type === 'map-value-ind');
      const explicit = item.start.some((s) => s.type === 'explicit-key-ind');
      if (item.key && indicator !== undefined && !explicit) {
        const keyText = source.slice(item.key.offset, indicator.offset);
        if (/[\r\n]/.test(keyText)) {
          return `the mapping key at line ${lineOf(source, item.key.offset)} runs onto the next line before its ":" (PyYAML reads a key without "?" on one line only)`;
        }
      }
      if (item.key) stack.push(item.key);
      if (item.value) stack.push(item.value);
    }
  }
  return undefined;
}

function measureDepth(v: unknown, d = 0): number {
  if (d > MAX_DEPTH) return d;
  if (Array.isArray(v)) return v.reduce((m: number, x) => Math.max(m, measureDepth(x, d + 1)), d + 1);
  if (v !== null && typeof v === 'object') return Object.values(v).reduce((m: number, x) => Math.max(m, measureDepth(x, d + 1)), d + 1);
  return d;
}

/**
 * Parses a frontmatter block with the safe rules OCTX requires: no anchors or aliases, no
 * duplicate keys, no complex keys, only str/int/float/bool/null/map/seq tags, no characters
 * PyYAML refuses, depth ≤ 100, and a mapping (or empty) at the root. The block is read as YAML
 * 1.2 (our data), and every scalar is typed again as PyYAML (YAML 1.1, the reference reader)
 * types it (`pyyaml-reading.ts`): a block PyYAML would read with another structure (a raw
 * U+0085/U+2028/U+2029, a tab outside quotes), a value YAML 1.2 reads as a number, boolean or
 * null that PyYAML reads otherwise, and an integer beyond 2^53 − 1 are refused; plain strings
 * PyYAML types otherwise (`date: 2024-01-01`) are listed in `retyped`. A block of more than
 * `maxBytes` UTF-8 bytes is refused unparsed (`tooLarge`), and so is one of more than `maxNodes`
 * YAML nodes (`tooComplex`), counted on the lexer's tokens: time and memory are then linear in
 * the block and bounded by the two limits. Never throws: an error of the yaml library is a reason.
 *
 * @param bounds the byte and node bounds; a number is `maxBytes` alone (the node bound defaults)
 */
export function parseFrontmatter(source: string, bounds: number | FrontmatterBounds = {}): ParseResult {
  const { maxBytes = DEFAULT_ARCHIVE_LIMITS.maxFrontmatterBytes, maxNodes = DEFAULT_ARCHIVE_LIMITS.maxFrontmatterNodes } =
    typeof bounds === 'number' ? { maxBytes: bounds } : bounds;
  // A YAML parser needs tens of times its input: the size is checked before anything else.
  const tooLarge = frontmatterSizeProblem(source, maxBytes);
  if (tooLarge !== undefined) return { ok: false, reason: tooLarge, tooLarge: true };
  if (NON_PRINTABLE.test(source)) return { ok: false, reason: 'frontmatter contains a control or non-printable character' };
  if (!source.isWellFormed()) return { ok: false, reason: 'frontmatter contains a lone UTF-16 surrogate' };
  const lineBreaks = pyyamlLineBreakProblem(source);
  if (lineBreaks !== undefined) return { ok: false, reason: lineBreaks };
  // The plainest blocks (most of them) are read without the yaml library: same result. The empty
  // block (`---` then `---`, which the folder loader gives a page without one) is the yaml
  // library's empty mapping of no nodes (PyYAML reads None there: the simple reader, which
  // promises PyYAML's reading too, declines it).
  const simple = source.length === 0 ? EMPTY_BLOCK : readSimpleFrontmatter(source);
  if (simple !== undefined && simple.nodes <= maxNodes) return { ok: true, value: simpleValue(source, simple) };
  return parseWithYaml(source, maxNodes);
}

/**
 * The parsed form of a block {@link readSimpleFrontmatter} read: its data is the same under YAML
 * 1.2 and PyYAML (nothing `retyped`), and the yaml `document` (wanted only to insert a missing
 * `document_id`) is parsed the first time it is asked for.
 */
const NONE: readonly RetypedScalar[] = [];

/** What the yaml library reads in an empty block (see {@link parseFrontmatter}); its data is fresh per call. */
const EMPTY_BLOCK = {
  get data(): Record<string, never> {
    return {};
  },
  nodes: 0,
} as const;

function simpleValue(source: string, simple: SimpleFrontmatter): ParsedFrontmatter {
  let document: Document.Parsed | undefined;
  return {
    data: simple.data,
    retyped: NONE,
    nodes: simple.nodes,
    get document(): Document.Parsed {
      if (document === undefined) {
        const full = parseWithYaml(source, Number.MAX_SAFE_INTEGER);
        if (!full.ok) throw new Error(`unreachable: a simple frontmatter block failed the full parse: ${full.reason}`);
        document = full.value.document;
      }
      return document;
    },
  };
}

/**
 * {@link parseFrontmatter} with the yaml library, after its size and character checks: every
 * safe-YAML rule, the comparison with PyYAML's reading, the node bound. Exported for the
 * differential test of `simple-frontmatter.ts`. Never throws.
 */
export function parseWithYaml(source: string, maxNodes: number): ParseResult {
  try {
    return parseWithYamlUnguarded(source, maxNodes);
  } catch (e) {
    // The yaml library has thrown on input its parse accepted (a merge key's value, once): any
    // such failure is a refusal of the block, never an untyped error for the caller.
    return { ok: false, reason: `the YAML parser failed on it: ${(e as Error).message.split('\n')[0]}` };
  }
}

function parseWithYamlUnguarded(source: string, maxNodes: number): ParseResult {
  // Hostile nesting is named as such (it is also refused, fast, by the parse below).
  if (obviouslyTooDeep(source, MAX_DEPTH)) return { ok: false, reason: TOO_DEEP };
  // Each composed node costs ~1.7 KB: the count is bounded before the parser builds its tree.
  const { nodes, lexemes } = lexCounted(source, maxNodes);
  if (lexemes === undefined) {
    return { ok: false, tooComplex: true, reason: `the frontmatter block has more than ${maxNodes} YAML nodes (maxFrontmatterNodes); keep long lists and many keys in the body` };
  }
  const textProblem = pyyamlTextProblem(source, lexemes);
  if (textProblem !== undefined) return { ok: false, reason: textProblem };
  const modern = parseStrict(source, lexemes);
  if (!modern.ok) return modern;
  const isEmpty = modern.data === null || modern.data === undefined;
  if (!isEmpty && (!isMap(modern.doc.contents) || typeof modern.data !== 'object' || Array.isArray(modern.data))) {
    return { ok: false, reason: 'frontmatter is not a mapping' };
  }
  const pyyaml = comparePyYaml(modern.doc);
  if (pyyaml.refused !== undefined) return { ok: false, reason: pyyaml.refused };
  const asRecord = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  return { ok: true, value: { data: asRecord(modern.data), document: modern.doc, retyped: pyyaml.retyped.length === 0 ? NONE : pyyaml.retyped, nodes } };
}
