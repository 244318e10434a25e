import type { z } from 'zod';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { isUuidV7 } from '../model/ids.js';
import { findJsonProblem } from '../model/json.js';
import { FORBIDDEN_RECORD_FIELDS } from '../model/records.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type FieldSpec, type RecordKind, type RecordKindSpec } from '../model/record-kinds.js';
import { RECORD_SCHEMAS } from './record-schemas.js';

/** Every UUIDv7 field of any kind: a bad value there is `OCTX_ID_INVALID`. */
const UUID_FIELDS: ReadonlySet<string> = new Set(RECORD_KIND_ORDER.flatMap((kind) => RECORD_KINDS[kind].idFields));

/** One known field's check of a value read from the caller's record (`undefined`: absent). */
type FieldCheck = (v: unknown) => boolean;
/** One known field's JSON text, for a value its check accepted. */
type FieldWriter = (v: unknown) => string;

/**
 * A record kind's checker and writer, generated once from its `RECORD_KINDS` row: per known field
 * (in the order they are written) the value check, the JSON writer and the `"name":` prefix.
 */
interface CompiledKind {
  readonly names: readonly string[];
  readonly checks: readonly FieldCheck[];
  readonly writers: readonly FieldWriter[];
  readonly prefixes: readonly string[];
  readonly known: ReadonlySet<string>;
  readonly forbidden: ReadonlySet<string>;
  /** Positions of fields given together or not at all. */
  readonly together: readonly (readonly [number, number])[];
  /** Position of a reference that must not name the record itself, and of the record's id. */
  readonly notSelf: readonly [number, number] | undefined;
  /** Positions of the text fields that must not be empty (the format) nor, by default, only white space (the SDK). */
  readonly nonEmptyText: readonly number[];
}

function isText(v: unknown): boolean {
  return typeof v === 'string' && v.isWellFormed();
}
function isNonBlankText(v: unknown): boolean {
  return typeof v === 'string' && v.trim().length > 0 && v.isWellFormed();
}
function isNonEmptyText(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0 && v.isWellFormed();
}

/**
 * The producer's check of one field (stricter than the schema where the row says so). With
 * `whiteSpaceText`, a required text is only non-empty, as the format asks (white space taken).
 */
function fieldCheck(spec: FieldSpec, whiteSpaceText: boolean): FieldCheck {
  let check: FieldCheck;
  switch (spec.type) {
    case 'uuidv7':
      check = isUuidV7;
      break;
    case 'text':
      check = spec.nonEmpty !== true ? isText : whiteSpaceText ? isNonEmptyText : isNonBlankText;
      break;
    case 'int': {
      const min = spec.min ?? Number.MIN_SAFE_INTEGER;
      check = (v) => Number.isSafeInteger(v) && (v as number) >= min;
      break;
    }
    case 'number':
      check = (v) => typeof v === 'number' && Number.isFinite(v);
      break;
  }
  if (spec.required === true) return check;
  const present = check;
  return (v) => v === undefined || present(v);
}

/** U+0085, U+2028 and U+2029 can only occur in strings: only text and extra fields are scanned. */
const writeText: FieldWriter = (v) => escapeLineSeparators(JSON.stringify(v));
// A checked UUIDv7 has nothing to escape; a checked number writes as JSON.stringify does.
const writeId: FieldWriter = (v) => `"${v as string}"`;
const writeNumber: FieldWriter = (v) => String(v);

function compile(kind: RecordKind, whiteSpaceText: boolean): CompiledKind {
  const row: RecordKindSpec = RECORD_KINDS[kind];
  const names = Object.keys(row.fields);
  const at = (name: string): number => names.indexOf(name);
  return {
    names,
    checks: names.map((f) => fieldCheck(row.fields[f]!, whiteSpaceText)),
    writers: names.map((f) => {
      const type = row.fields[f]!.type;
      return type === 'uuidv7' ? writeId : type === 'text' ? writeText : writeNumber;
    }),
    // The first field is required (checked when the table is built), so a line starts with it.
    prefixes: names.map((f, i) => `${i === 0 ? '{' : ','}${JSON.stringify(f)}:`),
    known: new Set(names),
    forbidden: FORBIDDEN_RECORD_FIELDS[kind],
    together: (row.together ?? []).map(([a, b]) => [at(a), at(b)] as const),
    notSelf: row.notSelf === undefined ? undefined : [at(row.notSelf), at(row.recordIdField)],
    nonEmptyText: names.flatMap((f, i) => (row.fields[f]!.type === 'text' && row.fields[f]!.nonEmpty === true ? [i] : [])),
  };
}

const compileAll = (whiteSpaceText: boolean): Readonly<Record<RecordKind, CompiledKind>> =>
  Object.fromEntries(RECORD_KIND_ORDER.map((kind) => [kind, compile(kind, whiteSpaceText)])) as Record<RecordKind, CompiledKind>;
const COMPILED = compileAll(false);
/** The same checks, taking a required text that is only white space (a consumer that imports it). */
const COMPILED_WHITE_SPACE = compileAll(true);

/**
 * A record as read from the caller's object, once: the known fields' values by position (in the
 * order of the row's `fields`), the unknown fields with a value (sorted by code unit, their values
 * deeply copied), whether the producer accepts it, and, when it does, its JSONL line.
 */
export interface RecordRead {
  /** The known fields' values, by position in the row's `fields` (`undefined`: absent). */
  readonly values: readonly unknown[];
  /** Unknown fields with a value, sorted (`undefined` when there are none, the usual record). */
  readonly extraKeys: readonly string[] | undefined;
  /** Their copied values, in the same order. */
  readonly extraValues: readonly unknown[] | undefined;
  /** True when every field passed the producer's check. */
  readonly valid: boolean;
  /** The canonical JSONL line (no newline) of a valid record; `''` otherwise. */
  readonly line: string;
}

/**
 * Snapshots, checks and serialises one record in one pass, so no field is looked up twice: each
 * known field is read once (inherited or non-enumerable ones included), checked and written from
 * the value read, in the row's order; then the other own enumerable keys, sorted, their values
 * copied deeply (plain objects and arrays only; anything else is kept as is and refused). What is
 * checked is exactly what is written (a getter returning a different value on a second read
 * would otherwise publish an unchecked value, such as an empty chunk text), and the caller may
 * change the object afterwards.
 * With `whiteSpaceText`, a required text field that is only white space is valid (see
 * {@link whiteSpaceFields}).
 * @throws OctxError `OCTX_RECORD_INVALID` when the value is not an object.
 */
export function readRecord(kind: RecordKind, value: unknown, whiteSpaceText = false): RecordRead {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw OctxError.of({ code: 'OCTX_RECORD_INVALID', message: `a ${kind} record must be an object` });
  }
  const r = value as Record<string, unknown>;
  const c = (whiteSpaceText ? COMPILED_WHITE_SPACE : COMPILED)[kind];
  const { names, checks, writers, prefixes } = c;
  const n = names.length;
  const values = new Array<unknown>(n);
  let valid = true;
  let line = '';
  for (let i = 0; i < n; i++) {
    const v = r[names[i]!];
    values[i] = v;
    if (!checks[i]!(v)) valid = false;
    else if (valid && v !== undefined) line += prefixes[i]! + writers[i]!(v);
  }
  for (let t = 0; t < c.together.length; t++) {
    const [a, b] = c.together[t]!;
    if ((values[a] === undefined) !== (values[b] === undefined)) valid = false;
  }
  if (c.notSelf !== undefined && values[c.notSelf[0]] !== undefined && values[c.notSelf[0]] === values[c.notSelf[1]]) valid = false;

  // The usual record's own keys are known fields in the row's order: one comparison each.
  const keys = Object.keys(r);
  let k = 0;
  for (let i = 0; i < n && k < keys.length; i++) if (keys[k] === names[i]) k++;
  let extraKeys: string[] | undefined;
  let extraValues: unknown[] | undefined;
  if (k !== keys.length) {
    for (let j = 0; j < keys.length; j++) if (!c.known.has(keys[j]!)) (extraKeys ??= []).push(keys[j]!);
    if (extraKeys !== undefined) {
      extraKeys.sort();
      const kept: string[] = [];
      extraValues = [];
      for (const key of extraKeys) {
        const v = r[key];
        if (v === undefined) continue;
        const copy = copyJson(v, 0);
        kept.push(key);
        extraValues.push(copy);
        if (c.forbidden.has(key) || !key.isWellFormed() || findJsonProblem(copy) !== undefined) valid = false;
        else if (valid) line += `,${escapeLineSeparators(JSON.stringify(key))}:${escapeLineSeparators(JSON.stringify(copy))}`;
      }
      extraKeys = kept.length > 0 ? kept : undefined;
      if (extraKeys === undefined) extraValues = undefined;
      // JSON.stringify writes integer-like keys first, in numeric order, and the lines have
      // always been what it writes for the ordered copy: keep those bytes.
      else if (valid && extraKeys.some(isArrayIndex)) return { values, extraKeys, extraValues, valid, line: orderedLine(names, values, extraKeys, extraValues) };
    }
  }
  return { values, extraKeys, extraValues, valid, line: valid ? `${line}}` : '' };
}

/** A key that JSON.stringify (like every object) orders first: a canonical array index. */
function isArrayIndex(key: string): boolean {
  return /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < 4294967295;
}

/** The line JSON.stringify writes for the ordered null-prototype copy (closing brace included). */
function orderedLine(names: readonly string[], values: readonly unknown[], extraKeys: readonly string[], extraValues: readonly unknown[]): string {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (let i = 0; i < names.length; i++) if (values[i] !== undefined) out[names[i]!] = values[i];
  for (let j = 0; j < extraKeys.length; j++) out[extraKeys[j]!] = extraValues[j];
  return escapeLineSeparators(JSON.stringify(out));
}

/** The record a {@link RecordRead} holds, as an ordinary object: known fields first, then the extras. */
export function recordObject(kind: RecordKind, read: RecordRead): Record<string, unknown> {
  const names = COMPILED[kind].names;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) if (read.values[i] !== undefined) out[names[i]!] = read.values[i];
  if (read.extraKeys !== undefined) for (let j = 0; j < read.extraKeys.length; j++) put(out, read.extraKeys[j]!, read.extraValues![j]);
  return out;
}

/**
 * The required text fields of a record read with `whiteSpaceText` that are only white space to
 * JavaScript's `trim()` (what the SDK refuses by default), as `[field, value]` pairs; usually none.
 */
export function whiteSpaceFields(kind: RecordKind, read: RecordRead): readonly (readonly [string, string])[] {
  const c = COMPILED[kind];
  let found: [string, string][] | undefined;
  for (const i of c.nonEmptyText) {
    const v = read.values[i];
    if (typeof v === 'string' && v.trim().length === 0) (found ??= []).push([c.names[i]!, v]);
  }
  return found ?? NO_FIELDS;
}
const NO_FIELDS: readonly (readonly [string, string])[] = Object.freeze([]);

/** The position of `field` among the values of a {@link RecordRead} of `kind`. */
export function fieldPosition(kind: RecordKind, field: string): number {
  const i = COMPILED[kind].names.indexOf(field);
  if (i < 0) throw new Error(`${kind} has no field ${field}`);
  return i;
}

function recordIdOf(kind: RecordKind, r: Record<string, unknown>): string | undefined {
  const v = r[RECORD_KINDS[kind].recordIdField];
  return typeof v === 'string' ? v : undefined;
}

function toIssues(kind: RecordKind, r: Record<string, unknown>, error: z.ZodError): OctxIssue[] {
  const recordId = recordIdOf(kind, r);
  return error.issues.map((zi) => {
    const field = zi.path.map(String).join('.');
    const top = String(zi.path[0] ?? '');
    const forbidden = zi.code === 'custom' && (zi as { params?: { forbidden?: boolean } }).params?.forbidden === true;
    if (forbidden) {
      return issue({ code: 'OCTX_RECORD_FIELD_FORBIDDEN', recordId, field, message: `${kind} records must not carry "${top}": ${forbiddenReason(kind)}` });
    }
    const code = UUID_FIELDS.has(top) && zi.path.length === 1 && r[top] !== undefined && !isUuidV7(r[top]) ? 'OCTX_ID_INVALID' : 'OCTX_RECORD_INVALID';
    const got = r[top] === undefined ? 'missing' : `got ${preview(r[top])}`;
    return issue({ code, recordId, field, message: `${kind} ${field || 'record'} ${zi.message} (${got})` });
  });
}

function forbiddenReason(kind: RecordKind): string {
  const row: RecordKindSpec = RECORD_KINDS[kind];
  return row.forbiddenReason ?? 'the spec keeps it out of a package';
}

function preview(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'number') return String(v);
  if (v === null) return 'null';
  return typeof v;
}

/** Sets an own data property, also for the key "__proto__" (which `=` would treat as the prototype). */
function put(o: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
  else o[key] = v;
}

/** A deep copy of plain objects and arrays, each property read once; deeper than any limit, or not plain: as is. */
function copyJson(v: unknown, depth: number): unknown {
  if (v === null || typeof v !== 'object' || depth > 101) return v;
  if (Array.isArray(v)) {
    const a: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < a.length; i++) a[i] = copyJson((v as unknown[])[i], depth + 1);
    return a;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const o: Record<string, unknown> = {};
  for (const key of Object.keys(v)) put(o, key, copyJson((v as Record<string, unknown>)[key], depth + 1));
  return o;
}

/**
 * Checks one record's own fields (not its references). Fails fast with every problem of the
 * record: codes `OCTX_RECORD_INVALID`, `OCTX_ID_INVALID` or `OCTX_RECORD_FIELD_FORBIDDEN`, with the
 * record id and the field.
 * @throws OctxError
 */
export function assertRecord(kind: RecordKind, value: unknown): asserts value is Record<string, unknown> {
  const read = readRecord(kind, value);
  if (!read.valid) explainInvalid(kind, recordObject(kind, read));
}

/**
 * Throws the issues of a record the fast check refused, explained by its zod schema. With
 * `whiteSpaceFor` (the record was read for that consumer, which takes white-space-only text), such
 * text is not one of the errors: it is listed after them as its `OCTX_RECORD_TEXT_BLANK` warning,
 * so the refusal still says everything about the record (a strict export would refuse it next).
 * @throws OctxError always
 */
export function explainInvalid(kind: RecordKind, r: Record<string, unknown>, whiteSpaceFor?: string): never {
  const parsed = RECORD_SCHEMAS[kind].safeParse(r);
  const all = parsed.success ? [] : toIssues(kind, r, parsed.error);
  const blank = (i: OctxIssue): boolean => whiteSpaceFor !== undefined && i.field !== undefined && isWhiteSpaceText(kind, i.field, r[i.field]);
  const found = all.filter((i) => !blank(i));
  const recordId = recordIdOf(kind, r);
  const warnings = all.filter(blank).map((i) => whiteSpaceTextWarning(kind, i.field!, r[i.field!] as string, recordId, whiteSpaceFor!));
  const errors = found.length > 0 ? found : [issue({ code: 'OCTX_RECORD_INVALID', recordId, message: `${kind} record is invalid` })];
  if (errors.length === 1 && warnings.length === 0) throw new OctxError(errors[0]!.code, formatOne(errors[0]!), { issues: errors });
  throw OctxError.aggregate(errors[0]!.code, `${kind} record ${recordId ?? ''} is invalid:`, [...errors, ...warnings]);
}

/**
 * The `OCTX_RECORD_TEXT_BLANK` warning of a required text field that is only white space, taken
 * because the builder is made for `consumer`, which imports such text.
 */
export function whiteSpaceTextWarning(kind: RecordKind, field: string, value: string, recordId: string | undefined, consumer: string): OctxIssue {
  return issue({
    code: 'OCTX_RECORD_TEXT_BLANK',
    severity: 'warning',
    ...(recordId !== undefined ? { recordId } : {}),
    field,
    message: `${kind} ${field} ${JSON.stringify(value)} is only white space (JavaScript's trim); taken because the builder is made for ${consumer}, which imports it as written; every other consumer refuses it`,
  });
}

function isWhiteSpaceText(kind: RecordKind, field: string, v: unknown): boolean {
  const row: RecordKindSpec = RECORD_KINDS[kind];
  const spec: FieldSpec | undefined = row.fields[field];
  return spec?.type === 'text' && spec.nonEmpty === true && isNonEmptyText(v) && (v as string).trim().length === 0;
}

function formatOne(i: OctxIssue): string {
  return `${i.message}${i.recordId ? ` [record ${i.recordId}]` : ''}`;
}

/**
 * The JSONL line of a record: known fields in the row's order, then unknown fields sorted by code
 * unit, compact, no trailing newline. Undefined values are left out. A valid record is written by
 * {@link readRecord}; anything else through a null-prototype ordered copy (the same bytes).
 */
export function serializeRecord(kind: RecordKind, r: Record<string, unknown>): string {
  if (r !== null && typeof r === 'object' && !Array.isArray(r)) {
    const read = readRecord(kind, r);
    if (read.valid) return read.line;
  }
  // A null-prototype object: a "__proto__" field from JSON.parse stays a plain field.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const known = COMPILED[kind].known;
  for (const key of COMPILED[kind].names) if (r[key] !== undefined) out[key] = r[key];
  const extraKeys: string[] = [];
  for (const key of Object.keys(r)) if (!known.has(key) && r[key] !== undefined) extraKeys.push(key);
  extraKeys.sort();
  for (const key of extraKeys) out[key] = r[key];
  return escapeLineSeparators(JSON.stringify(out));
}

/** U+0085 NEXT LINE, U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR. */
const HAS_LINE_SEPARATOR = /[\u0085\u2028\u2029]/;
const LINE_SEPARATORS = /[\u0085\u2028\u2029]/g;

/**
 * Writes U+0085, U+2028 and U+2029 as JSON escapes (`\u2028`, …). `JSON.stringify` leaves them
 * raw inside strings, which is valid JSON, but line splitters such as Python's `str.splitlines()`
 * break a JSONL record apart at them. They only occur inside strings, so the escaped line parses
 * to the same value.
 */
export function escapeLineSeparators(json: string): string {
  if (!HAS_LINE_SEPARATOR.test(json)) return json;
  return json.replace(LINE_SEPARATORS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
