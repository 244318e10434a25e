/**
 * The `RECORD_KINDS` table is held against two things it does not derive from:
 * - the reference's JSON Schemas of the five record kinds (copied into `fixtures/schemas/`):
 *   required fields, known fields, forbidden (`false`) fields and UUIDv7 fields;
 * - what the code does: every reference field the table lists is resolved by the builder's and the
 *   validator's graph checks (a dangling one is reported on that field, in that kind's file), and
 *   every coverage rule the table gives a kind is the one reported for an unlinked record of it.
 * So a row that drifts from the spec or from the checks fails here, not only in the checkers that
 * read the table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OctxError, PackageBuilder, validatePackage, type OctxIssue } from 'octx-export';
import { RECORD_KINDS, RECORD_KIND_ORDER, type CoverageRule, type RecordKind, type RecordKindSpec } from '../../src/model/record-kinds.js';
import { TARGET_RECORD_KIND, VECTOR_TARGETS } from '../../src/vectors/targets.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { SAG_DECL, entriesOf, genStructure, structureFiles, tid, writeDir, type Structure } from '../read/helpers.js';

interface JsonSchema {
  readonly required: readonly string[];
  readonly properties: Readonly<Record<string, false | { readonly $ref?: string }>>;
}
const schemaOf = (kind: RecordKind): JsonSchema => JSON.parse(readFileSync(join(ROOT, 'fixtures/schemas/octx-0.1', `${kind}.schema.json`), 'utf8')) as JsonSchema;
const spec = (kind: RecordKind): RecordKindSpec => RECORD_KINDS[kind];
const sorted = (a: readonly string[]): string[] => [...a].sort();

/** The reference's coverage codes and the rule (seed §6) each reports. */
const COVERAGE_CODE_RULE: Readonly<Record<string, CoverageRule>> = {
  OCTX_SAG_DOCUMENT_WITHOUT_CHUNK: 1,
  OCTX_SAG_CHUNK_WITHOUT_EVENT: 2,
  OCTX_EVENT_WITHOUT_CHUNK: 3,
  OCTX_SAG_EVENT_WITHOUT_ENTITY: 4,
  OCTX_ENTITY_WITHOUT_EVENT: 5,
};

/** The structure's records of one kind (the generator's lists, by kind). */
function recordsOf(s: Structure, kind: RecordKind): Record<string, unknown>[] {
  const lists: Record<RecordKind, Record<string, unknown>[]> = {
    chunk: s.chunks,
    event: s.events,
    entity: s.entities,
    'chunk-event': s.chunkEvents,
    'event-entity': s.eventEntities,
  };
  return lists[kind];
}

/** The validator's issues for a structure written as a package folder. */
async function validatorIssues(s: Structure): Promise<OctxIssue[]> {
  const dir = await writeDir(entriesOf({ files: structureFiles(s), capabilities: SAG_DECL }));
  return (await validatePackage(dir)).issues.filter((i) => i.severity === 'error');
}

/** The builder's issues for the same structure, exported with the coverage gate on. */
async function builderIssues(s: Structure): Promise<OctxIssue[]> {
  const builder = new PackageBuilder({ asset: { name: 'table' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });
  for (const d of s.docs) builder.addDocument({ path: d.path.slice('knowledge/'.length), markdown: d.md });
  for (const r of s.chunks) builder.addChunk(r as never);
  for (const r of s.events) builder.addEvent(r as never);
  for (const r of s.entities) builder.addEntity(r as never);
  for (const r of s.chunkEvents) builder.linkChunkEvent(r as never);
  for (const r of s.eventEntities) builder.linkEventEntity(r as never);
  try {
    await builder.export({ output: join(tempDir(), 'table.octx'), structure: 'require' });
  } catch (e) {
    if (e instanceof OctxError) return [...e.issues];
    throw e;
  } finally {
    await builder.dispose();
  }
  return [];
}

describe('RECORD_KINDS agrees with the reference JSON Schemas', () => {
  it.each(RECORD_KIND_ORDER)('%s: required, known, forbidden and UUIDv7 fields', (kind) => {
    const schema = schemaOf(kind);
    const properties = Object.entries(schema.properties);
    expect(spec(kind).required).toEqual(schema.required);
    expect(sorted([...spec(kind).required, ...spec(kind).optional])).toEqual(sorted(properties.filter(([, v]) => v !== false).map(([k]) => k)));
    expect(sorted(spec(kind).forbidden)).toEqual(sorted(properties.filter(([, v]) => v === false).map(([k]) => k)));
    expect(sorted(spec(kind).idFields)).toEqual(sorted(properties.filter(([, v]) => v !== false && v.$ref === '#/$defs/uuidv7').map(([k]) => k)));
    // A producer-only refusal is never a field the schema defines.
    for (const f of spec(kind).refusedByProducer) expect(schema.properties[f]).toBeUndefined();
  });

  it('every id field is either the identity, the defined id or a reference, and references name real kinds', () => {
    for (const kind of RECORD_KIND_ORDER) {
      const s = spec(kind);
      for (const f of s.idFields) expect(f === s.recordIdField || f === 'id' || f in s.references, `${kind}.${f}`).toBe(true);
      expect(s.idFields).toContain(s.recordIdField);
      expect(s.defines === undefined).toBe(s.role === 'relation');
    }
  });

  it('vector targets and the kinds they cover are the same both ways', () => {
    expect(VECTOR_TARGETS.map((t) => TARGET_RECORD_KIND[t])).toEqual(RECORD_KIND_ORDER.filter((k) => spec(k).vectorTarget !== undefined));
    for (const t of VECTOR_TARGETS) expect(spec(TARGET_RECORD_KIND[t]).vectorTarget).toBe(t);
  });
});

describe('RECORD_KINDS agrees with what the graph checks resolve', () => {
  const references = RECORD_KIND_ORDER.flatMap((kind) => Object.keys(spec(kind).references).map((field) => [kind, field] as const));

  it('lists the six references of sag-structured/0.1', () => {
    expect(references.map(([k, f]) => `${k}.${f}`)).toEqual([
      'chunk.document_id',
      'event.parent_id',
      'chunk-event.chunk_id',
      'chunk-event.event_id',
      'event-entity.event_id',
      'event-entity.entity_id',
    ]);
  });

  it.each(references)('a dangling %s.%s is reported on that field, in that file, by the validator and the builder', async (kind, field) => {
    const s = genStructure();
    const record = recordsOf(s, kind)[0]!;
    record[field] = tid();
    if (field === 'parent_id') record.level = 1;
    for (const issues of [await validatorIssues(s), await builderIssues(s)]) {
      const hit = issues.find((i) => i.field === field && i.path === spec(kind).path && i.code.endsWith('_MISSING'));
      expect(hit, JSON.stringify(issues.map((i) => [i.code, i.path, i.field]))).toBeDefined();
    }
  });
});

describe('RECORD_KINDS agrees with what the coverage gate reports', () => {
  const kinds = RECORD_KIND_ORDER.filter((kind) => spec(kind).role === 'record');

  it.each(kinds)('an unlinked %s breaks exactly the coverage rules of its row, for the validator and the builder', async (kind) => {
    const s = genStructure();
    const base = recordsOf(s, kind)[0]!;
    const orphan = { ...base, id: tid(), ...(kind === 'chunk' ? { ordinal: 99 } : {}) };
    recordsOf(s, kind).push(orphan);
    for (const issues of [await validatorIssues(s), await builderIssues(s)]) {
      const rules = issues.filter((i) => i.recordId === orphan.id && i.code in COVERAGE_CODE_RULE);
      expect(sorted(rules.map((i) => String(COVERAGE_CODE_RULE[i.code])))).toEqual(sorted(spec(kind).orphanRules.map(String)));
      for (const i of rules) expect(i.path).toBe(spec(kind).path);
    }
  });

  it('relations are never orphans themselves', () => {
    for (const kind of RECORD_KIND_ORDER.filter((k) => spec(k).role === 'relation')) expect(spec(kind).orphanRules).toEqual([]);
  });
});
