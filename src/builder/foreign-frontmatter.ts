/**
 * TOML (`+++`, Hugo) and JSON (`{ … }`, Hugo) frontmatter, rewritten as the YAML frontmatter an
 * OKF document needs. The keys are carried as they are (in their order), the body after the
 * block is kept byte for byte, and a block that does not parse is refused: it never ends up as
 * body text.
 */
import { parse as parseToml, TomlDate } from 'smol-toml';
import { OctxError } from '../model/errors.js';
import { findUnsafeIntegerLiteral, parseStrictJson } from '../read/strict-json.js';
import { yamlQuote } from '../knowledge/document.js';

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

/** A number that YAML 1.2 core and YAML 1.1 (PyYAML) both read back as the same number. */
function yamlNumber(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  const s = String(n);
  // YAML 1.1 floats need a dot: "1e+21" would be a string there.
  return s.includes('e') && !s.includes('.') ? s.replace('e', '.0e') : s;
}

function scalar(value: unknown, path: string, key: string): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string') return yamlQuote(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return yamlNumber(value);
  // Quoted: an unquoted 1979-05-27 is a date to PyYAML and a string to YAML 1.2 readers.
  if (value instanceof TomlDate) return yamlQuote(tomlDateText(value));
  if (typeof value === 'bigint') refuse(path, `frontmatter key ${key}: integer ${value} cannot be carried exactly`);
  return undefined;
}

/** Flow style (`["a", 1, {"b": true}]`) for arrays and the tables inside them. */
function flow(value: unknown, path: string, key: string): string {
  const s = scalar(value, path, key);
  if (s !== undefined) return s;
  if (Array.isArray(value)) return `[${value.map((v) => flow(v, path, key)).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${yamlQuote(k)}: ${flow(v, path, `${key}.${k}`)}`).join(', ')}}`;
}

/** Block style for mappings (so an `octx` table stays a block mapping the builder can complete). */
function block(map: Record<string, unknown>, indent: string, path: string, prefix: string, out: string[]): void {
  for (const [k, v] of Object.entries(map)) {
    const key = `${indent}${yamlKey(k)}:`;
    const name = prefix === '' ? k : `${prefix}.${k}`;
    const s = scalar(v, path, name);
    if (s !== undefined) out.push(`${key} ${s}`);
    else if (Array.isArray(v)) out.push(`${key} ${flow(v, path, name)}`);
    else if (Object.keys(v as object).length === 0) out.push(`${key} {}`);
    else {
      out.push(key);
      block(v as Record<string, unknown>, `${indent}  `, path, name, out);
    }
  }
}

/** The YAML block (without fences, each line ending in `newline`) for a parsed mapping. */
export function yamlBlock(data: Record<string, unknown>, newline: string, path = ''): string {
  const lines: string[] = [];
  block(data, '', path, '', lines);
  return lines.map((l) => `${l}${newline}`).join('');
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
  let data: Record<string, unknown>;
  const { source, body, newline } = syntax === 'toml' ? splitToml(text, path) : splitJson(text, path);
  if (syntax === 'toml') {
    try {
      data = parseToml(source, { unsafeKeyBehaviour: 'throw', maxDepth: 100 });
    } catch (e) {
      refuse(path, `TOML frontmatter (+++) does not parse: ${(e as Error).message.split('\n')[0]}`);
    }
  } else {
    const parsed = parseStrictJson(source);
    if (!parsed.ok) refuse(path, `JSON frontmatter does not parse: ${parsed.message}`);
    if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) refuse(path, 'JSON frontmatter must be an object');
    if (parsed.nonFinite !== undefined) refuse(path, `JSON frontmatter: the number at ${parsed.nonFinite} is too large`);
    // JSON.parse rounds such an integer silently; TOML's parser refuses it, and so does this.
    const unsafe = findUnsafeIntegerLiteral(source);
    if (unsafe !== undefined) refuse(path, `JSON frontmatter: integer ${unsafe} cannot be carried exactly (beyond 2^53 - 1); write it as a string`);
    data = parsed.value as Record<string, unknown>;
  }
  return { syntax, text: `---${newline}${yamlBlock(data, newline, path)}---${newline}${body}`, body };
}
