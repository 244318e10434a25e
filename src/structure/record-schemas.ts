import { z } from 'zod';
import type { RecordKind } from '../model/records.js';
import type { RECORD_KINDS } from '../model/record-kinds.js';
import { buildRecordSchemas } from './record-schema-builder.js';

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
export const RECORD_SCHEMAS: { readonly [K in RecordKind]: RecordSchema<K> } = Object.freeze(buildRecordSchemas(z) as unknown as { [K in RecordKind]: RecordSchema<K> });

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
