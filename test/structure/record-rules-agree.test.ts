/**
 * One corpus of good and bad records, run through every record checker the SDK has:
 * - the builder's check at `add*`/`link*` (`assertRecord`: a hand-written fast path, zod to explain),
 * - the zod schemas offered to callers (`RECORD_SCHEMAS`),
 * - the validator's per-record rules (`recordProblems`, what a consumer accepts: the spec's schema).
 *
 * Every case must get the same verdict and the same field from all three, unless the case is in
 * `DELIBERATE_DIFFERENCES` below, with the reason. Cases are generated from `RECORD_KINDS`, so a new
 * record kind or field gets its cases without editing this file (a missing `VALID` example is a type
 * error).
 */
import { describe, expect, it } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind, type RecordKindSpec } from '../../src/model/record-kinds.js';
import { parseJsonlLine } from '../../src/read/jsonl.js';
import { recordProblems } from '../../src/read/record-rules.js';
import { assertRecord } from '../../src/structure/record-check.js';
import { RECORD_SCHEMAS } from '../../src/structure/record-schemas.js';

const A = '019c2222-2222-7222-8222-222222222222';
const B = '019c3333-3333-7333-8333-333333333333';
const C = '019c4444-4444-7444-8444-444444444444';

/** One minimal valid record of each kind (all required fields, no optional ones). */
const VALID: Readonly<Record<RecordKind, Record<string, unknown>>> = {
  chunk: { id: A, document_id: B, ordinal: 0, text: 'Liu Bei swore brotherhood in the peach garden.' },
  event: { id: A, title: 'The oath', content: 'Liu Bei, Guan Yu and Zhang Fei swore an oath.' },
  entity: { id: A, name: 'Liu Bei', type: 'person' },
  'chunk-event': { chunk_id: A, event_id: B },
  'event-entity': { event_id: A, entity_id: B },
};

/** A valid value for each optional field (so that "all optional fields" is a valid record too). */
const OPTIONAL_VALUES: Readonly<Record<string, unknown>> = {
  summary: 'An oath.',
  category: 'alliance',
  parent_id: C,
  level: 1,
  description: 'The founder of Shu Han.',
  weight: 0.5,
};

type Verdict = 'valid' | { readonly field: string };
interface Case {
  readonly name: string;
  readonly kind: RecordKind;
  readonly record: Record<string, unknown>;
  readonly expected: Verdict;
  /**
   * The code of the first issue for a bad record, per checker. Defaults: the builder's
   * `OCTX_RECORD_INVALID`, the validator's `OCTX_SCHEMA_VALIDATION` (zod's own codes are not compared).
   */
  readonly codes?: { readonly builder?: string; readonly validator?: string };
}

const ID_INVALID = { builder: 'OCTX_ID_INVALID' } as const;
const FORBIDDEN = { builder: 'OCTX_RECORD_FIELD_FORBIDDEN' } as const;
const WEIGHT = { validator: 'OCTX_EVENT_ENTITY_WEIGHT_INVALID' } as const;

function withField(kind: RecordKind, field: string, value: unknown): Record<string, unknown> {
  return { ...VALID[kind], [field]: value };
}
function without(kind: RecordKind, field: string): Record<string, unknown> {
  const r = { ...VALID[kind] };
  delete r[field];
  return r;
}

/** The corpus: generated per kind from the table, then the cases that need a hand. */
function corpus(): Case[] {
  const cases: Case[] = [];
  for (const kind of RECORD_KIND_ORDER) {
    const spec: RecordKindSpec = RECORD_KINDS[kind];
    cases.push({ name: `${kind}: minimal`, kind, record: VALID[kind], expected: 'valid' });
    const all = { ...VALID[kind] };
    for (const f of spec.optional) all[f] = OPTIONAL_VALUES[f];
    cases.push({ name: `${kind}: every optional field`, kind, record: all, expected: 'valid' });
    cases.push({ name: `${kind}: an unknown field is kept`, kind, record: withField(kind, 'x_pipeline', { run: 7 }), expected: 'valid' });
    for (const f of spec.required) cases.push({ name: `${kind}: ${f} missing`, kind, record: without(kind, f), expected: { field: f } });
    for (const f of spec.idFields) {
      cases.push({
        name: `${kind}: ${f} upper-case`,
        kind,
        record: withField(kind, f, (spec.required.includes(f) ? String(VALID[kind][f]) : C).toUpperCase()),
        expected: { field: f },
        codes: ID_INVALID,
      });
      cases.push({ name: `${kind}: ${f} a UUIDv4`, kind, record: withField(kind, f, '019c2222-2222-4222-8222-222222222222'), expected: { field: f }, codes: ID_INVALID });
      cases.push({ name: `${kind}: ${f} a number`, kind, record: withField(kind, f, 42), expected: { field: f }, codes: ID_INVALID });
    }
    for (const f of [...spec.required, ...spec.optional]) {
      if (spec.idFields.includes(f)) continue;
      cases.push({ name: `${kind}: ${f} null`, kind, record: withField(kind, f, null), expected: { field: f } });
    }
    for (const f of spec.forbidden) cases.push({ name: `${kind}: forbidden ${f}`, kind, record: withField(kind, f, [B]), expected: { field: f }, codes: FORBIDDEN });
    for (const f of spec.refusedByProducer) cases.push({ name: `${kind}: producer-refused ${f}`, kind, record: withField(kind, f, [B]), expected: { field: f }, codes: FORBIDDEN });
  }
  cases.push(
    { name: 'chunk: ordinal negative', kind: 'chunk', record: withField('chunk', 'ordinal', -1), expected: { field: 'ordinal' } },
    { name: 'chunk: ordinal fractional', kind: 'chunk', record: withField('chunk', 'ordinal', 1.5), expected: { field: 'ordinal' } },
    { name: 'chunk: ordinal a string', kind: 'chunk', record: withField('chunk', 'ordinal', '1'), expected: { field: 'ordinal' } },
    { name: 'chunk: ordinal beyond 2^53', kind: 'chunk', record: withField('chunk', 'ordinal', 2 ** 53), expected: { field: 'ordinal' } },
    { name: 'chunk: empty text', kind: 'chunk', record: withField('chunk', 'text', ''), expected: { field: 'text' } },
    { name: 'chunk: white-space text', kind: 'chunk', record: withField('chunk', 'text', ' \n\t'), expected: { field: 'text' } },
    {
      name: 'chunk: text with a lone surrogate',
      kind: 'chunk',
      record: withField('chunk', 'text', 'a\ud800b'),
      expected: { field: 'text' },
      codes: { validator: 'OCTX_JSON_INVALID' },
    },
    { name: 'event: empty title', kind: 'event', record: withField('event', 'title', ''), expected: { field: 'title' } },
    { name: 'event: empty summary is allowed', kind: 'event', record: withField('event', 'summary', ''), expected: 'valid' },
    { name: 'event: a child event', kind: 'event', record: { ...VALID.event, parent_id: B, level: 2 }, expected: 'valid' },
    { name: 'event: parent_id without level', kind: 'event', record: withField('event', 'parent_id', B), expected: { field: 'level' } },
    { name: 'event: level without parent_id', kind: 'event', record: withField('event', 'level', 1), expected: { field: 'parent_id' } },
    { name: 'event: level 0', kind: 'event', record: { ...VALID.event, parent_id: B, level: 0 }, expected: { field: 'level' } },
    { name: 'event: level fractional', kind: 'event', record: { ...VALID.event, parent_id: B, level: 1.5 }, expected: { field: 'level' } },
    { name: 'event: its own parent', kind: 'event', record: { ...VALID.event, parent_id: A, level: 1 }, expected: { field: 'parent_id' } },
    { name: 'entity: white-space type', kind: 'entity', record: withField('entity', 'type', '  '), expected: { field: 'type' } },
    { name: 'entity: description a number', kind: 'entity', record: withField('entity', 'description', 3), expected: { field: 'description' } },
    { name: 'event-entity: weight 0', kind: 'event-entity', record: withField('event-entity', 'weight', 0), expected: 'valid' },
    { name: 'event-entity: negative weight', kind: 'event-entity', record: withField('event-entity', 'weight', -3.25), expected: 'valid' },
    { name: 'event-entity: weight a string', kind: 'event-entity', record: withField('event-entity', 'weight', '1'), expected: { field: 'weight' } },
    {
      name: 'event-entity: weight infinite',
      kind: 'event-entity',
      record: withField('event-entity', 'weight', Number.POSITIVE_INFINITY),
      expected: { field: 'weight' },
      codes: WEIGHT,
    },
    { name: 'event-entity: weight NaN', kind: 'event-entity', record: withField('event-entity', 'weight', Number.NaN), expected: { field: 'weight' }, codes: WEIGHT },
    {
      name: 'entity: unknown field name with a lone surrogate',
      kind: 'entity',
      record: withField('entity', 'x\udc00', 1),
      expected: { field: 'x\udc00' },
      codes: { validator: 'OCTX_JSON_INVALID' },
    },
  );
  return cases;
}

type Checker = 'builder' | 'zod' | 'validator';

/**
 * Where a checker deliberately differs from the expected verdict, and why. The validator applies
 * the spec's schema exactly (a consumer must accept what the schema accepts); the producer is
 * stricter where the seed's prose asks more than the schema states.
 */
const DELIBERATE_DIFFERENCES: Readonly<Record<string, { readonly checkers: readonly Checker[]; readonly verdict: Verdict; readonly why: string }>> = {
  'event: producer-refused chunk_ids': {
    checkers: ['validator'],
    verdict: 'valid',
    why: 'seed 001 §4 forbids chunk_id/references/rank by schema; chunk_ids is only excluded by its prose ("all provenance is expressed exclusively by chunk-events.jsonl"), so a consumer accepts it and our producer refuses it',
  },
  'chunk: white-space text': {
    checkers: ['validator'],
    verdict: 'valid',
    why: 'the schema says minLength 1; the producer refuses text with nothing to read (seed: "complete chunk text")',
  },
  'entity: white-space type': { checkers: ['validator'], verdict: 'valid', why: 'the schema says minLength 1; the producer refuses a blank type' },
  'event: its own parent': {
    checkers: ['validator'],
    verdict: 'valid',
    why: 'the validator reports a self-parent with the hierarchy, as OCTX_EVENT_HIERARCHY_CYCLE, after every event is read',
  },
};

/** The codes each checker may give a bad record (producer codes and the reference's codes). */
const ALLOWED_CODES: Readonly<Record<Checker, readonly string[]>> = {
  builder: ['OCTX_RECORD_INVALID', 'OCTX_ID_INVALID', 'OCTX_RECORD_FIELD_FORBIDDEN'],
  zod: ['custom', 'invalid_type', 'invalid_format', 'too_small', 'too_big'],
  validator: ['OCTX_SCHEMA_VALIDATION', 'OCTX_EVENT_ENTITY_WEIGHT_INVALID', 'OCTX_JSON_INVALID'],
};

interface Outcome {
  readonly verdict: Verdict;
  readonly codes: readonly string[];
}

function runBuilder(kind: RecordKind, record: Record<string, unknown>): Outcome {
  try {
    assertRecord(kind, record);
    return { verdict: 'valid', codes: [] };
  } catch (e) {
    if (!(e instanceof OctxError)) throw e;
    return { verdict: { field: e.issues[0]!.field! }, codes: e.issues.map((i) => i.code) };
  }
}
function runZod(kind: RecordKind, record: Record<string, unknown>): Outcome {
  const parsed = RECORD_SCHEMAS[kind].safeParse(record);
  if (parsed.success) return { verdict: 'valid', codes: [] };
  return { verdict: { field: String(parsed.error.issues[0]!.path[0]) }, codes: parsed.error.issues.map((i) => i.code) };
}
function runValidator(kind: RecordKind, record: Record<string, unknown>): Outcome {
  // As the validator reads a record: the JSONL line first (JSON.stringify escapes a lone
  // surrogate, which the line parser refuses), then the record rules on the value itself (so a
  // NaN the line could not carry still reaches them).
  const bytes = Buffer.from(JSON.stringify(record), 'utf8');
  const line = parseJsonlLine({ line: 1, bytes, empty: false });
  if (!line.ok) return { verdict: { field: line.field ?? '' }, codes: [line.code] };
  const problems = recordProblems(kind, record);
  if (problems === undefined) return { verdict: 'valid', codes: [] };
  return { verdict: { field: problems[0]!.field! }, codes: problems.map((p) => p.code) };
}
const RUN: Readonly<Record<Checker, (kind: RecordKind, record: Record<string, unknown>) => Outcome>> = { builder: runBuilder, zod: runZod, validator: runValidator };

describe('record rules: the builder, the zod schemas and the validator agree', () => {
  const cases = corpus();

  it('the corpus covers every kind, field, id field and forbidden field of RECORD_KINDS', () => {
    expect(cases.length).toBeGreaterThan(80);
    for (const kind of RECORD_KIND_ORDER) {
      const spec: RecordKindSpec = RECORD_KINDS[kind];
      for (const f of [...spec.required, ...spec.forbidden, ...spec.refusedByProducer]) {
        expect(
          cases.some((c) => c.kind === kind && c.expected !== 'valid' && c.expected.field === f),
          `${kind}.${f}`,
        ).toBe(true);
      }
    }
    for (const name of Object.keys(DELIBERATE_DIFFERENCES))
      expect(
        cases.some((c) => c.name === name),
        name,
      ).toBe(true);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const difference = DELIBERATE_DIFFERENCES[c.name];
    for (const checker of ['builder', 'zod', 'validator'] as const) {
      const expected = difference?.checkers.includes(checker) ? difference.verdict : c.expected;
      const got = RUN[checker](c.kind, c.record);
      expect(got.verdict, `${checker} on ${c.name}`).toEqual(expected);
      for (const code of got.codes) expect(ALLOWED_CODES[checker], `${checker} code on ${c.name}`).toContain(code);
      if (expected !== 'valid' && checker !== 'zod') {
        const code = checker === 'builder' ? (c.codes?.builder ?? 'OCTX_RECORD_INVALID') : (c.codes?.validator ?? 'OCTX_SCHEMA_VALIDATION');
        expect(got.codes[0], `${checker} code on ${c.name}`).toBe(code);
      }
    }
  });

  it('names the field that makes a value id-shaped wrong with OCTX_ID_INVALID in the builder, OCTX_SCHEMA_VALIDATION in the validator', () => {
    const r = withField('chunk-event', 'event_id', 'not-a-uuid');
    expect(runBuilder('chunk-event', r).codes).toEqual(['OCTX_ID_INVALID']);
    expect(runValidator('chunk-event', r).codes).toEqual(['OCTX_SCHEMA_VALIDATION']);
  });

  it('gives a non-finite weight the reference code in the validator and the record code in the builder', () => {
    const r = withField('event-entity', 'weight', Number.POSITIVE_INFINITY);
    expect(runValidator('event-entity', r).codes).toEqual(['OCTX_EVENT_ENTITY_WEIGHT_INVALID']);
    expect(runBuilder('event-entity', r).codes).toEqual(['OCTX_RECORD_INVALID']);
  });

  it('refuses a forbidden field with OCTX_RECORD_FIELD_FORBIDDEN in the builder, for schema-forbidden and producer-refused fields alike', () => {
    expect(runBuilder('event', withField('event', 'rank', 1)).codes).toEqual(['OCTX_RECORD_FIELD_FORBIDDEN']);
    expect(runBuilder('event', withField('event', 'chunk_ids', [B])).codes).toEqual(['OCTX_RECORD_FIELD_FORBIDDEN']);
    expect(runValidator('event', withField('event', 'rank', 1)).codes).toEqual(['OCTX_SCHEMA_VALIDATION']);
  });
});
