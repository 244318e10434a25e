/**
 * Text that is only white space to JavaScript's `trim()` (`" "`, `"\u2000"`, `"\ufeff"`): the
 * format asks for a non-empty string, the SDK's own check refuses such text, and SAG v1.7 imports
 * it (its only blank checks are Python's `strip()` on an event title and an entity type, which
 * keeps U+FEFF). So a builder made for `sag-1.7` takes it with an `OCTX_RECORD_TEXT_BLANK`
 * warning (an error under `strict`), and an export of such records for any other consumer is
 * refused with the same code.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, validatePackage, type ConsumerName } from '../../src/index.js';
import { failure, failureAsync } from '../helpers/errors.js';
import { readPackageText } from '../helpers/package-files.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd1);
const CHUNK = id(0x11);
const EVENT = id(0x21);
const ENTITY = id(0x31);

function build(consumer: ConsumerName | undefined, fields: { chunk?: object; event?: object; entity?: object } = {}, strict = false): PackageBuilder {
  return new PackageBuilder({ asset: { id: id(1), name: 'W' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' }, ...(consumer ? { consumer } : {}), strict })
    .addDocument({ path: 'a.md', markdown: `---\ntitle: A\noctx:\n  document_id: ${DOC}\n---\n# A\n\nText.\n` })
    .addChunk({ id: CHUNK, document_id: DOC, ordinal: 0, text: 'Text.', ...fields.chunk })
    .addEvent({ id: EVENT, title: 'Battle', content: 'It happened.', ...fields.event })
    .addEntity({ id: ENTITY, name: 'Cao Cao', type: 'person', ...fields.entity })
    .linkChunkEvent({ chunk_id: CHUNK, event_id: EVENT })
    .linkEventEntity({ event_id: EVENT, entity_id: ENTITY });
}

describe('white-space-only text', () => {
  it.each([
    ['entity', 'name', ' '],
    ['entity', 'name', '\u2000'],
    ['entity', 'type', '\ufeff'],
    ['event', 'title', '\ufeff'],
    ['event', 'content', '\u3000'],
    ['chunk', 'text', '\t'],
  ])('%s %s %j: refused by a builder for any consumer but sag-1.7 (OCTX_RECORD_INVALID, at addRecord)', (kind, field, value) => {
    const e = failure(() => build(undefined, { [kind]: { [field]: value } }));
    expect(e.code).toBe('OCTX_RECORD_INVALID');
    expect(e.issues[0]).toMatchObject({ field });
    expect(e.message).toContain('not only white space');
  });

  it('a sag-1.7 builder takes a name of U+2000, a type and an event title of U+FEFF (Python keeps it): written as given, warned, valid, and SAG would import it', async () => {
    const out = join(tempDir(), 'p.octx');
    const r = await build('sag-1.7', { entity: { name: '\u2000', type: '\ufeff' }, event: { title: '\ufeff' } }).export({ output: out });
    const blank = r.report.warnings.filter((w) => w.code === 'OCTX_RECORD_TEXT_BLANK');
    expect(blank.map((w) => [w.recordId, w.field, w.severity])).toEqual([
      [EVENT, 'title', 'warning'],
      [ENTITY, 'name', 'warning'],
      [ENTITY, 'type', 'warning'],
    ]);
    expect(blank[1]!.message).toBe(
      'entity name "\u2000" is only white space (JavaScript\'s trim); taken because the builder is made for sag-1.7, which imports it as written; every other consumer refuses it',
    );
    // Written exactly as given.
    expect(await readPackageText(out, 'data/entities.jsonl')).toBe(`{"id":"${ENTITY}","name":"\u2000","type":"\ufeff"}\n`);
    expect(JSON.parse((await readPackageText(out, 'data/events.jsonl')).trim())).toMatchObject({ title: '\ufeff' });
    const report = await validatePackage(out, { consumer: 'sag-1.7' });
    expect(report.valid).toBe(true);
    expect(report.consumer!.issues.filter((i) => i.severity === 'error')).toEqual([]);
  });

  it("an event title SAG itself strips to nothing is still refused under sag-1.7, by SAG's rule (at export)", async () => {
    const out = join(tempDir(), 'p.octx');
    const b = build('sag-1.7', { event: { title: '\u2000 ' } });
    const e = await failureAsync(b.export({ output: out }));
    expect(e.code).toBe('OCTX_CONSUMER_INCOMPATIBLE');
    expect(e.issues.find((i) => i.severity === 'error')).toMatchObject({ recordId: EVENT, field: 'title' });
    expect(existsSync(out)).toBe(false);
  });

  it('records a sag-1.7 builder took are refused by an export for another consumer, naming them; nothing is written', async () => {
    const out = join(tempDir(), 'p.octx');
    const e = await failureAsync(build('sag-1.7', { entity: { name: ' ' } }).export({ output: out, consumer: 'seed' }));
    expect(e.code).toBe('OCTX_RECORD_TEXT_BLANK');
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0]).toMatchObject({ code: 'OCTX_RECORD_TEXT_BLANK', severity: 'error', recordId: ENTITY, field: 'name' });
    expect(e.message).toContain('export for seed');
    expect(existsSync(out)).toBe(false);
  });

  it('is a warning strict refuses', async () => {
    const out = join(tempDir(), 'p.octx');
    const e = await failureAsync(build('sag-1.7', { chunk: { text: ' ' } }, true).export({ output: out }));
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(e.issues.some((i) => i.code === 'OCTX_RECORD_TEXT_BLANK' && i.field === 'text')).toBe(true);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    ['entity', { name: ' ', type: 5 }, 'name', 'type', 'OCTX_RECORD_INVALID'],
    ['entity', { type: '\ufeff', id: 'not-a-uuid' }, 'type', 'id', 'OCTX_ID_INVALID'],
    ['event', { title: '\ufeff', summary: 5 }, 'title', 'summary', 'OCTX_RECORD_INVALID'],
    ['chunk', { text: '\t', ordinal: 1.5 }, 'text', 'ordinal', 'OCTX_RECORD_INVALID'],
    ['entity', { name: ' ', embedding: [1] }, 'name', 'embedding', 'OCTX_RECORD_FIELD_FORBIDDEN'],
  ])('%s %j under sag-1.7: the refusal names the other field and still lists the blank %s as OCTX_RECORD_TEXT_BLANK', (kind, fields, blank, other, code) => {
    const e = failure(() => build('sag-1.7', { [kind]: fields }));
    expect(e.code).toBe(code);
    const recordId = kind === 'entity' ? ENTITY : kind === 'event' ? EVENT : CHUNK;
    expect(e.issues.map((i) => [i.code, i.severity, i.field])).toEqual([
      [code, 'error', other],
      ['OCTX_RECORD_TEXT_BLANK', 'warning', blank],
    ]);
    const value = (fields as Record<string, string>)[blank]!;
    expect(e.issues[1]!.message).toBe(
      `${kind} ${blank} ${JSON.stringify(value)} is only white space (JavaScript's trim); taken because the builder is made for sag-1.7, which imports it as written; every other consumer refuses it`,
    );
    const named = other === 'id' ? 'not-a-uuid' : recordId;
    expect(e.issues.map((i) => i.recordId)).toEqual([named, named]);
    expect(e.message).toContain(`\n  - OCTX_RECORD_TEXT_BLANK (record ${named}, field ${blank}): ${kind} ${blank}`);
    // The same record for any other consumer: both are errors, the blank one first (the row's order).
    const plain = failure(() => build(undefined, { [kind]: fields }));
    expect(plain.issues.map((i) => [i.severity, i.field]).sort()).toEqual(
      [
        ['error', blank],
        ['error', other],
      ].sort(),
    );
  });

  it('an empty string stays refused under sag-1.7 (the format requires a non-empty string)', () => {
    expect(failure(() => build('sag-1.7', { entity: { name: '' } })).code).toBe('OCTX_RECORD_INVALID');
  });
});
