import { describe, expect, it } from 'vitest';
import { validatePackage, type ValidationReport } from '../../src/read/index.js';
import type { OctxCode } from '../../src/model/codes.js';
import { ASSET_ID, SAG_DECL, conceptMd, entriesOf, genStructure, jsonl, structureFiles, tid, writeDir, writeZip, type FileMap, type Structure } from './helpers.js';

/** Builds a package from a structure the test edits in place. */
async function edited(mod: (s: Structure) => void, more: (files: FileMap) => void = () => undefined, limits = {}): Promise<ValidationReport> {
  const s = genStructure({ docs: 2, chunksPerDoc: 2 });
  mod(s);
  const files = structureFiles(s);
  more(files);
  return validatePackage(await writeDir(entriesOf({ files, capabilities: SAG_DECL })), { limits });
}

function sagCodes(r: ValidationReport): OctxCode[] {
  return [...new Set((r.capabilities['sag-structured']?.issues ?? []).map((i) => i.code))].sort();
}

function invalidWith(r: ValidationReport, expected: OctxCode[]): void {
  expect(r.format).toEqual({ valid: true, issues: [] });
  expect(r.capabilities['sag-structured']!.valid).toBe(false);
  expect(r.valid).toBe(false);
  expect(sagCodes(r)).toEqual([...expected].sort());
}

describe('sag-structured/0.1', () => {
  it('accepts a complete structure (directory, STORE and DEFLATE ZIP)', async () => {
    const s = genStructure({ docs: 3, chunksPerDoc: 3 });
    const entries = entriesOf({ files: structureFiles(s), capabilities: SAG_DECL });
    for (const target of [await writeDir(entries), await writeZip(entries, { store: true }), await writeZip(entries)]) {
      const r = await validatePackage(target);
      expect(r.issues).toEqual([]);
      expect(r).toMatchObject({ valid: true, fullyValidated: true, capabilities: { 'sag-structured': { valid: true } } });
    }
  });

  it('accepts CRLF lines, a missing final newline, unknown fields and a valid hierarchy', async () => {
    const r = await edited(
      (s) => {
        const [top, child] = s.events;
        child!.parent_id = top!.id;
        child!.level = 1;
        const grandchild = { id: tid(), title: 'G', content: 'Grandchild.', parent_id: child!.id, level: 2, chunk_ids: ['free-form'], 'x-note': { a: 1 } };
        s.events.push(grandchild);
        s.chunkEvents.push({ chunk_id: s.chunks[0].id, event_id: grandchild.id });
        s.eventEntities.push({ event_id: grandchild.id, entity_id: s.entities[0].id });
        s.chunks[0]['x-page'] = 3;
        s.entities[0].description = '';
      },
      (files) => {
        files['data/chunks.jsonl'] = String(files['data/chunks.jsonl']).replace(/\n/g, '\r\n');
        files['data/events.jsonl'] = String(files['data/events.jsonl']).replace(/\n$/, '');
      },
    );
    expect(r.issues).toEqual([]);
    expect(r.fullyValidated).toBe(true);
  });

  it('requires all five files to be listed (OCTX_CAPABILITY_FILE_REQUIRED)', async () => {
    const r = await edited(
      () => undefined,
      (files) => delete files['relations/event-entities.jsonl'],
    );
    invalidWith(r, ['OCTX_CAPABILITY_FILE_REQUIRED']);
    expect(r.capabilities['sag-structured']!.issues[0]!.path).toBe('relations/event-entities.jsonl');
  });

  it('does not trust a structure file that fails its digest (OCTX_CAPABILITY_FILE_UNTRUSTED)', async () => {
    const s = genStructure();
    const files = structureFiles(s);
    const entries = entriesOf({ files, capabilities: SAG_DECL });
    entries['data/events.jsonl'] = String(entries['data/events.jsonl']).replace('Event', 'Evil!');
    const r = await validatePackage(await writeDir(entries));
    expect(r.format.issues.map((i) => i.code)).toEqual(['OCTX_FILE_DIGEST_MISMATCH']);
    expect(r.capabilities['sag-structured']).toEqual({ valid: false, issues: [expect.objectContaining({ code: 'OCTX_CAPABILITY_FILE_UNTRUSTED', path: 'data/events.jsonl' })] });
  });

  it('is not checked when the format layer is invalid (OCTX_CAPABILITY_DEPENDENCY_INVALID)', async () => {
    const r = await edited(
      () => undefined,
      (files) => (files['README.md'] = 'x'),
    );
    expect(r.format.issues.map((i) => i.code)).toEqual(['OCTX_PAYLOAD_PATH_UNSUPPORTED']);
    expect(sagCodes(r)).toEqual(['OCTX_CAPABILITY_DEPENDENCY_INVALID']);
    expect(r.capabilities['sag-structured']!.valid).toBe(false);
  });

  describe('JSONL strictness', () => {
    const lineCases: [string, (t: string) => string, OctxCode][] = [
      ['an empty line', (t) => t.replace('\n', '\n\n'), 'OCTX_JSONL_EMPTY_LINE'],
      ['a whitespace-only line', (t) => t.replace('\n', '\n  \t\n'), 'OCTX_JSONL_EMPTY_LINE'],
      ['a syntax error', (t) => t.replace('}\n', ',}\n'), 'OCTX_JSON_INVALID'],
      ['a BOM', (t) => `\ufeff${t}`, 'OCTX_JSON_INVALID'],
      ['NaN', (t) => t.replace('"ordinal":0', '"ordinal":NaN'), 'OCTX_JSON_INVALID'],
      ['a number overflowing to Infinity', (t) => t.replace('"ordinal":0', '"ordinal":0,"x-big":1e999'), 'OCTX_JSON_INVALID'],
      ['an array line', (t) => `[1,2]\n${t}`, 'OCTX_JSONL_RECORD_TYPE'],
      ['a string line', (t) => `"chunk"\n${t}`, 'OCTX_JSONL_RECORD_TYPE'],
      ['a duplicate key', (t) => t.replace('"ordinal":0', '"ordinal":0,"ordinal":0'), 'OCTX_JSON_DUPLICATE_KEY'],
    ];
    for (const [name, edit, code] of lineCases) {
      it(`reports ${name} in data/chunks.jsonl as ${code}`, async () => {
        const r = await edited(
          () => undefined,
          (files) => (files['data/chunks.jsonl'] = edit(String(files['data/chunks.jsonl']))),
        );
        expect(sagCodes(r)).toContain(code);
        const first = r.capabilities['sag-structured']!.issues.find((i) => i.code === code)!;
        expect(first).toMatchObject({ path: 'data/chunks.jsonl' });
        expect(first.line).toBeGreaterThan(0);
        expect(r.format.valid).toBe(true);
      });
    }

    it('reports a file holding only a newline, and invalid UTF-8', async () => {
      const r = await edited(
        () => undefined,
        (files) => (files['data/entities.jsonl'] = '\n'),
      );
      expect(sagCodes(r)).toContain('OCTX_JSONL_EMPTY_LINE');
      const u = await edited(
        () => undefined,
        (files) => (files['data/entities.jsonl'] = Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')])),
      );
      expect(sagCodes(u)).toContain('OCTX_JSON_INVALID');
    });

    it('stops parsing an over-long line with OCTX_RESOURCE_LIMIT but keeps the format valid', async () => {
      const r = await edited(
        (s) => (s.chunks[0].text = 'y'.repeat(5000)),
        () => undefined,
        { maxJsonlLineSize: 1000 },
      );
      expect(r.format.valid).toBe(true);
      expect(sagCodes(r)).toEqual(['OCTX_RESOURCE_LIMIT']);
      const many = await edited(
        () => undefined,
        () => undefined,
        { maxJsonlRecords: 2 },
      );
      expect(sagCodes(many)).toEqual(['OCTX_RESOURCE_LIMIT']);
    });
  });

  describe('record schemas', () => {
    const schemaCases: [string, (s: Structure) => void, OctxCode[]][] = [
      // A record that breaks its schema is dropped (as the reference does): its relations dangle.
      ['a negative ordinal', (s) => (s.chunks[0].ordinal = -1), ['OCTX_SCHEMA_VALIDATION', 'OCTX_CHUNK_EVENT_CHUNK_MISSING', 'OCTX_EVENT_WITHOUT_CHUNK']],
      ['a fractional ordinal', (s) => (s.chunks[1].ordinal = 1.5), ['OCTX_SCHEMA_VALIDATION', 'OCTX_CHUNK_EVENT_CHUNK_MISSING', 'OCTX_EVENT_WITHOUT_CHUNK']],
      ['empty chunk text', (s) => (s.chunks[1].text = ''), ['OCTX_SCHEMA_VALIDATION', 'OCTX_CHUNK_EVENT_CHUNK_MISSING', 'OCTX_EVENT_WITHOUT_CHUNK']],
      ['an upper-case chunk id', (s) => (s.chunks[1].id = s.chunks[1].id.toUpperCase()), ['OCTX_SCHEMA_VALIDATION', 'OCTX_CHUNK_EVENT_CHUNK_MISSING', 'OCTX_EVENT_WITHOUT_CHUNK']],
      [
        'a missing event title',
        (s) => delete s.events[1].title,
        ['OCTX_SCHEMA_VALIDATION', 'OCTX_CHUNK_EVENT_EVENT_MISSING', 'OCTX_EVENT_ENTITY_EVENT_MISSING', 'OCTX_ENTITY_WITHOUT_EVENT', 'OCTX_SAG_CHUNK_WITHOUT_EVENT'],
      ],
      [
        'an event chunk_id',
        (s) => (s.events[0].chunk_id = s.chunks[0].id),
        ['OCTX_SCHEMA_VALIDATION', 'OCTX_CHUNK_EVENT_EVENT_MISSING', 'OCTX_EVENT_ENTITY_EVENT_MISSING', 'OCTX_ENTITY_WITHOUT_EVENT', 'OCTX_SAG_CHUNK_WITHOUT_EVENT'],
      ],
      [
        'event references and rank',
        (s) => Object.assign(s.events[0], { references: [], rank: 1 }),
        ['OCTX_SCHEMA_VALIDATION', 'OCTX_CHUNK_EVENT_EVENT_MISSING', 'OCTX_EVENT_ENTITY_EVENT_MISSING', 'OCTX_ENTITY_WITHOUT_EVENT', 'OCTX_SAG_CHUNK_WITHOUT_EVENT'],
      ],
      [
        'parent_id without level',
        (s) => (s.events[1].parent_id = s.events[0].id),
        ['OCTX_SCHEMA_VALIDATION', 'OCTX_CHUNK_EVENT_EVENT_MISSING', 'OCTX_EVENT_ENTITY_EVENT_MISSING', 'OCTX_ENTITY_WITHOUT_EVENT', 'OCTX_SAG_CHUNK_WITHOUT_EVENT'],
      ],
      [
        'level 0',
        (s) => Object.assign(s.events[1], { parent_id: s.events[0].id, level: 0 }),
        ['OCTX_SCHEMA_VALIDATION', 'OCTX_CHUNK_EVENT_EVENT_MISSING', 'OCTX_EVENT_ENTITY_EVENT_MISSING', 'OCTX_ENTITY_WITHOUT_EVENT', 'OCTX_SAG_CHUNK_WITHOUT_EVENT'],
      ],
      ['entity normalized_name', (s) => (s.entities[0].normalized_name = 'x'), ['OCTX_SCHEMA_VALIDATION', 'OCTX_EVENT_ENTITY_ENTITY_MISSING', 'OCTX_SAG_EVENT_WITHOUT_ENTITY']],
      [
        'entity embedding, vector, index_status',
        (s) => Object.assign(s.entities[0], { embedding: [1], vector: [1], index_status: 'ready' }),
        ['OCTX_SCHEMA_VALIDATION', 'OCTX_EVENT_ENTITY_ENTITY_MISSING', 'OCTX_SAG_EVENT_WITHOUT_ENTITY'],
      ],
      ['an empty entity type', (s) => (s.entities[0].type = ''), ['OCTX_SCHEMA_VALIDATION', 'OCTX_EVENT_ENTITY_ENTITY_MISSING', 'OCTX_SAG_EVENT_WITHOUT_ENTITY']],
      [
        'weight: null (cascades into coverage)',
        (s) => (s.eventEntities[0].weight = null),
        ['OCTX_SCHEMA_VALIDATION', 'OCTX_SAG_EVENT_WITHOUT_ENTITY', 'OCTX_ENTITY_WITHOUT_EVENT'],
      ],
      ['weight as a string', (s) => (s.eventEntities[0].weight = '1'), ['OCTX_SCHEMA_VALIDATION', 'OCTX_SAG_EVENT_WITHOUT_ENTITY', 'OCTX_ENTITY_WITHOUT_EVENT']],
      ['a relation without event_id', (s) => delete s.chunkEvents[0].event_id, ['OCTX_SCHEMA_VALIDATION', 'OCTX_SAG_CHUNK_WITHOUT_EVENT', 'OCTX_EVENT_WITHOUT_CHUNK']],
    ];
    for (const [name, mod, expected] of schemaCases) {
      it(`reports ${name}`, async () => {
        invalidWith(await edited(mod), expected);
      });
    }

    it('reports a weight overflowing to Infinity as OCTX_EVENT_ENTITY_WEIGHT_INVALID', async () => {
      const r = await edited(
        () => undefined,
        (files) => (files['relations/event-entities.jsonl'] = String(files['relations/event-entities.jsonl']).replace('"weight":0.5', '"weight":1e999')),
      );
      expect(sagCodes(r)).toContain('OCTX_EVENT_ENTITY_WEIGHT_INVALID');
    });

    it('locates schema issues by line, record and field', async () => {
      const r = await edited((s) => (s.chunks[2].ordinal = -3));
      expect(r.issues[0]).toMatchObject({ code: 'OCTX_SCHEMA_VALIDATION', path: 'data/chunks.jsonl', line: 3, field: 'ordinal' });
    });
  });

  describe('references and identity', () => {
    const refCases: [string, (s: Structure) => void, OctxCode[]][] = [
      ['a chunk of an unknown document', (s) => (s.chunks[0].document_id = tid()), ['OCTX_CHUNK_DOCUMENT_MISSING']],
      ['a repeated ordinal', (s) => (s.chunks[1].ordinal = 0), ['OCTX_CHUNK_ORDINAL_DUPLICATE']],
      // The relations still name the record's original id, which is now registered nowhere.
      ['a chunk id equal to a document id', (s) => (s.chunks[0].id = s.docs[1]!.id), ['OCTX_ID_DUPLICATE', 'OCTX_CHUNK_EVENT_CHUNK_MISSING', 'OCTX_EVENT_WITHOUT_CHUNK']],
      ['an entity id equal to the asset id', (s) => (s.entities[0].id = ASSET_ID), ['OCTX_ID_DUPLICATE', 'OCTX_EVENT_ENTITY_ENTITY_MISSING', 'OCTX_SAG_EVENT_WITHOUT_ENTITY']],
      [
        'an event id equal to a chunk id',
        (s) => (s.events[3].id = s.chunks[0].id),
        ['OCTX_ID_DUPLICATE', 'OCTX_CHUNK_EVENT_EVENT_MISSING', 'OCTX_EVENT_ENTITY_EVENT_MISSING', 'OCTX_ENTITY_WITHOUT_EVENT', 'OCTX_SAG_CHUNK_WITHOUT_EVENT'],
      ],
      ['a missing parent', (s) => Object.assign(s.events[1], { parent_id: tid(), level: 1 }), ['OCTX_EVENT_PARENT_MISSING']],
      ['a level mismatch', (s) => Object.assign(s.events[1], { parent_id: s.events[0].id, level: 2 }), ['OCTX_EVENT_LEVEL_INVALID']],
      [
        'an event cycle',
        (s) => {
          Object.assign(s.events[0], { parent_id: s.events[1].id, level: 2 });
          Object.assign(s.events[1], { parent_id: s.events[0].id, level: 1 });
        },
        ['OCTX_EVENT_HIERARCHY_CYCLE'],
      ],
      ['an event that is its own parent', (s) => Object.assign(s.events[2], { parent_id: s.events[2].id, level: 1 }), ['OCTX_EVENT_HIERARCHY_CYCLE']],
      ['a repeated chunk-event pair', (s) => s.chunkEvents.push({ ...s.chunkEvents[0] }), ['OCTX_CHUNK_EVENT_DUPLICATE']],
      ['a chunk-event relation to an unknown chunk', (s) => s.chunkEvents.push({ chunk_id: tid(), event_id: s.events[0].id }), ['OCTX_CHUNK_EVENT_CHUNK_MISSING']],
      ['a chunk-event relation to an unknown event', (s) => s.chunkEvents.push({ chunk_id: s.chunks[0].id, event_id: tid() }), ['OCTX_CHUNK_EVENT_EVENT_MISSING']],
      ['a repeated event-entity pair', (s) => s.eventEntities.push({ ...s.eventEntities[0], weight: 2 }), ['OCTX_EVENT_ENTITY_DUPLICATE']],
      ['an event-entity relation to an unknown event', (s) => s.eventEntities.push({ event_id: tid(), entity_id: s.entities[0].id }), ['OCTX_EVENT_ENTITY_EVENT_MISSING']],
      ['an event-entity relation to an unknown entity', (s) => s.eventEntities.push({ event_id: s.events[0].id, entity_id: tid() }), ['OCTX_EVENT_ENTITY_ENTITY_MISSING']],
    ];
    for (const [name, mod, expected] of refCases) {
      it(`reports ${name}`, async () => {
        invalidWith(await edited(mod), expected);
      });
    }
  });

  describe('complete coverage (SEED §6)', () => {
    it('1. every Concept Document has a chunk', async () => {
      const extra = tid();
      const r = await edited(
        () => undefined,
        (files) => (files['knowledge/orphan.md'] = conceptMd(extra, 'Orphan')),
      );
      invalidWith(r, ['OCTX_SAG_DOCUMENT_WITHOUT_CHUNK']);
      expect(r.issues[0]).toMatchObject({ path: 'knowledge/orphan.md', recordId: extra });
    });
    it('2. every chunk has an event', async () => {
      const r = await edited((s) => s.chunks.push({ id: tid(), document_id: s.docs[0]!.id, ordinal: 9, text: 'lonely' }));
      invalidWith(r, ['OCTX_SAG_CHUNK_WITHOUT_EVENT']);
      expect(r.issues[0]).toMatchObject({ path: 'data/chunks.jsonl', line: 5 });
    });
    it('3. every event has a chunk', async () => {
      const r = await edited((s) => {
        const e = { id: tid(), title: 't', content: 'c' };
        s.events.push(e);
        s.eventEntities.push({ event_id: e.id, entity_id: s.entities[0].id });
      });
      invalidWith(r, ['OCTX_EVENT_WITHOUT_CHUNK']);
    });
    it('4. every event has an entity', async () => {
      const r = await edited((s) => {
        const e = { id: tid(), title: 't', content: 'c' };
        s.events.push(e);
        s.chunkEvents.push({ chunk_id: s.chunks[0].id, event_id: e.id });
      });
      invalidWith(r, ['OCTX_SAG_EVENT_WITHOUT_ENTITY']);
    });
    it('5. every entity has an event', async () => {
      const r = await edited((s) => s.entities.push({ id: tid(), name: 'n', type: 't' }));
      invalidWith(r, ['OCTX_ENTITY_WITHOUT_EVENT']);
    });
    it('a documents-only package with zero structure records fails rule 1', async () => {
      const s = genStructure({ docs: 1, chunksPerDoc: 0 });
      const r = await validatePackage(await writeDir(entriesOf({ files: { ...structureFiles(s), 'data/chunks.jsonl': jsonl([]) }, capabilities: SAG_DECL })));
      invalidWith(r, ['OCTX_SAG_DOCUMENT_WITHOUT_CHUNK']);
    });
  });
});
