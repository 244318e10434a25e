/**
 * SAG checks the sag-1.7 profile has no rule for, because the format already refuses what they
 * refuse (docs/consumers.md, the rows marked "the format"): an empty entity type or name
 * (`octx_importer.py:204-207`), an event with no chunk relation (`:227-228`, again at the insert
 * `:569-570`), a weight `Decimal(str(v))` cannot read (`:122-125`), and an event `rank`
 * (`int(event.get("rank") or 0)` at `:587`: the format forbids the field, so SAG always stores 0).
 * Each is shown refused by the builder (`addRecord`) and by the validator (the reference's
 * `OCTX_SCHEMA_VALIDATION`, or the coverage code), with its field and line, so no package the SDK writes or calls valid reaches SAG's check.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PackageBuilder, validatePackage, type OctxIssue } from '../../src/index.js';
import { failureAsync, failure } from '../helpers/errors.js';
import { tempDir as tempFolder } from '../helpers/temp.js';
import { cleanupTempDirs, entriesOf, genStructure, SAG_DECL, structureFiles, writeDir, type Structure } from '../read/helpers.js';

afterAll(cleanupTempDirs);

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd1);
const CHUNK = id(0x11);
const EVENT = id(0x21);
const ENTITY = id(0x31);

const builder = () =>
  new PackageBuilder({ asset: { id: id(1), name: 'SAG' }, consumer: 'sag-1.7' })
    .addDocument({ path: 'a.md', markdown: `---\ntitle: A\noctx:\n  document_id: ${DOC}\n---\n# A\n\nText.\n` })
    .addChunk({ id: CHUNK, document_id: DOC, ordinal: 0, text: 'Text.' })
    .addEvent({ id: EVENT, title: 'Battle', content: 'It happened.' })
    .addEntity({ id: ENTITY, name: 'Cao Cao', type: 'person' });

const located = (i: OctxIssue) => ({ code: i.code, field: i.field });

/** The validator's errors on a package whose one-chunk structure `edit` changed, with the consumer section. */
async function validated(edit: (s: Structure) => void) {
  const s = genStructure({ docs: 1, chunksPerDoc: 1 });
  edit(s);
  const report = await validatePackage(await writeDir(entriesOf({ files: structureFiles(s), capabilities: SAG_DECL })), { consumer: 'sag-1.7' });
  return { report, errors: report.issues.filter((i) => i.severity === 'error').map((i) => ({ ...located(i), recordId: i.recordId, path: i.path, line: i.line })), s };
}

describe('SAG checks the format already makes unreachable', () => {
  it('an empty entity type or name (SAG: "entity has empty type/name"): OCTX_RECORD_INVALID from addEntity, OCTX_SCHEMA_VALIDATION from the validator', async () => {
    for (const [field, value] of [
      ['type', ''],
      ['name', ''],
      ['type', 5],
      ['name', null],
    ] as const) {
      const e = failure(() => builder().addEntity({ id: id(0x32), name: 'x', type: 'person', [field]: value }));
      expect({ code: e.code, issues: e.issues.map(located) }).toEqual({ code: 'OCTX_RECORD_INVALID', issues: [{ code: 'OCTX_RECORD_INVALID', field }] });
    }
    const { report, errors, s } = await validated((s) => {
      s.entities[0]!.type = '';
    });
    expect(report.valid).toBe(false);
    expect(errors).toContainEqual({ code: 'OCTX_SCHEMA_VALIDATION', field: 'type', recordId: s.entities[0]!.id, path: 'data/entities.jsonl', line: 1 });
    expect(report.consumer).toMatchObject({ name: 'sag-1.7', compatible: null });
  });

  it('an event in no chunk-event link (SAG: "event has no chunk relation"): OCTX_EVENT_WITHOUT_CHUNK; the export leaves the structure out', async () => {
    const r = await builder()
      .linkEventEntity({ event_id: EVENT, entity_id: ENTITY })
      .export({ output: join(tempFolder(), 'p.octx') });
    expect(r.report.structure.status).toBe('omitted');
    expect(r.report.warnings.map((w) => w.code)).toContain('OCTX_STRUCTURE_INCOMPLETE');
    const e = await failureAsync(
      builder()
        .linkEventEntity({ event_id: EVENT, entity_id: ENTITY })
        .export({ output: join(tempFolder(), 'q.octx'), structure: 'require' }),
    );
    expect(e.code).toBe('OCTX_STRUCTURE_INCOMPLETE');
    expect(e.issues.filter((i) => i.code === 'OCTX_EVENT_WITHOUT_CHUNK').map((i) => i.recordId)).toEqual([EVENT]);

    const { report, errors, s } = await validated((s) => {
      s.chunkEvents.length = 0;
    });
    expect(report.valid).toBe(false);
    expect(errors).toContainEqual({ code: 'OCTX_EVENT_WITHOUT_CHUNK', field: undefined, recordId: s.events[0]!.id, path: 'data/events.jsonl', line: 1 });
    expect(report.consumer?.compatible).toBeNull();
  });

  it('a weight that is not a number (SAG: Decimal(str(v)) raises, "invalid event-entity weight"): refused by the builder and the validator', async () => {
    // "0.5" SAG would read (Decimal("0.5")); true and NaN it refuses; null it reads as 1. The format takes none of them.
    for (const weight of ['0.5', true, Number.NaN, null, Number.POSITIVE_INFINITY]) {
      const e = failure(() =>
        builder()
          .linkChunkEvent({ chunk_id: CHUNK, event_id: EVENT })
          .linkEventEntity({ event_id: EVENT, entity_id: ENTITY, weight } as never),
      );
      expect(e.issues.map(located)).toEqual([{ code: 'OCTX_RECORD_INVALID', field: 'weight' }]);
    }
    for (const weight of ['0.5', true, null]) {
      const { report, errors } = await validated((s) => {
        s.eventEntities[0]!.weight = weight;
      });
      expect(report.valid).toBe(false);
      expect(errors).toContainEqual({ code: 'OCTX_SCHEMA_VALIDATION', field: 'weight', recordId: undefined, path: 'relations/event-entities.jsonl', line: 1 });
    }
  });

  it('an event rank (SAG stores int(event.get("rank") or 0)): forbidden by the format, so SAG always stores 0', async () => {
    const e = failure(() => builder().addEvent({ id: id(0x22), title: 't', content: 'c', rank: 3 } as never));
    expect(e.issues.map(located)).toEqual([{ code: 'OCTX_RECORD_FIELD_FORBIDDEN', field: 'rank' }]);
    const { report, errors, s } = await validated((s) => {
      s.events[0]!.rank = 3;
    });
    expect(report.valid).toBe(false);
    expect(errors).toContainEqual({ code: 'OCTX_SCHEMA_VALIDATION', field: 'rank', recordId: s.events[0]!.id, path: 'data/events.jsonl', line: 1 });
  });
});
