/**
 * The per-record JSON Schema rules of `sag-structured/0.1`, exactly as the upstream schemas in
 * `schemas/octx-0.1/*.schema.json` state them (a consumer accepts what the schema accepts, so
 * e.g. a whitespace-only `title` passes `minLength: 1` here even though our producer refuses it).
 *
 * Hand-written guards instead of a schema library: they cost tens of nanoseconds per valid
 * record and allocate nothing unless a record is wrong, which matters at millions of records.
 */
import type { OctxCode } from '../model/codes.js';
import { RECORD_KINDS, type RecordKind, type RecordKindSpec } from '../model/record-kinds.js';
import { uuidToWords } from '../model/uuid-words.js';

/** One schema problem of one record. */
export interface RecordProblem {
  readonly code: OctxCode;
  readonly field?: string;
  readonly message: string;
}

/** A compile-time check that every record kind has its case. */
function unreachable(kind: never): never {
  throw new Error(`no record rules for kind ${String(kind)}`);
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

function forbidden(p: Problems, r: Record<string, unknown>, kind: RecordKind): void {
  for (const f of (RECORD_KINDS[kind] as RecordKindSpec).forbidden) {
    if (has(r, f))
      p.add(
        f,
        `${f} is not allowed in a ${kind} record${kind === 'event' ? ' (provenance lives only in relations/chunk-events.jsonl)' : ' (local index fields never enter OCTX)'}`,
      );
  }
}

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
  switch (kind) {
    case 'chunk': {
      uuid(p, r, 'id', true, 0);
      uuid(p, r, 'document_id', true, 1);
      if (!has(r, 'ordinal')) p.add('ordinal', 'ordinal is required');
      else {
        const o = r.ordinal;
        if (typeof o !== 'number' || !Number.isInteger(o)) p.add('ordinal', 'ordinal must be an integer');
        // JSON.parse rounds a literal above 2^53 − 1 (2^53 + 1 reads as 2^53): the value read is
        // not the one written, and the builder never writes one.
        else if (!Number.isSafeInteger(o)) p.add('ordinal', UNSAFE_INTEGER('ordinal'));
        else if (o < 0) p.add('ordinal', 'ordinal must be ≥ 0');
      }
      text(p, r, 'text', true, 1);
      break;
    }
    case 'event': {
      uuid(p, r, 'id', true, 0);
      text(p, r, 'title', true, 1);
      text(p, r, 'content', true, 1);
      text(p, r, 'summary', false, 0);
      text(p, r, 'category', false, 0);
      uuid(p, r, 'parent_id', false, 1);
      if (has(r, 'level')) {
        const l = r.level;
        if (typeof l !== 'number' || !Number.isInteger(l)) p.add('level', 'level must be an integer');
        else if (!Number.isSafeInteger(l)) p.add('level', UNSAFE_INTEGER('level'));
        else if (l < 1) p.add('level', 'level must be ≥ 1 (a top-level event omits level)');
      }
      const hasParent = has(r, 'parent_id');
      if (hasParent !== has(r, 'level')) {
        p.add(hasParent ? 'level' : 'parent_id', 'parent_id and level must be given together (child event) or both omitted (top-level event)');
      }
      forbidden(p, r, kind);
      break;
    }
    case 'entity': {
      uuid(p, r, 'id', true, 0);
      text(p, r, 'name', true, 1);
      text(p, r, 'type', true, 1);
      text(p, r, 'description', false, 0);
      forbidden(p, r, kind);
      break;
    }
    case 'chunk-event': {
      uuid(p, r, 'chunk_id', true, 0);
      uuid(p, r, 'event_id', true, 1);
      break;
    }
    case 'event-entity': {
      uuid(p, r, 'event_id', true, 0);
      uuid(p, r, 'entity_id', true, 1);
      if (has(r, 'weight')) {
        const w = r.weight;
        if (typeof w !== 'number') p.add('weight', `weight must be a number when present (omit it instead of ${w === null ? 'null' : typeof w})`);
        else if (!Number.isFinite(w)) p.add('weight', 'weight must be a finite number', 'OCTX_EVENT_ENTITY_WEIGHT_INVALID');
      }
      text(p, r, 'description', false, 0);
      break;
    }
    default:
      return unreachable(kind);
  }
  const out = p.list;
  p.list = undefined;
  return out;
}
