import { z } from 'zod';
import { findJsonProblem } from '../model/json.js';
import { UUID_V7_PATTERN } from '../model/ids.js';
import { FORBIDDEN_RECORD_FIELDS, RECORD_FIELDS, type RecordKind } from '../model/records.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type FieldSpec, type RecordKindSpec } from '../model/record-kinds.js';

const uuidV7 = z.string({ error: 'must be a string' }).regex(UUID_V7_PATTERN, { error: 'must be a canonical lowercase UUIDv7' });
const wellFormed = (s: string): boolean => s.isWellFormed();
const text = z
  .string({ error: 'must be a string' })
  .refine((s) => s.trim().length > 0, { error: 'must be a non-empty string (not only white space)' })
  .refine(wellFormed, { error: 'contains a lone UTF-16 surrogate' });
const optionalText = z.string({ error: 'must be a string when present (omit it instead of null)' }).refine(wellFormed, { error: 'contains a lone UTF-16 surrogate' });
const anyText = z.string({ error: 'must be a string' }).refine(wellFormed, { error: 'contains a lone UTF-16 surrogate' });

function extras(kind: RecordKind) {
  const known = new Set(RECORD_FIELDS[kind]);
  const forbidden = FORBIDDEN_RECORD_FIELDS[kind];
  return (value: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    for (const [key, v] of Object.entries(value)) {
      if (known.has(key) || v === undefined) continue;
      if (forbidden.has(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'forbidden', params: { forbidden: true } });
        continue;
      }
      if (!key.isWellFormed()) ctx.addIssue({ code: 'custom', path: [key], message: 'field name contains a lone UTF-16 surrogate' });
      const problem = findJsonProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', path: [key, ...(problem.at ? [problem.at] : [])], message: problem.reason });
    }
  };
}

const safeInteger = (spec: FieldSpec) => {
  const min = spec.min ?? Number.MIN_SAFE_INTEGER;
  return z
    .number({ error: 'must be a number' })
    .int({ error: 'must be an integer' })
    .min(min, { error: `must be ≥ ${min}${spec.minHint === undefined ? '' : ` (${spec.minHint})`}` })
    .max(Number.MAX_SAFE_INTEGER, { error: 'must be a safe integer' });
};
const finite = z.number({ error: 'must be a finite number when present (omit it instead of null)' }).refine(Number.isFinite, { error: 'must be finite' });

/** The zod schema of one field, from its spec in `RECORD_KINDS` (the producer's strictness). */
function fieldSchema(spec: FieldSpec): z.ZodType {
  let schema: z.ZodType;
  switch (spec.type) {
    case 'uuidv7':
      schema = uuidV7;
      break;
    case 'text':
      schema = spec.nonEmpty === true ? text : spec.required === true ? anyText : optionalText;
      break;
    case 'int':
      schema = safeInteger(spec);
      break;
    case 'number':
      schema = finite;
      break;
  }
  return spec.required === true ? schema : schema.optional();
}

/** The rules between fields of a row: fields given together, a reference that must not name its record. */
function rowRules(kind: RecordKind) {
  const row: RecordKindSpec = RECORD_KINDS[kind];
  return (value: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    for (const [a, b] of row.together ?? []) {
      const hasA = value[a] !== undefined;
      const hasB = value[b] !== undefined;
      if (hasA && !hasB) ctx.addIssue({ code: 'custom', path: [b], message: `${b} must be given together with ${a} (or both omitted)` });
      if (hasB && !hasA) ctx.addIssue({ code: 'custom', path: [a], message: `${b} is only given together with ${a}: give ${a} too, or omit ${b}` });
    }
    const self = row.notSelf;
    if (self !== undefined && value[self] !== undefined && value[self] === value[row.recordIdField]) {
      ctx.addIssue({ code: 'custom', path: [self], message: `a ${kind} cannot name itself in ${self}` });
    }
  };
}

/** The zod schema of a record kind, generated from its `RECORD_KINDS` row. */
function recordSchema(kind: RecordKind): z.ZodType {
  const row: RecordKindSpec = RECORD_KINDS[kind];
  const shape = Object.fromEntries(Object.entries(row.fields).map(([name, spec]) => [name, fieldSchema(spec)]));
  return z.looseObject(shape).superRefine(rowRules(kind)).superRefine(extras(kind));
}

/** The zod type of one field spec: strings for ids and text, numbers otherwise; optional unless required. */
type FieldZod<F> = F extends { readonly type: 'uuidv7' | 'text' }
  ? F extends { readonly required: true }
    ? z.ZodString
    : z.ZodOptional<z.ZodString>
  : F extends { readonly required: true }
    ? z.ZodNumber
    : z.ZodOptional<z.ZodNumber>;

/** The zod object type of a record kind, from its row's field specs (the type callers see). */
export type RecordSchema<K extends RecordKind> = z.ZodObject<
  { -readonly [F in keyof (typeof RECORD_KINDS)[K]['fields']]: FieldZod<(typeof RECORD_KINDS)[K]['fields'][F]> },
  z.core.$loose
>;

/** The zod schema for each record kind (used to explain a failure and offered to callers). */
export const RECORD_SCHEMAS: { readonly [K in RecordKind]: RecordSchema<K> } = Object.freeze(
  Object.fromEntries(RECORD_KIND_ORDER.map((kind) => [kind, recordSchema(kind)])) as unknown as { [K in RecordKind]: RecordSchema<K> },
);

/** zod schema of a chunk record (used to explain a failure and offered to callers). */
export const ChunkRecordSchema = RECORD_SCHEMAS.chunk;
/** zod schema of an event record. */
export const EventRecordSchema = RECORD_SCHEMAS.event;
/** zod schema of an entity record. */
export const EntityRecordSchema = RECORD_SCHEMAS.entity;
/** zod schema of a chunk → event link. */
export const ChunkEventLinkSchema = RECORD_SCHEMAS['chunk-event'];
/** zod schema of an event → entity link. */
export const EventEntityLinkSchema = RECORD_SCHEMAS['event-entity'];
