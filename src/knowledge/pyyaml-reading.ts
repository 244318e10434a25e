/**
 * Where PyYAML (YAML 1.1, `safe_load`: the reference validator's and SAG's reader) reads a
 * frontmatter block differently from the YAML 1.2 reading the SDK works with, found on the parsed
 * YAML 1.2 document: every scalar (keys too) is typed again with PyYAML's resolvers and
 * constructors (`pyyaml-scalar.ts`) and the two values compared. A block with no difference reads
 * as the same data in both, so one reading serves both.
 *
 * The characters and tabs PyYAML reads differently from a YAML 1.2 parser are checked on the text
 * first ({@link pyyamlTextProblem}): those change the structure, not one value.
 */
import { isMap, isScalar, isSeq, Scalar, type Document, type Node } from 'yaml';
import { describePyYaml, pyyamlPlainScalar, pyyamlResolve, type PyYamlScalar } from './pyyaml-scalar.js';

/**
 * A plain scalar YAML 1.2 reads as a string and PyYAML as something else (`date: 2024-01-01` is a
 * date to PyYAML, `draft: yes` True, `<<` a merge key): written double-quoted, it is that string
 * for both. The builder quotes it; the validator reports it.
 */
export interface RetypedScalar {
  /** Where it is: `date`, `octx.document_id`, `tags[2]`, or `key "yes"` for a mapping key. */
  readonly where: string;
  /** The top-level key it belongs to (`date` for `date` and `key "date"`), for the document's checks. */
  readonly topKey: string;
  /** The string YAML 1.2 reads. */
  readonly text: string;
  /** What PyYAML reads instead. */
  readonly pyyaml: PyYamlScalar;
  /** Its offsets in the block: `[start, end)` of the scalar's source text. */
  readonly range: readonly [number, number];
}

/** The comparison of one block: `refused` when a difference cannot be fixed by quoting. */
export interface PyYamlComparison {
  readonly refused?: string;
  readonly retyped: readonly RetypedScalar[];
}

// Line breaks to YAML 1.1 (PyYAML) that YAML 1.2 reads as ordinary characters: a plain `type:
// <NEL>` is null to PyYAML and a one-character string to YAML 1.2, a quoted one folds, and one
// before "---" starts a new document for PyYAML.
// U+FEFF too: PyYAML skips it only as the stream's first character, a YAML 1.2 parser elsewhere
// as well, so a raw one shifts the columns the two see.
const YAML11_LINE_BREAKS = /[\u0085\u2028\u2029\ufeff]/;

/**
 * Why a block's text reads differently under PyYAML whatever its values, or `undefined`: a raw
 * U+0085/U+2028/U+2029 (escape it in a double-quoted string: `"\u2028"`), or a tab where PyYAML
 * allows none (it takes tabs only inside quoted and block scalars and comments; elsewhere its
 * scanner stops with "found character '\t' that cannot start any token").
 *
 * @param lexemes the yaml library's lexer tokens of `source` (control tokens included)
 */
export function pyyamlTextProblem(source: string, lexemes: readonly string[]): string | undefined {
  const breakAt = source.search(YAML11_LINE_BREAKS);
  if (breakAt >= 0) {
    const cp = source.charCodeAt(breakAt).toString(16).toUpperCase().padStart(4, '0');
    const what = cp === 'FEFF' ? 'a byte order mark PyYAML skips only at the start of the stream' : 'a line break to YAML 1.1 (PyYAML) and an ordinary character to YAML 1.2';
    return `frontmatter contains a raw U+${cp} (line ${lineOf(source, breakAt)}), ${what}; write it escaped in a double-quoted string ("\\u${cp.toLowerCase()}")`;
  }
  if (!source.includes('\t')) return undefined;
  let offset = 0;
  let blockHeader = false;
  let blockContent = false;
  for (const token of lexemes) {
    const c = token.charCodeAt(0);
    // The lexer's control tokens (document start, scalar marker, flow end, BOM) hold no text.
    if (token.length === 1 && (c === 0x02 || c === 0x1f || c === 0x18 || c === 0xfeff)) {
      if (c === 0x1f) blockContent = blockHeader;
      continue;
    }
    const allowed = blockContent || c === 0x22 || c === 0x27 || c === 0x23;
    if (!allowed && token.includes('\t')) {
      return `frontmatter has a tab outside a quoted string, a block scalar or a comment (line ${lineOf(source, offset + token.indexOf('\t'))}): PyYAML refuses it; use spaces`;
    }
    if (blockContent) blockHeader = false;
    blockContent = false;
    if (c === 0x7c || c === 0x3e) blockHeader = true;
    else if (!/^[ \n\r]*$/.test(token) && c !== 0x23) blockHeader = false;
    offset += token.length;
  }
  return undefined;
}

function lineOf(source: string, at: number): number {
  let line = 1;
  for (let i = source.indexOf('\n'); i >= 0 && i < at; i = source.indexOf('\n', i + 1)) line++;
  return line;
}

const YAML12_INT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;
const TAG = 'tag:yaml.org,2002:';

/** What PyYAML constructs for a scalar node (its style and explicit tag as the yaml library parsed them). */
function pyyamlOf(node: Scalar): PyYamlScalar | undefined {
  const text = typeof node.source === 'string' ? node.source : String(node.value);
  if (node.tag === undefined) return node.type === Scalar.PLAIN ? pyyamlPlainScalar(text) : { kind: 'str', value: text };
  switch (node.tag) {
    case `${TAG}str`:
      return { kind: 'str', value: text };
    case `${TAG}null`:
      return { kind: 'null' };
    // An explicit tag makes PyYAML run that constructor on any text (`!!int "0o17"` is Python's
    // int("0o17", 8)); only the texts its resolver would have typed the same way are taken.
    case `${TAG}bool`:
    case `${TAG}int`:
    case `${TAG}float`: {
      const resolved = pyyamlResolve(text);
      const wanted = node.tag.slice(TAG.length);
      if (resolved === wanted || (wanted === 'float' && resolved === 'int')) {
        const plain = pyyamlPlainScalar(text);
        return plain.kind === 'int' && wanted === 'float' ? { kind: 'float', value: Number(plain.value) } : plain;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** YAML 1.2's reading of a scalar node, in words. */
function describe12(value: unknown, int: boolean): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return `the ${int ? 'integer' : 'float'} ${String(value)}`;
  if (typeof value === 'boolean') return String(value);
  return value === null || value === undefined ? 'null' : typeof value;
}

/** Whether PyYAML's value is YAML 1.2's: same type (int and float apart) and same value. */
function sameValue(value: unknown, int: boolean, py: PyYamlScalar): boolean {
  if (typeof value === 'string') return py.kind === 'str' && py.value === value;
  if (typeof value === 'number') {
    if (int) return py.kind === 'int' && Number.isSafeInteger(value) && BigInt(value) === py.value;
    return py.kind === 'float' && (Object.is(py.value, value) || (Number.isNaN(py.value) && Number.isNaN(value)) || (py.value === 0 && value === 0 && Object.is(py.value, value)));
  }
  if (typeof value === 'boolean') return py.kind === 'bool' && py.value === value;
  if (value === null || value === undefined) return py.kind === 'null';
  return false;
}

/**
 * Compares every scalar of a parsed YAML 1.2 document (keys are strings there: the parse uses
 * `stringKeys`) with PyYAML's reading of it. Returns the plain string scalars PyYAML types
 * otherwise (fixable by quoting), or why the block is refused: a value YAML 1.2 reads as a number,
 * boolean or null that PyYAML reads differently, an integer beyond 2^53 − 1 (no JavaScript number
 * carries it exactly), or an explicit tag PyYAML would construct differently.
 */
export function comparePyYaml(document: Document.Parsed): PyYamlComparison {
  const retyped: RetypedScalar[] = [];
  let refused: string | undefined;
  const scalar = (node: Scalar, where: string, topKey: string, isKey: boolean, flow: boolean): void => {
    if (refused !== undefined) return;
    // Inside [...] and {...}, PyYAML ends a plain scalar at "?" and starts none with ":" (YAML
    // 1.2 allows both): the collection would parse differently, or not at all.
    if (flow && node.type === Scalar.PLAIN && typeof node.source === 'string' && (node.source.includes('?') || node.source.startsWith(':'))) {
      refused = `${where}: the plain value ${JSON.stringify(node.source)} inside a flow collection ([…] or {…}) holds "?" or starts with ":", which PyYAML (YAML 1.1) parses otherwise; quote it`;
      return;
    }
    const value: unknown = isKey ? String(node.value) : node.value;
    const int = node.tag === `${TAG}int` || (node.tag === undefined && typeof value === 'number' && YAML12_INT.test(String(node.source)));
    if (typeof value === 'number' && int && !Number.isSafeInteger(value)) {
      refused = `${where}: the integer ${String(node.source)} is beyond 2^53 - 1 and cannot be carried exactly; quote it to keep it as text`;
      return;
    }
    // PyYAML's flatten_mapping turns a `=` key (tag:yaml.org,2002:value) into the string "=".
    const py = isKey && node.type === Scalar.PLAIN && node.tag === undefined && node.source === '=' ? ({ kind: 'str', value: '=' } as const) : pyyamlOf(node);
    if (py !== undefined && sameValue(value, int, py)) return;
    const pyText = py === undefined ? 'something else (an explicit tag on a value it would not type that way)' : describePyYaml(py);
    if (typeof value === 'string' && node.type === Scalar.PLAIN && node.tag === undefined && py !== undefined && node.range) {
      retyped.push({ where, topKey, text: value, pyyaml: py, range: [node.range[0], node.range[1]] });
      return;
    }
    refused = `${where}: YAML 1.2 reads ${describe12(value, int)} and PyYAML (YAML 1.1, the reference reader) reads ${pyText}; quote it, or write it as a value both read alike`;
  };
  const walk = (node: Node | null | undefined, where: string, topKey: string, inFlow: boolean): void => {
    if (refused !== undefined || node === null || node === undefined) return;
    if (isScalar(node)) scalar(node, where, topKey, false, inFlow);
    else if (isMap(node)) {
      const flow = inFlow || node.flow === true;
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : '';
        const top = where === '' ? key : topKey;
        if (isScalar(pair.key)) scalar(pair.key, `${where === '' ? '' : `${where}: `}key ${JSON.stringify(key)}`, top, true, flow);
        walk(pair.value as Node | null, where === '' ? key : `${where}.${key}`, top, flow);
      }
    } else if (isSeq(node)) {
      const flow = inFlow || node.flow === true;
      node.items.forEach((item, i) => walk(item as Node | null, `${where}[${i}]`, topKey, flow));
    }
  };
  walk(document.contents, '', '', false);
  return refused !== undefined ? { refused, retyped } : { retyped };
}

/** The message for a retyped scalar: both readings and the fix. */
export function describeRetyped(r: RetypedScalar): string {
  return `${r.where}: YAML 1.2 reads the string ${JSON.stringify(r.text)} and PyYAML (YAML 1.1, the reference reader) reads ${describePyYaml(r.pyyaml)}; quote it so every reader reads the string`;
}

/**
 * The block with each retyped scalar written as a double-quoted string (`quote` renders it), so
 * PyYAML reads the string YAML 1.2 reads; everything else is kept byte for byte.
 */
export function quoteRetyped(source: string, retyped: readonly RetypedScalar[], quote: (text: string) => string): string {
  let out = source;
  for (const r of [...retyped].sort((a, b) => b.range[0] - a.range[0])) out = `${out.slice(0, r.range[0])}${quote(r.text)}${out.slice(r.range[1])}`;
  return out;
}
