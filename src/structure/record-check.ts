import type { z } from 'zod';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { isUuidV7 } from '../model/ids.js';
import { findJsonProblem } from '../model/json.js';
import { FORBIDDEN_RECORD_FIELDS, RECORD_FIELDS } from '../model/records.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind } from '../model/record-kinds.js';
import { RECORD_SCHEMAS } from './record-schemas.js';

const KNOWN: Readonly<Record<RecordKind, ReadonlySet<string>>> = Object.fromEntries(Object.entries(RECORD_FIELDS).map(([k, v]) => [k, new Set(v)])) as unknown as Record<
  RecordKind,
  ReadonlySet<string>
>;

/** Every UUIDv7 field of any kind: a bad value there is `OCTX_ID_INVALID`. */
const UUID_FIELDS: ReadonlySet<string> = new Set(RECORD_KIND_ORDER.flatMap((kind) => RECORD_KINDS[kind].idFields));

/** A compile-time check that every record kind has its case. */
function unreachable(kind: never): never {
  throw new Error(`no fast check for kind ${String(kind)}`);
}

function isText(v: unknown): boolean {
  return typeof v === 'string' && v.trim().length > 0 && v.isWellFormed();
}
function isOptionalText(v: unknown): boolean {
  return v === undefined || (typeof v === 'string' && v.isWellFormed());
}

/**
 * The cheap hand-written check (≈15 ns a record): true when the record is certainly valid.
 * Kept in step with the zod schemas, which only run to explain a failure.
 */
function quickCheck(kind: RecordKind, r: Record<string, unknown>): boolean {
  switch (kind) {
    case 'chunk':
      if (!isUuidV7(r.id) || !isUuidV7(r.document_id) || !Number.isSafeInteger(r.ordinal) || (r.ordinal as number) < 0 || !isText(r.text)) return false;
      break;
    case 'event': {
      if (!isUuidV7(r.id) || !isText(r.title) || !isText(r.content) || !isOptionalText(r.summary) || !isOptionalText(r.category)) return false;
      const hasParent = r.parent_id !== undefined;
      if (hasParent !== (r.level !== undefined)) return false;
      if (hasParent && (!isUuidV7(r.parent_id) || r.parent_id === r.id || !Number.isSafeInteger(r.level) || (r.level as number) < 1)) return false;
      break;
    }
    case 'entity':
      if (!isUuidV7(r.id) || !isText(r.name) || !isText(r.type) || !isOptionalText(r.description)) return false;
      break;
    case 'chunk-event':
      if (!isUuidV7(r.chunk_id) || !isUuidV7(r.event_id)) return false;
      break;
    case 'event-entity':
      if (!isUuidV7(r.event_id) || !isUuidV7(r.entity_id) || !isOptionalText(r.description)) return false;
      if (r.weight !== undefined && (typeof r.weight !== 'number' || !Number.isFinite(r.weight))) return false;
      break;
    default:
      return unreachable(kind);
  }
  const known = KNOWN[kind];
  const forbidden = FORBIDDEN_RECORD_FIELDS[kind];
  for (const key of Object.keys(r)) {
    if (known.has(key)) continue;
    const v = r[key];
    if (v === undefined) continue;
    if (forbidden.has(key) || !key.isWellFormed() || findJsonProblem(v) !== undefined) return false;
  }
  return true;
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
  return kind === 'event'
    ? 'provenance lives only in relations/chunk-events.jsonl (link the event with linkChunkEvent)'
    : 'local index and database fields never enter an OCTX package';
}

function preview(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === 'number') return String(v);
  if (v === null) return 'null';
  return typeof v;
}

/**
 * The record as the caller gave it, read once: what is checked is exactly what is written
 * (issue 16: a getter returning a different value on a second read published an unchecked,
 * empty chunk text). Known fields are read as `r[key]` (inherited or non-enumerable ones
 * included, as {@link serializeRecord} always read them), in spec order; then the other own
 * enumerable keys, sorted, their values copied deeply (plain objects and arrays only; anything
 * else is kept as is and refused by the check). The copy is an ordinary object whose keys are
 * in the order {@link serializeRecord} writes, so it takes the no-copy path there. Values that
 * are not objects are returned unchanged for {@link assertRecord} to refuse. The unknown fields
 * with a value are pushed onto `unknownFields`, sorted (the usual record has none and takes the
 * fast path, which pushes nothing).
 */
export function snapshotRecord(kind: RecordKind, value: unknown, unknownFields?: string[]): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const r = value as Record<string, unknown>;
  // The usual record (an object literal of known fields in spec order): V8's object spread
  // copies it fastest, each own enumerable property read once; inherited or non-enumerable
  // known fields make isInSpecOrder false (they are not among its own keys).
  if (isInSpecOrder(kind, r)) return { ...r };
  const out: Record<string, unknown> = {};
  const fields = RECORD_FIELDS[kind];
  for (let f = 0; f < fields.length; f++) {
    const key = fields[f]!;
    const v = r[key];
    if (v !== undefined) out[key] = v;
  }
  const known = KNOWN[kind];
  const keys = Object.keys(r);
  let extra: string[] | undefined;
  for (let k = 0; k < keys.length; k++) if (!known.has(keys[k]!)) (extra ??= []).push(keys[k]!);
  if (extra !== undefined) {
    extra.sort();
    for (const key of extra) {
      const v = r[key];
      if (v === undefined) continue;
      put(out, key, copyJson(v, 0));
      unknownFields?.push(key);
    }
  }
  return out;
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
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw OctxError.of({ code: 'OCTX_RECORD_INVALID', message: `a ${kind} record must be an object` });
  }
  const r = value as Record<string, unknown>;
  if (quickCheck(kind, r)) return;
  const parsed = RECORD_SCHEMAS[kind].safeParse(r);
  const issues = parsed.success ? [issue({ code: 'OCTX_RECORD_INVALID', recordId: recordIdOf(kind, r), message: `${kind} record is invalid` })] : toIssues(kind, r, parsed.error);
  if (issues.length === 1) throw new OctxError(issues[0]!.code, formatOne(issues[0]!), { issues });
  throw OctxError.aggregate(issues[0]!.code, `${kind} record ${recordIdOf(kind, r) ?? ''} is invalid:`, issues);
}

function formatOne(i: OctxIssue): string {
  return `${i.message}${i.recordId ? ` [record ${i.recordId}]` : ''}`;
}

/**
 * True when `JSON.stringify(r)` writes exactly what the ordered copy in {@link serializeRecord}
 * would: `r` is a plain object (prototype `Object.prototype` or `null`, so not an array, a boxed
 * primitive or a class instance, which `JSON.stringify` treats differently), has no `toJSON` of
 * its own or inherited (the copy has a null prototype), its own enumerable keys are known fields
 * in spec order with no others, and every known field with a defined value (read as `r[key]`,
 * inherited or non-enumerable ones included, as the copy reads them) is among those keys. Own
 * keys whose value is `undefined` may appear: `JSON.stringify` leaves them out as the copy does.
 */
function isInSpecOrder(kind: RecordKind, r: Record<string, unknown>): boolean {
  const proto: unknown = Object.getPrototypeOf(r);
  if (proto !== Object.prototype && proto !== null) return false;
  if ((r as { toJSON?: unknown }).toJSON !== undefined) return false;
  const keys = Object.keys(r);
  const fields = RECORD_FIELDS[kind];
  let k = 0;
  for (let f = 0; f < fields.length; f++) {
    const field = fields[f]!;
    if (keys[k] === field) k++;
    else if (r[field] !== undefined) return false;
  }
  return k === keys.length;
}

/**
 * The JSONL line of a valid record: known fields in spec order, then unknown fields sorted by
 * code unit, compact, no trailing newline. Undefined values are left out.
 */
export function serializeRecord(kind: RecordKind, r: Record<string, unknown>): string {
  // The usual record (an object literal with only known fields, in spec order) already
  // serialises in the right order; skip the copy (2.75 s self time at M in BENCHMARKS.md).
  if (isInSpecOrder(kind, r)) return escapeLineSeparators(JSON.stringify(r));
  // A null-prototype object: a "__proto__" field from JSON.parse stays a plain field.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of RECORD_FIELDS[kind]) if (r[key] !== undefined) out[key] = r[key];
  const known = KNOWN[kind];
  const extraKeys: string[] = [];
  for (const key of Object.keys(r)) if (!known.has(key) && r[key] !== undefined) extraKeys.push(key);
  if (extraKeys.length > 0) {
    extraKeys.sort();
    for (const key of extraKeys) out[key] = r[key];
  }
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
