/**
 * TOML (`+++`, Hugo) and JSON (`{ … }`, Hugo) frontmatter, rewritten as the YAML frontmatter an
 * OKF document needs. The keys are carried as they are (in their order), the body after the
 * block is kept byte for byte, and a block that does not parse is refused: it never ends up as
 * body text.
 */
import { parse as parseToml, TomlDate } from 'smol-toml';
import { OctxError } from '../model/errors.js';
import { findUnsafeIntegerLiteral, parseStrictJson } from '../read/strict-json.js';
import { yamlQuote } from '../knowledge/yaml-quote.js';
import { readOrderedJson, type OrderedJson } from './ordered-json.js';

/** The frontmatter syntax a Markdown file opens with. */
export type FrontmatterSyntax = 'yaml' | 'toml' | 'json' | 'none';

/** Result of {@link toYamlFrontmatter}. */
export interface YamlFrontmatterText {
  /** The syntax the file's block was written in. */
  readonly syntax: FrontmatterSyntax;
  /** The text with a YAML block in place of a TOML/JSON one (the same string for `yaml`/`none`). */
  readonly text: string;
  /** The body after the block, exactly as in the file (the whole text when there is no block). */
  readonly body?: string;
}

// A JSON block opens with "{" and then a key or "}": Hugo shortcodes ("{{<") and Liquid tags
// ("{%") at the top of a page are body text, not frontmatter.
const JSON_OPEN = /^\{[ \t\r\n]*["}]/;

/**
 * The syntax a (BOM-stripped) Markdown text's frontmatter block is written in: `---` YAML,
 * `+++` TOML, a `{ … }` JSON object, or none.
 */
export function frontmatterSyntax(text: string): FrontmatterSyntax {
  if (/^---\r?\n/.test(text)) return 'yaml';
  if (/^\+\+\+[ \t]*\r?\n/.test(text)) return 'toml';
  if (JSON_OPEN.test(text)) return 'json';
  return 'none';
}

function refuse(path: string, message: string): never {
  throw OctxError.of({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, field: 'frontmatter', message });
}

/** The TOML block between the `+++` fence lines, and the body after the closing one. */
function splitToml(text: string, path: string): { source: string; body: string; newline: string } {
  const open = /^\+\+\+[ \t]*(\r?\n)/.exec(text)!;
  const close = /^\+\+\+[ \t]*(?:\r?\n|$)/m;
  const rest = text.slice(open[0].length);
  const m = close.exec(rest);
  if (!m) refuse(path, 'TOML frontmatter opened with +++ is never closed (a line +++ ends it)');
  return { source: rest.slice(0, m.index), body: rest.slice(m.index + m[0].length), newline: open[1]! };
}

/** The JSON object at the top of the text (strings and escapes respected), and the body after its line. */
function splitJson(text: string, path: string): { source: string; body: string; newline: string } {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) {
        const after = /^[ \t]*(\r?\n|$)/.exec(text.slice(i + 1));
        if (!after) refuse(path, 'JSON frontmatter must end with "}" on its own line, before the body');
        const newline = /\r?\n/.exec(text)?.[0] ?? '\n';
        return { source: text.slice(0, i + 1), body: text.slice(i + 1 + after[0].length), newline };
      }
    }
  }
  return refuse(path, 'JSON frontmatter opened with { is never closed');
}

// Keys written plain: identifiers that no YAML 1.1 or 1.2 reader types as anything but a string.
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const YAML11_WORDS = /^(?:y|n|yes|no|on|off|true|false|null)$/i;

function yamlKey(key: string): string {
  return PLAIN_KEY.test(key) && !YAML11_WORDS.test(key) ? key : yamlQuote(key);
}

/**
 * A TOML date or time as a string: its ISO 8601 form, without zero milliseconds the TOML text did
 * not have to write (`1979-05-27`, `1979-05-27T07:32:00Z`, `07:32:00`).
 */
export function tomlDateText(date: TomlDate): string {
  return date.toISOString().replace(/\.000(?=Z|[+-]\d\d:\d\d|$)/, '');
}

/** A converted value: integers and floats apart (Python's `1` and `1.0`), mappings in their order. */
type Value =
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'int'; readonly v: bigint }
  | { readonly t: 'float'; readonly v: number }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'null' }
  | { readonly t: 'seq'; readonly v: readonly Value[] }
  | { readonly t: 'map'; readonly v: readonly (readonly [string, Value])[] };

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function integer(n: bigint, path: string, where: string, syntax: string): Value {
  if (n > MAX_SAFE || n < -MAX_SAFE) refuse(path, `${syntax} frontmatter: ${where}: integer ${n} cannot be carried exactly (beyond 2^53 - 1); write it as a string`);
  return { t: 'int', v: n };
}

/** An array index as JavaScript orders object keys: such keys come first, whatever the text's order. */
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

/** The parsed TOML (integers as bigint) as a {@link Value}. */
function fromToml(value: unknown, path: string, where: string): Value {
  if (typeof value === 'string') return { t: 'str', v: value };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (typeof value === 'bigint') return integer(value, path, where, 'TOML');
  if (typeof value === 'number') return { t: 'float', v: value };
  if (value instanceof TomlDate) return { t: 'str', v: tomlDateText(value) };
  if (Array.isArray(value)) return { t: 'seq', v: value.map((x, i) => fromToml(x, path, `${where}[${i}]`)) };
  const keys = Object.keys(value as object);
  const index = keys.find((k) => INDEX_KEY.test(k));
  if (index !== undefined && keys.length > 1) {
    refuse(
      path,
      `TOML frontmatter: ${where === '' ? 'the top level' : where} has the key ${JSON.stringify(index)} among others, and its order cannot be read back from the TOML parser; rename it (e.g. "n${index}")`,
    );
  }
  return { t: 'map', v: keys.map((k) => [k, fromToml((value as Record<string, unknown>)[k], path, where === '' ? k : `${where}.${k}`)] as const) };
}

const JSON_INT = /^-?[0-9]+$/;

function fromJson(value: OrderedJson, path: string, where: string): Value {
  if (value === null) return { t: 'null' };
  if (typeof value === 'string') return { t: 'str', v: value };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (Array.isArray(value)) return { t: 'seq', v: (value as readonly OrderedJson[]).map((x, i) => fromJson(x, path, `${where}[${i}]`)) };
  if ('number' in value) return JSON_INT.test(value.number) ? integer(BigInt(value.number), path, where, 'JSON') : { t: 'float', v: Number(value.number) };
  const { entries } = value as { readonly entries: readonly (readonly [string, OrderedJson])[] };
  return { t: 'map', v: entries.map(([k, x]) => [k, fromJson(x, path, where === '' ? k : `${where}.${k}`)] as const) };
}

/** A float both YAML 1.2 core and PyYAML read back as this float (a dot, and a signed exponent, always). */
function yamlFloat(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  if (Object.is(n, -0)) return '-0.0';
  const s = String(n);
  if (s.includes('.')) return s;
  return s.includes('e') ? s.replace('e', '.0e') : `${s}.0`;
}

function scalar(value: Value): string | undefined {
  switch (value.t) {
    case 'null':
      return 'null';
    case 'str':
      return yamlQuote(value.v);
    case 'bool':
      return value.v ? 'true' : 'false';
    case 'int':
      return value.v.toString();
    case 'float':
      return yamlFloat(value.v);
    default:
      return undefined;
  }
}

/** Flow style (`["a", 1, {"b": true}]`) for arrays and the tables inside them. */
function flow(value: Value): string {
  const s = scalar(value);
  if (s !== undefined) return s;
  if (value.t === 'seq') return `[${value.v.map(flow).join(', ')}]`;
  return `{${(value as Extract<Value, { t: 'map' }>).v.map(([k, v]) => `${yamlQuote(k)}: ${flow(v)}`).join(', ')}}`;
}

/** Block style for mappings (so an `octx` table stays a block mapping the builder can complete). */
function block(map: Extract<Value, { t: 'map' }>, indent: string, out: string[]): void {
  for (const [k, v] of map.v) {
    const key = `${indent}${yamlKey(k)}:`;
    const s = scalar(v);
    if (s !== undefined) out.push(`${key} ${s}`);
    else if (v.t === 'seq') out.push(`${key} ${flow(v)}`);
    else if (v.t === 'map' && v.v.length === 0) out.push(`${key} {}`);
    else {
      out.push(key);
      block(v as Extract<Value, { t: 'map' }>, `${indent}  `, out);
    }
  }
}

function yamlText(map: Extract<Value, { t: 'map' }>, newline: string): string {
  const lines: string[] = [];
  block(map, '', lines);
  return lines.map((l) => `${l}${newline}`).join('');
}

/** The YAML block (without fences, each line ending in `newline`) for parsed TOML data (integers as bigint). */
export function yamlBlock(data: Record<string, unknown>, newline: string, path = ''): string {
  return yamlText(fromToml(data, path, '') as Extract<Value, { t: 'map' }>, newline);
}

// A TOML time with more than three fraction digits: the parser's dates hold milliseconds only.
const FINE_TIME = /[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{4,}(?:[Zz]|[-+][0-9]{2}:[0-9]{2})?/;

/** The first date-time literal of a TOML text (outside its strings and comments) finer than a millisecond. */
function fineTomlTime(source: string): string | undefined {
  let i = 0;
  let code = '';
  while (i < source.length) {
    const c = source[i]!;
    if (c === '#') {
      const nl = source.indexOf('\n', i);
      i = nl < 0 ? source.length : nl;
    } else if (c === '"' || c === "'") {
      const fence = source.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      let j = i + fence.length;
      while (j < source.length && !source.startsWith(fence, j)) j += c === '"' && source[j] === '\\' ? 2 : 1;
      // A closing fence may be followed by up to two more quotes that belong to the string.
      j += fence.length;
      while (fence.length === 3 && source[j] === c) j++;
      code += ' ';
      i = j;
    } else {
      code += c;
      i++;
    }
  }
  const m = FINE_TIME.exec(code);
  if (!m) return undefined;
  const start = code.lastIndexOf(' ', m.index) + 1;
  const end = code.slice(m.index).search(/[\s,\]}]|$/);
  return code.slice(start, m.index + end).replace(/^[^0-9]*=\s*/, '');
}

/**
 * Rewrites a TOML or JSON frontmatter block as YAML frontmatter (`---` fences, the keys in their
 * order, strings double-quoted, TOML dates as quoted ISO 8601 strings); the body after the block
 * is kept byte for byte. YAML frontmatter and text without a block come back unchanged.
 * @param path the document's package path, for errors
 * @throws OctxError `OCTX_DOCUMENT_FRONTMATTER` (field `frontmatter`) for a block that is not
 *   closed, does not parse, is not a table/object, or holds an integer JavaScript cannot carry
 */
export function toYamlFrontmatter(text: string, path: string): YamlFrontmatterText {
  const syntax = frontmatterSyntax(text);
  if (syntax === 'yaml' || syntax === 'none') return { syntax, text };
  let data: Value;
  const { source, body, newline } = syntax === 'toml' ? splitToml(text, path) : splitJson(text, path);
  if (syntax === 'toml') {
    let parsed: Record<string, unknown>;
    try {
      parsed = parseToml(source, { unsafeKeyBehaviour: 'throw', maxDepth: 100, integersAsBigInt: true });
    } catch (e) {
      refuse(path, `TOML frontmatter (+++) does not parse: ${(e as Error).message.split('\n')[0]}`);
    }
    const fine = fineTomlTime(source);
    if (fine !== undefined) refuse(path, `TOML frontmatter: the time ${fine} is finer than a millisecond, which the conversion cannot carry; write it as a string`);
    data = fromToml(parsed, path, '');
  } else {
    const parsed = parseStrictJson(source);
    if (!parsed.ok) refuse(path, `JSON frontmatter does not parse: ${parsed.message}`);
    if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) refuse(path, 'JSON frontmatter must be an object');
    if (parsed.nonFinite !== undefined) refuse(path, `JSON frontmatter: the number at ${parsed.nonFinite} is too large`);
    // JSON.parse rounds such an integer silently; TOML's parser refuses it, and so does this.
    const unsafe = findUnsafeIntegerLiteral(source);
    if (unsafe !== undefined) refuse(path, `JSON frontmatter: integer ${unsafe} cannot be carried exactly (beyond 2^53 - 1); write it as a string`);
    data = fromJson(readOrderedJson(source), path, '');
  }
  return { syntax, text: `---${newline}${yamlText(data as Extract<Value, { t: 'map' }>, newline)}---${newline}${body}`, body };
}
