/**
 * Input templates: how a structure record becomes the text an embedder sees. The template is
 * a pipeline setting, so it belongs in `vectors/config.json` as `input_template` and takes part
 * in the fingerprint.
 */
import { OctxError } from '../model/errors.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../model/limits.js';
import type { VectorTarget } from './targets.js';

/**
 * Templates used when a config has no `input_template`: chunks `{text}`, events
 * `{title}\n\n{content}`, entities `{name}`.
 *
 * A default is still a pipeline setting. A consumer cannot know which defaults some producer
 * used, so a config without `input_template` does not describe its pipeline completely and
 * its fingerprint is not honest. An embedder's config should therefore always carry
 * `input_template` explicitly (these values, or its own); `HashingTextEmbedder` always does.
 */
export const DEFAULT_INPUT_TEMPLATES: Readonly<Record<VectorTarget, string>> = Object.freeze({
  chunks: '{text}',
  events: '{title}\n\n{content}',
  entities: '{name}',
});

/** A parsed template: literal text and field names, alternating (`parts[0]` is literal). */
interface CompiledTemplate {
  readonly literals: readonly string[];
  readonly fields: readonly string[];
  /** UTF-8 bytes of all literals together. */
  readonly literalBytes: number;
  /** Each field name once, in order of first use, and how many placeholders name it. */
  readonly distinct: readonly string[];
  readonly uses: readonly number[];
  /** For each placeholder, its field's index in `distinct`. */
  readonly slots: readonly number[];
}

/** A template compiled once and applied to many records (`compileInputTemplate` makes one). */
export type InputTemplateRenderer = (record: object, recordId: string) => string;

const cache = new Map<string, CompiledTemplate>();
const CACHE_LIMIT = 64;

/**
 * Parses `{field}` placeholders; `{{` and `}}` are literal braces. A field name is any non-empty
 * run of characters other than braces. An unmatched brace is an error, not literal text, so a
 * typo cannot silently change what gets embedded.
 */
function compile(template: string): CompiledTemplate {
  const literals: string[] = [];
  const fields: string[] = [];
  let literal = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i];
    if (c === '{') {
      if (template[i + 1] === '{') {
        literal += '{';
        i += 2;
        continue;
      }
      const close = template.indexOf('}', i + 1);
      const open = template.indexOf('{', i + 1);
      if (close < 0 || (open >= 0 && open < close)) throw templateSyntax(template, `unclosed "{" at offset ${i}`);
      const name = template.slice(i + 1, close);
      if (name === '') throw templateSyntax(template, `empty placeholder "{}" at offset ${i}`);
      literals.push(literal);
      fields.push(name);
      literal = '';
      i = close + 1;
    } else if (c === '}') {
      if (template[i + 1] !== '}') throw templateSyntax(template, `unmatched "}" at offset ${i} (write "}}" for a literal brace)`);
      literal += '}';
      i += 2;
    } else {
      literal += c;
      i += 1;
    }
  }
  literals.push(literal);
  const distinct: string[] = [];
  const uses: number[] = [];
  const slots = fields.map((f) => {
    let k = distinct.indexOf(f);
    if (k < 0) k = distinct.push(f) - 1;
    uses[k] = (uses[k] ?? 0) + 1;
    return k;
  });
  const literalBytes = literals.reduce((n, l) => n + Buffer.byteLength(l, 'utf8'), 0);
  return { literals, fields, literalBytes, distinct, uses, slots };
}

function templateSyntax(template: string, detail: string): OctxError {
  return OctxError.of({ code: 'OCTX_VECTOR_CONFIG_INVALID', field: 'input_template', message: `input template ${JSON.stringify(template)}: ${detail}` });
}

function compiled(template: string): CompiledTemplate {
  let c = cache.get(template);
  if (c === undefined) {
    c = compile(template);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(template, c);
  }
  return c;
}

function fieldText(record: object, field: string, recordId: string): string {
  const value = Object.hasOwn(record, field) ? (record as Readonly<Record<string, unknown>>)[field] : undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  const what = value === undefined ? 'is missing' : value === null ? 'is null' : 'is not a string or finite number';
  throw OctxError.of({
    code: 'OCTX_TEMPLATE_FIELD_MISSING',
    recordId,
    field,
    message: `input template needs field "${field}", which ${what} on this record`,
  });
}

/**
 * Compiles `template` once for many records. The renderer measures a record's input before it
 * builds it (each field's text once, times the placeholders naming it): a template of many
 * placeholders multiplies a record's text, and an input above `maxBytes` UTF-8 bytes is refused
 * instead of built.
 * @param maxBytes largest rendered input (default `DEFAULT_ARCHIVE_LIMITS.maxRenderedInputBytes`)
 * @throws OctxError `OCTX_VECTOR_CONFIG_INVALID` (field `input_template`) on a syntax error; the
 *   renderer throws `OCTX_TEMPLATE_FIELD_MISSING` (see {@link renderInputTemplate}) and
 *   `OCTX_RESOURCE_LIMIT` (with the record id, field `input_template`) for an input above `maxBytes`.
 */
export function compileInputTemplate(template: string, maxBytes: number = DEFAULT_ARCHIVE_LIMITS.maxRenderedInputBytes): InputTemplateRenderer {
  const { literals, fields, literalBytes, distinct, uses, slots } = compiled(template);
  return (record, recordId) => {
    const texts = distinct.map((f) => fieldText(record, f, recordId));
    // Each field's bytes once (linear in the record), times the placeholders naming it.
    let bytes = literalBytes;
    for (let k = 0; k < texts.length; k++) bytes += uses[k]! * Buffer.byteLength(texts[k]!, 'utf8');
    if (bytes > maxBytes) {
      throw OctxError.of({
        code: 'OCTX_RESOURCE_LIMIT',
        recordId,
        field: 'input_template',
        message: `the input of ${recordId} rendered with its input_template (${fields.length} placeholder(s)) would be ${bytes} bytes, above maxRenderedInputBytes ${maxBytes}; it was not built`,
      });
    }
    let out = literals[0] ?? '';
    for (let i = 0; i < slots.length; i++) out += texts[slots[i]!]! + (literals[i + 1] ?? '');
    return out;
  };
}

/**
 * Renders `template` for one record (any object: a JSONL record, an interface-typed value):
 * each `{field}` becomes the record's own (not inherited) field — a string as-is, a finite number or a boolean via `String()`; `{{` and `}}` give
 * literal braces.
 * @throws OctxError `OCTX_TEMPLATE_FIELD_MISSING` (with `recordId` and `field`) when a named field
 *   is missing, null, non-finite or not a scalar — never an empty string in its place;
 *   `OCTX_VECTOR_CONFIG_INVALID` on a template syntax error; `OCTX_RESOURCE_LIMIT` (with
 *   `recordId`, field `input_template`) when the input would be above the default
 *   `limits.maxRenderedInputBytes` (it is measured first, never built).
 */
export function renderInputTemplate(template: string, record: object, recordId: string): string {
  return compileInputTemplate(template)(record, recordId);
}

/**
 * The template for `target` from a config's `input_template`: a string applies to every target;
 * an object must have a string for `target`; when `input_template` is absent the
 * {@link DEFAULT_INPUT_TEMPLATES} entry is used (see there why configs should not rely on it).
 * @throws OctxError `OCTX_VECTOR_CONFIG_INVALID` when `input_template` has the wrong shape or lacks
 *   the target (a silent fallback would make the fingerprint lie).
 */
export function templateForTarget(config: object, target: VectorTarget): string {
  const t = Object.hasOwn(config, 'input_template') ? (config as { readonly input_template?: unknown }).input_template : undefined;
  if (t === undefined) return DEFAULT_INPUT_TEMPLATES[target];
  if (typeof t === 'string') return t;
  if (typeof t === 'object' && t !== null && !Array.isArray(t)) {
    const own = Object.hasOwn(t, target) ? (t as Record<string, unknown>)[target] : undefined;
    if (typeof own === 'string') return own;
    throw OctxError.of({
      code: 'OCTX_VECTOR_CONFIG_INVALID',
      field: `input_template.${target}`,
      message: own === undefined ? `input_template has no template for target "${target}"` : `input_template.${target} must be a string`,
    });
  }
  throw OctxError.of({ code: 'OCTX_VECTOR_CONFIG_INVALID', field: 'input_template', message: 'input_template must be a string or an object keyed by target' });
}
