/**
 * The per-record JSON Schema rules of `sag-structured/0.1`, exactly as the upstream schemas in
 * `schemas/octx-0.1/*.schema.json` state them (a consumer accepts what the schema accepts, so
 * e.g. a whitespace-only `title` passes `minLength: 1` here even though our producer refuses it).
 *
 * The rules are generated from the field specs of `RECORD_KINDS` (the same specs as the builder's
 * check and the zod schemas), once per kind at module load: a list of small guards instead of a
 * schema library, costing tens of nanoseconds per valid record and allocating nothing unless a
 * record is wrong, which matters at millions of records.
 */
import type { OctxCode } from '../model/codes.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type FieldSpec, type RecordKind, type RecordKindSpec } from '../model/record-kinds.js';
import { uuidToWords } from '../model/uuid-words.js';

/** One schema problem of one record. */
export interface RecordProblem {
  readonly code: OctxCode;
  readonly field?: string;
  readonly message: string;
}

const has = (r: object, k: string): boolean => Object.prototype.hasOwnProperty.call(r, k);

class Problems {
  list: RecordProblem[] | undefined;
  /** Where the parsed id words go (see {@link recordProblems}). */
  words: Uint32Array = new Uint32Array(8);
  add(field: string, message: string, code: OctxCode = 'OCTX_SCHEMA_VALIDATION'): void {
    (this.list ??= []).push({ code, field, message });
  }
}

const UNSAFE_INTEGER = (field: string): string => `${field} must be an integer of at most 2^53 − 1 (9007199254740991); a larger literal cannot be read back exactly`;

// One instance, reset per record: the valid-record path allocates nothing.
const shared = new Problems();

function uuid(p: Problems, r: Record<string, unknown>, field: string, required: boolean, slot: number): void {
  if (!has(r, field)) {
    if (required) p.add(field, `${field} is required`);
    // All zeros (never a UUIDv7) says "absent" to the structure check, which reads only the words.
    p.words.fill(0, slot * 4, slot * 4 + 4);
    return;
  }
  const v = r[field];
  if (typeof v !== 'string' || !uuidToWords(v, p.words, slot * 4)) p.add(field, `${field} must be a canonical lowercase UUIDv7 string`);
}

function text(p: Problems, r: Record<string, unknown>, field: string, required: boolean, minLength: number): void {
  if (!has(r, field)) {
    if (required) p.add(field, `${field} is required`);
    return;
  }
  const v = r[field];
  if (typeof v !== 'string') p.add(field, `${field} must be a string`);
  else if (v.length < minLength) p.add(field, `${field} must not be empty`);
}

function integer(p: Problems, r: Record<string, unknown>, field: string, spec: FieldSpec): void {
  if (!has(r, field)) {
    if (spec.required === true) p.add(field, `${field} is required`);
    return;
  }
  const v = r[field];
  if (typeof v !== 'number' || !Number.isInteger(v)) p.add(field, `${field} must be an integer`);
  // JSON.parse rounds a literal above 2^53 − 1 (2^53 + 1 reads as 2^53): the value read is
  // not the one written, and the builder never writes one.
  else if (!Number.isSafeInteger(v)) p.add(field, UNSAFE_INTEGER(field));
  else if (spec.min !== undefined && v < spec.min) p.add(field, `${field} must be ≥ ${spec.min}${spec.minHint === undefined ? '' : ` (${spec.minHint})`}`);
}

function finite(p: Problems, r: Record<string, unknown>, field: string, spec: FieldSpec): void {
  if (!has(r, field)) {
    if (spec.required === true) p.add(field, `${field} is required`);
    return;
  }
  const v = r[field];
  if (typeof v !== 'number') p.add(field, `${field} must be a number${spec.required === true ? '' : ` when present (omit it instead of ${v === null ? 'null' : typeof v})`}`);
  else if (!Number.isFinite(v)) p.add(field, `${field} must be a finite number`, spec.nonFiniteCode ?? 'OCTX_SCHEMA_VALIDATION');
}

/** One rule of a kind, run on a parsed record. */
type Rule = (p: Problems, r: Record<string, unknown>) => void;

/**
 * A kind's rules, generated once from its `RECORD_KINDS` row: each field's schema rule in the
 * row's order, the fields given together, the forbidden fields. Only what the schema states: the
 * producer's extra strictness (white-space text, a record naming itself, producer-only refusals,
 * lone surrogates, which the JSONL reader reports) is not here.
 */
function compileRules(kind: RecordKind): readonly Rule[] {
  const row: RecordKindSpec = RECORD_KINDS[kind];
  const rules: Rule[] = [];
  for (const [field, spec] of Object.entries(row.fields)) {
    const required = spec.required === true;
    switch (spec.type) {
      case 'uuidv7': {
        // The words slot: the position among the row's UUIDv7 fields (see recordProblems).
        const slot = row.idFields.indexOf(field);
        rules.push((p, r) => uuid(p, r, field, required, slot));
        break;
      }
      case 'text': {
        const minLength = spec.nonEmpty === true ? 1 : 0;
        rules.push((p, r) => text(p, r, field, required, minLength));
        break;
      }
      case 'int':
        rules.push((p, r) => integer(p, r, field, spec));
        break;
      case 'number':
        rules.push((p, r) => finite(p, r, field, spec));
        break;
    }
  }
  for (const [a, b] of row.together ?? []) {
    rules.push((p, r) => {
      const hasA = has(r, a);
      if (hasA !== has(r, b)) p.add(hasA ? b : a, `${a} and ${b} must be given together or both omitted`);
    });
  }
  if (row.forbidden.length > 0) {
    const reason = row.forbiddenReason === undefined ? '' : ` (${row.forbiddenReason})`;
    rules.push((p, r) => {
      for (const f of row.forbidden) if (has(r, f)) p.add(f, `${f} is not allowed in a ${kind} record${reason}`);
    });
  }
  return rules;
}

const RULES: Readonly<Record<RecordKind, readonly Rule[]>> = Object.fromEntries(RECORD_KIND_ORDER.map((kind) => [kind, compileRules(kind)])) as Record<RecordKind, readonly Rule[]>;

/**
 * Schema problems of one parsed record (an object), or `undefined` when it matches its schema.
 * A non-finite `weight` is `OCTX_EVENT_ENTITY_WEIGHT_INVALID`; everything else is
 * `OCTX_SCHEMA_VALIDATION` with the field named.
 *
 * The id fields are parsed into 128-bit words on the way (they have to be read to be checked):
 * `words[0…3]` receive the first id field (`id`, `chunk_id` or `event_id`) and `words[4…7]` the
 * second (`document_id`, `parent_id`, `event_id` or `entity_id`), so the caller can register and
 * look them up without parsing the text again. Only valid when no problem is returned.
 */
export function recordProblems(kind: RecordKind, r: Record<string, unknown>, words?: Uint32Array): readonly RecordProblem[] | undefined {
  const p = shared;
  p.list = undefined;
  p.words = words ?? p.words;
  const rules = RULES[kind];
  for (let i = 0; i < rules.length; i++) rules[i]!(p, r);
  const out = p.list;
  p.list = undefined;
  return out;
}
