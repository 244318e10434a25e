/**
 * Seed 004 `IngestCandidateEnvelope` (kbdb-ingest-plugin/contracts/ingest-candidate.json,
 * JSON Schema draft-07) as a zod schema that mirrors it rule for rule: the same required
 * properties, `additionalProperties: false` on every object, the same enums, `minLength`,
 * `minItems`, `minimum`/`maximum` bounds and types. Annotations (`description`, `default`,
 * `$comment`) do not validate and are not applied: a missing `embed` stays missing.
 *
 * Violations are reported with the JSON Schema rule they break (`required`,
 * `additionalProperties`, `enum`, `minLength`, `minItems`, `minimum`, `maximum`, `type`), the
 * instance location (`/source/uri`) and the schema location
 * (`#/properties/source/properties/uri/minLength`).
 */
import { z } from 'zod';

/** JSON Schema `type: integer` (draft-07: any number with a zero fractional part). */
const integer = z
  .number()
  .refine(Number.isInteger, { message: 'must be an integer', params: { rule: 'type', expected: 'integer' } })
  .meta({ type: 'integer' });

/** `source`: which canonical Markdown file the batch was extracted from. */
export const IngestSourceSchema = z.strictObject({
  uri: z.string().min(1),
  content_hash: z.string().min(1),
  anchor: z.string().optional(),
  commit: z.string().optional(),
  block_id: z.string().optional(),
});

/** `extractor`: the model and tier that produced the batch. */
export const IngestExtractorSchema = z.strictObject({
  model: z.string().min(1),
  tier: z.enum(['shallow', 'deep']),
  extracted_at: integer.optional(),
});

/** The `entity_type` enum of a node. */
export const INGEST_ENTITY_TYPES = ['person', 'event', 'product', 'market', 'org'] as const;

/** One `nodes[]` item. */
export const IngestNodeSchema = z.strictObject({
  name: z.string().min(1),
  id: z.string().optional(),
  gloss: z.string().optional(),
  aliases: z.array(z.string()).optional(),
  embed: z.boolean().optional(),
  entity_type: z.enum(INGEST_ENTITY_TYPES).optional(),
});

/** One `triplets[]` item. */
export const IngestTripletSchema = z.strictObject({
  subject: z.string().min(1),
  predicate: z.string().min(1),
  object: z.string().min(1),
  predicate_embed: z.boolean().optional(),
  confidence: z.number().min(0).max(1).optional(),
});

/** The whole envelope. */
export const IngestEnvelopeSchema = z.strictObject({
  source: IngestSourceSchema,
  extractor: IngestExtractorSchema,
  nodes: z.array(IngestNodeSchema).optional(),
  triplets: z.array(IngestTripletSchema).min(1),
});

/** A validated envelope. */
export type IngestEnvelope = z.infer<typeof IngestEnvelopeSchema>;
export type IngestSource = z.infer<typeof IngestSourceSchema>;
export type IngestExtractor = z.infer<typeof IngestExtractorSchema>;
export type IngestNode = z.infer<typeof IngestNodeSchema>;
export type IngestTriplet = z.infer<typeof IngestTripletSchema>;

/** The JSON Schema keyword a violation breaks. */
export type IngestSchemaRule = 'type' | 'required' | 'additionalProperties' | 'enum' | 'minLength' | 'minItems' | 'minimum' | 'maximum';

/** One schema violation. */
export interface IngestRuleViolation {
  readonly rule: IngestSchemaRule;
  /** JSON Pointer into the envelope (`''` for the envelope itself). */
  readonly instancePath: string;
  /** JSON Pointer into the schema, e.g. `#/properties/extractor/properties/tier/enum`. */
  readonly schemaPath: string;
  /** One sentence naming the rule. */
  readonly message: string;
}

const pointer = (segments: readonly PropertyKey[]): string => segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
const schemaPointer = (segments: readonly PropertyKey[]): string => `#${segments.map((s) => (typeof s === 'number' ? '/items' : `/properties/${String(s)}`)).join('')}`;

function at(value: unknown, segments: readonly PropertyKey[]): unknown {
  let v = value;
  for (const s of segments) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[s];
  }
  return v;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/**
 * Checks a value against the seed 004 schema; an empty list means it is a valid envelope.
 */
export function envelopeViolations(value: unknown): IngestRuleViolation[] {
  const parsed = IngestEnvelopeSchema.safeParse(value);
  if (parsed.success) return [];
  const out: IngestRuleViolation[] = [];
  for (const zi of parsed.error.issues) {
    const path = zi.path;
    const where = (p: readonly PropertyKey[]) => (p.length === 0 ? 'the envelope' : pointer(p));
    // A missing property fails whatever its own schema is (type, enum, …): that is `required`.
    const parent = path.slice(0, -1);
    const key = path.at(-1);
    const container = at(value, parent);
    if (
      zi.code !== 'unrecognized_keys' &&
      typeof key === 'string' &&
      container !== null &&
      typeof container === 'object' &&
      !Array.isArray(container) &&
      !Object.hasOwn(container, key)
    ) {
      out.push({
        rule: 'required',
        instancePath: pointer(parent),
        schemaPath: `${schemaPointer(parent)}/required`,
        message: `${where(parent)}: required property "${key}" is missing (required)`,
      });
      continue;
    }
    switch (zi.code) {
      case 'unrecognized_keys':
        for (const key of zi.keys) {
          out.push({
            rule: 'additionalProperties',
            instancePath: pointer(path),
            schemaPath: `${schemaPointer(path)}/additionalProperties`,
            message: `${where(path)}: property "${key}" is not allowed (additionalProperties)`,
          });
        }
        break;
      case 'invalid_value': {
        const values = (zi as { values?: readonly unknown[] }).values ?? [];
        out.push({
          rule: 'enum',
          instancePath: pointer(path),
          schemaPath: `${schemaPointer(path)}/enum`,
          message: `${where(path)}: ${JSON.stringify(at(value, path))} is not one of ${values.map((v) => JSON.stringify(v)).join(', ')} (enum)`,
        });
        break;
      }
      case 'too_small': {
        const origin = (zi as { origin?: string }).origin;
        const min = (zi as { minimum?: number | bigint }).minimum;
        const rule: IngestSchemaRule = origin === 'string' ? 'minLength' : origin === 'array' ? 'minItems' : 'minimum';
        const what =
          rule === 'minLength' ? `must have at least ${String(min)} character(s)` : rule === 'minItems' ? `must have at least ${String(min)} item(s)` : `must be ≥ ${String(min)}`;
        out.push({ rule, instancePath: pointer(path), schemaPath: `${schemaPointer(path)}/${rule}`, message: `${where(path)}: ${what} (${rule})` });
        break;
      }
      case 'too_big': {
        const max = (zi as { maximum?: number | bigint }).maximum;
        out.push({ rule: 'maximum', instancePath: pointer(path), schemaPath: `${schemaPointer(path)}/maximum`, message: `${where(path)}: must be ≤ ${String(max)} (maximum)` });
        break;
      }
      case 'invalid_type': {
        const expected = (zi as { expected?: string }).expected ?? 'another type';
        out.push({
          rule: 'type',
          instancePath: pointer(path),
          schemaPath: `${schemaPointer(path)}/type`,
          message: `${where(path)}: must be ${expected === 'object' || expected === 'array' || expected === 'integer' ? 'an' : 'a'} ${expected}, not ${jsonType(at(value, path))} (type)`,
        });
        break;
      }
      default: {
        const params = (zi as { params?: { rule?: IngestSchemaRule; expected?: string } }).params;
        const rule = params?.rule ?? 'type';
        out.push({ rule, instancePath: pointer(path), schemaPath: `${schemaPointer(path)}/${rule}`, message: `${where(path)}: ${zi.message} (${rule})` });
      }
    }
  }
  return out;
}
