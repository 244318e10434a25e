import { z } from 'zod';
import { findJsonProblem } from '../model/json.js';
import { UUID_V7_PATTERN } from '../model/ids.js';
import { FORBIDDEN_RECORD_FIELDS, RECORD_FIELDS, type RecordKind } from '../model/records.js';

const uuidV7 = z.string({ error: 'must be a string' }).regex(UUID_V7_PATTERN, { error: 'must be a canonical lowercase UUIDv7' });
const wellFormed = (s: string): boolean => s.isWellFormed();
const text = z
  .string({ error: 'must be a string' })
  .refine((s) => s.trim().length > 0, { error: 'must be a non-empty string (not only white space)' })
  .refine(wellFormed, { error: 'contains a lone UTF-16 surrogate' });
const optionalText = z.string({ error: 'must be a string when present (omit it instead of null)' }).refine(wellFormed, { error: 'contains a lone UTF-16 surrogate' }).optional();

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

/** zod schema of a chunk record (used to explain a failure and offered to callers). */
export const ChunkRecordSchema = z
  .looseObject({
    id: uuidV7,
    document_id: uuidV7,
    ordinal: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be an integer' })
      .min(0, { error: 'must be ≥ 0' })
      .max(Number.MAX_SAFE_INTEGER, { error: 'must be a safe integer' }),
    text,
  })
  .superRefine(extras('chunk'));

/** zod schema of an event record. */
export const EventRecordSchema = z
  .looseObject({
    id: uuidV7,
    title: text,
    content: text,
    summary: optionalText,
    category: optionalText,
    parent_id: uuidV7.optional(),
    level: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be an integer' })
      .min(1, { error: 'must be a positive integer (top-level events omit level)' })
      .max(Number.MAX_SAFE_INTEGER)
      .optional(),
  })
  .superRefine((value, ctx) => {
    const hasParent = value.parent_id !== undefined;
    const hasLevel = value.level !== undefined;
    if (hasParent && !hasLevel) ctx.addIssue({ code: 'custom', path: ['level'], message: 'a child event needs level together with parent_id' });
    if (hasLevel && !hasParent)
      ctx.addIssue({ code: 'custom', path: ['parent_id'], message: 'level is only for child events: give parent_id too, or omit level for a top-level event' });
    if (hasParent && value.parent_id === value.id) ctx.addIssue({ code: 'custom', path: ['parent_id'], message: 'an event cannot be its own parent' });
  })
  .superRefine(extras('event'));

/** zod schema of an entity record. */
export const EntityRecordSchema = z.looseObject({ id: uuidV7, name: text, type: text, description: optionalText }).superRefine(extras('entity'));

/** zod schema of a chunk → event link. */
export const ChunkEventLinkSchema = z.looseObject({ chunk_id: uuidV7, event_id: uuidV7 }).superRefine(extras('chunk-event'));

/** zod schema of an event → entity link. */
export const EventEntityLinkSchema = z
  .looseObject({
    event_id: uuidV7,
    entity_id: uuidV7,
    weight: z.number({ error: 'must be a finite number when present (omit it instead of null)' }).refine(Number.isFinite, { error: 'must be finite' }).optional(),
    description: optionalText,
  })
  .superRefine(extras('event-entity'));

/** The zod schema for each record kind. */
export const RECORD_SCHEMAS = {
  chunk: ChunkRecordSchema,
  event: EventRecordSchema,
  entity: EntityRecordSchema,
  'chunk-event': ChunkEventLinkSchema,
  'event-entity': EventEntityLinkSchema,
} as const satisfies Readonly<Record<RecordKind, z.ZodType>>;
