/**
 * Every rule of the sag-1.7 profile (research page, section 3): a package that breaks it is
 * refused at export (or warned about) naming the record, and the boundary case passes.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConsumerChecker, PackageBuilder, SAG_1_7_PROFILE, type ExportResult, type OctxError, type OctxIssue } from '../../src/index.js';
import { failureAsync as failure } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd1);
const CHUNK = id(0x11);
const EVENT = id(0x21);
const ENTITY = id(0x31);
const OTHER = id(0x32);

type Fields = Record<string, unknown>;
interface Shape {
  readonly title?: string;
  readonly chunk?: Fields;
  readonly event?: Fields;
  readonly entity?: Fields;
  readonly link?: Fields;
  /** A second entity, linked to the same event. */
  readonly other?: Fields;
}

/** One document, chunk, event and entity, fully linked; `s` overrides fields. */
function build(s: Shape = {}): PackageBuilder {
  const b = new PackageBuilder({ asset: { id: id(1), name: 'SAG' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
    .addDocument({ path: 'a.md', markdown: `---\ntitle: ${JSON.stringify(s.title ?? 'Chapter 1')}\noctx:\n  document_id: ${DOC}\n---\n# A\n\nText.\n` })
    .addChunk({ id: CHUNK, document_id: DOC, ordinal: 0, text: 'Text.', ...s.chunk })
    .addEvent({ id: EVENT, title: 'Battle', content: 'It happened.', ...s.event })
    .addEntity({ id: ENTITY, name: 'Cao Cao', type: 'person', ...s.entity })
    .linkChunkEvent({ chunk_id: CHUNK, event_id: EVENT })
    .linkEventEntity({ event_id: EVENT, entity_id: ENTITY, ...s.link });
  if (s.other) b.addEntity({ id: OTHER, name: 'x', type: 'person', ...s.other }).linkEventEntity({ event_id: EVENT, entity_id: OTHER });
  return b;
}

async function refused(s: Shape): Promise<OctxError> {
  const out = join(tempDir(), 'p.octx');
  const e = await failure(build(s).export({ output: out, consumer: 'sag-1.7' }));
  expect(e.code).toBe('OCTX_CONSUMER_INCOMPATIBLE');
  expect(existsSync(out)).toBe(false);
  // Seed-valid: the same input exports under the default profile.
  expect((await build(s).export({ output: join(tempDir(), 'seed.octx') })).report.structure.status).toBe('written');
  return e;
}

async function accepted(s: Shape): Promise<ExportResult> {
  const r = await build(s).export({ output: join(tempDir(), 'p.octx'), consumer: 'sag-1.7' });
  expect(r.report.structure.status).toBe('written');
  return r;
}

const located = (i: OctxIssue) => ({ code: i.code, severity: i.severity, recordId: i.recordId, field: i.field });
const x = (n: number, c = 'x') => c.repeat(n);

describe('sag-1.7: fatal rules refuse the export, naming record, field, value and limit', () => {
  const cases: { rule: string; ok: Shape; broken: Shape; recordId: string; field: string; limit: string }[] = [
    { rule: 'entity type ≤ 50', ok: { entity: { type: x(50) } }, broken: { entity: { type: x(51) } }, recordId: ENTITY, field: 'type', limit: 'limit is 50' },
    { rule: 'event category ≤ 50', ok: { event: { category: x(50) } }, broken: { event: { category: x(51) } }, recordId: EVENT, field: 'category', limit: 'limit is 50' },
    { rule: 'document title ≤ 500', ok: { title: x(500, '𝒜') }, broken: { title: x(501) }, recordId: DOC, field: 'title', limit: 'limit is 500' },
    { rule: 'chunk heading ≤ 500', ok: { chunk: { heading: x(500) } }, broken: { chunk: { heading: x(501) } }, recordId: CHUNK, field: 'heading', limit: 'limit is 500' },
    { rule: 'entity name ≤ 500', ok: { entity: { name: x(500) } }, broken: { entity: { name: x(501) } }, recordId: ENTITY, field: 'name', limit: 'limit is 500' },
    { rule: 'weight ≤ 9.99', ok: { link: { weight: 9.99 } }, broken: { link: { weight: 10 } }, recordId: EVENT, field: 'weight', limit: '[0, 9.99]' },
    { rule: 'weight ≥ 0', ok: { link: { weight: 0 } }, broken: { link: { weight: -0.5 } }, recordId: EVENT, field: 'weight', limit: '[0, 9.99]' },
    {
      rule: 'start_time parses',
      ok: { event: { start_time: '2026-07-12T10:00:00+00:00' } },
      broken: { event: { start_time: 'spring of 184' } },
      recordId: EVENT,
      field: 'start_time',
      limit: 'fromisoformat',
    },
    {
      rule: 'end_time parses',
      ok: { event: { end_time: '0184-03-01' } },
      broken: { event: { end_time: '2026-02-29' } },
      recordId: EVENT,
      field: 'end_time',
      limit: 'fromisoformat',
    },
  ];

  it.each(cases)('$rule', async ({ ok, broken, recordId, field, limit }) => {
    const r = await accepted(ok);
    expect(r.report.warnings).toEqual([]);
    const e = await refused(broken);
    expect(e.issues.map(located)).toEqual([{ code: 'OCTX_CONSUMER_INCOMPATIBLE', severity: 'error', recordId, field }]);
    expect(e.issues[0]!.message).toContain(limit);
    expect(e.message).toContain(recordId);
  });

  it('a missing weight (SAG reads it as 1) passes', async () => {
    await accepted({});
  });

  describe('entity identity = (type, NFC + casefold of name), both ids named', () => {
    it.each([
      ['case', 'Cao Cao', 'CAO CAO'],
      ['composition (precomposed ō ú, then o + U+0304, u + U+0301)', 'Zh\u014Du Y\u00FA', 'Zho\u0304u Yu\u0301'],
      ['composition and case together', '\u00C9mile', 'e\u0301MILE'],
      ['full case folding (ß = ss)', 'Straße', 'STRASSE'],
    ])('%s', async (_what, a, b) => {
      const e = await refused({ entity: { name: a }, other: { name: b } });
      expect(e.issues).toHaveLength(1);
      expect(e.issues[0]).toMatchObject({ code: 'OCTX_CONSUMER_INCOMPATIBLE', recordId: OTHER, field: 'name' });
      expect(e.issues[0]!.message).toContain(ENTITY);
      expect(e.issues[0]!.message).toContain(OTHER);
    });

    it('same name with another type, or names that differ after folding, pass', async () => {
      await accepted({ entity: { name: 'Cao Cao', type: 'person' }, other: { name: 'CAO CAO', type: 'title' } });
      await accepted({ entity: { name: 'Zhou Yu' }, other: { name: 'Zhōu Yú' } });
    });
  });

  it('lists all offending records, not the first', async () => {
    const e = await refused({ entity: { type: x(60) }, event: { category: x(51), start_time: 'later' }, link: { weight: 12 }, chunk: { heading: x(501) } });
    expect(e.issues.map((i) => `${i.recordId} ${i.field}`).sort()).toEqual(
      [`${CHUNK} heading`, `${ENTITY} type`, `${EVENT} category`, `${EVENT} start_time`, `${EVENT} weight`].sort(),
    );
    expect(e.message).toMatch(/^5 record\(s\) would fail to import into SAG v1\.7/);
  });

  it('a refused export leaves the builder usable', async () => {
    const b = build({ entity: { type: x(51) } });
    await failure(b.export({ output: join(tempDir(), 'a.octx'), consumer: 'sag-1.7' }));
    expect((await b.export({ output: join(tempDir(), 'b.octx') })).report.structure.status).toBe('written');
  });

  it('the builder option sets the default consumer; export({ consumer }) overrides it', async () => {
    const opts = { asset: { id: id(1), name: 'SAG' }, consumer: 'sag-1.7' as const };
    const make = () =>
      new PackageBuilder(opts)
        .addDocument({ path: 'a.md', markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\nText.\n` })
        .addChunk({ id: CHUNK, document_id: DOC, ordinal: 0, text: 'Text.' })
        .addEvent({ id: EVENT, title: 'Battle', content: 'It happened.' })
        .addEntity({ id: ENTITY, name: 'Cao Cao', type: x(51) })
        .linkChunkEvent({ chunk_id: CHUNK, event_id: EVENT })
        .linkEventEntity({ event_id: EVENT, entity_id: ENTITY });
    expect((await failure(make().export({ output: join(tempDir(), 'a.octx') }))).code).toBe('OCTX_CONSUMER_INCOMPATIBLE');
    await make().export({ output: join(tempDir(), 'b.octx'), consumer: 'seed' });
  });

  it('an unknown consumer is an options error', async () => {
    // @ts-expect-error -- not a consumer name
    const e = await failure(build().export({ output: join(tempDir(), 'a.octx'), consumer: 'sag-9' }));
    expect(e.code).toBe('OCTX_OPTIONS_INVALID');
    expect(e.issues[0]!.field).toBe('consumer');
  });
});

describe('sag-1.7: values SAG changes are warnings in the report', () => {
  it('an event title over 255 characters (truncated by SAG); 255 passes', async () => {
    expect((await accepted({ event: { title: x(255) } })).report.warnings).toEqual([]);
    const r = await accepted({ event: { title: x(256) } });
    expect(r.report.warnings.map(located)).toEqual([{ code: 'OCTX_CONSUMER_ADJUSTED', severity: 'warning', recordId: EVENT, field: 'title' }]);
    expect(r.report.warnings[0]!.message).toContain('limit is 255');
  });

  it('a weight off the 0.01 grid (quantised by SAG)', async () => {
    expect((await accepted({ link: { weight: 0.25 } })).report.warnings).toEqual([]);
    const r = await accepted({ link: { weight: 0.333 } });
    expect(r.report.warnings.map(located)).toEqual([{ code: 'OCTX_CONSUMER_ADJUSTED', severity: 'warning', recordId: EVENT, field: 'weight' }]);
    expect(r.report.warnings[0]!.message).toContain('0.33');
  });

  it('warnings of a layer that is not written do not count', async () => {
    const r = await build({ entity: { type: x(51) } }).export({ output: join(tempDir(), 'd.octx'), consumer: 'sag-1.7', documentsOnly: true });
    expect(r.report.structure.status).toBe('not-requested');
    expect(r.report.warnings).toEqual([]);
  });
});

describe('sag-1.7 rules the builder cannot reach (checked on records directly)', () => {
  const check = (subject: 'event' | 'entity' | 'chunk' | 'document', record: Record<string, unknown>) => {
    const c = new ConsumerChecker(SAG_1_7_PROFILE);
    c.record(subject, record);
    return c.issues.map(located);
  };
  it('a blank event title (the builder already refuses white-space text)', () => {
    expect(check('event', { id: EVENT, title: ' \t', content: 'c' })).toEqual([{ code: 'OCTX_CONSUMER_INCOMPATIBLE', severity: 'error', recordId: EVENT, field: 'title' }]);
    expect(check('event', { id: EVENT, title: '.', content: 'c' })).toEqual([]);
  });
  it('document and chunk ids over 100 characters are refused, as SAG checks them (OCTX ids are 36-character UUIDs); 100 passes', () => {
    for (const subject of ['chunk', 'document'] as const) {
      expect(check(subject, { id: x(101) })).toEqual([{ code: 'OCTX_CONSUMER_INCOMPATIBLE', severity: 'error', recordId: x(101), field: 'id' }]);
      expect(check(subject, { id: x(100) })).toEqual([]);
    }
  });
  it('an event id over 100 is a warning (SAG imports it: its limit table names one, its check never applies it); an entity id has no bound', () => {
    expect(check('event', { id: x(101), title: 't', content: 'c' })).toEqual([{ code: 'OCTX_CONSUMER_ADJUSTED', severity: 'warning', recordId: x(101), field: 'id' }]);
    expect(check('event', { id: x(100), title: 't', content: 'c' })).toEqual([]);
    expect(check('entity', { id: x(1000), type: 'person', name: 'Cao Cao' })).toEqual([]);
  });
});

describe('sag-1.7 with Python’s meaning of blank, case, time and rounding (issue 21)', () => {
  const errorsOf = (e: OctxError) => e.issues.map(located);

  describe('both entity identities: the import plan’s and the database’s', () => {
    it.each([
      ['type case (database: type.strip().casefold())', { name: 'Cao Cao', type: 'Person' }, { name: 'CAO CAO', type: 'person' }],
      ['type padding (database strips the type)', { name: 'Cao Cao', type: 'person ' }, { name: 'cao cao', type: 'person' }],
      ['Python white space around the type (\\x85, \\x1f)', { name: 'Cao Cao', type: '\x85person\x1f' }, { name: 'CAO CAO', type: 'PERSON' }],
      ['composition only (the plan applies NFC, the database does not)', { name: '\u00C9mile', type: 'person' }, { name: 'E\u0301mile', type: 'person' }],
    ])('%s: refused, both ids named, one issue', async (_what, a, b) => {
      const e = await refused({ entity: a, other: b });
      expect(errorsOf(e)).toEqual([{ code: 'OCTX_CONSUMER_INCOMPATIBLE', severity: 'error', recordId: OTHER, field: 'name' }]);
      expect(e.issues[0]!.message).toContain(ENTITY);
      expect(e.issues[0]!.message).toContain(OTHER);
    });

    it('the database identity is named when only it collides', async () => {
      const e = await refused({ entity: { name: 'Cao Cao', type: 'Person' }, other: { name: 'cao cao', type: 'person' } });
      expect(e.issues[0]!.message).toContain('database identity');
    });

    it('distinct under both: accepted (a BOM is not white space to Python)', async () => {
      await accepted({ entity: { name: 'Cao Cao', type: '\ufeffperson' }, other: { name: 'Cao Cao', type: 'person' } });
      await accepted({ entity: { name: 'Cao Cao', type: 'person' }, other: { name: 'Cao Cao', type: 'persons' } });
    });
  });

  describe('bounds measured on what SAG stores', () => {
    it('entity type ≤ 50 after strip().casefold(): ß×25 (50) passes, ß×26 (52) is refused', async () => {
      await accepted({ entity: { type: 'ß'.repeat(25) } });
      const e = await refused({ entity: { type: 'ß'.repeat(26) } });
      expect(errorsOf(e)).toEqual([{ code: 'OCTX_CONSUMER_INCOMPATIBLE', severity: 'error', recordId: ENTITY, field: 'type' }]);
      expect(e.issues[0]!.message).toContain('52 characters as stored (the longer of as written and strip + casefold); the limit is 50');
    });

    it('a type longer than 50 only by its padding is refused too (SAG checks len(type) as written before it strips)', async () => {
      await refused({ entity: { type: `  ${x(50)}\x85` } });
      await accepted({ entity: { type: ` ${x(48)}\x85` } });
    });

    it('a document title is stripped before its 500 bound', async () => {
      await accepted({ title: ` ${x(500)}\u3000` });
      await refused({ title: ` ${x(501)} ` });
    });
  });

  describe('blank is Python’s str.strip()', () => {
    it('an event title of \\x85 or \\x1c–\\x1f is blank (JavaScript’s trim keeps them): refused', async () => {
      for (const title of ['\x85', '\x1c\x1d\x1e\x1f']) {
        const e = await refused({ event: { title } });
        expect(errorsOf(e)).toEqual([{ code: 'OCTX_CONSUMER_INCOMPATIBLE', severity: 'error', recordId: EVENT, field: 'title' }]);
      }
    });
  });

  describe('times: fromisoformat after SAG’s Z rewrite', () => {
    it.each(['2026-07-12Z', '2026-07-12T10:00:00Z', '2020-W53-1', '2015-W53-7', '20200101T010203', '2020-01-01T10:00:00,5', '2020-01-01T10:00+23:59'])(
      '%s is accepted',
      async (t) => {
        await accepted({ event: { start_time: t, end_time: t } });
      },
    );
    it.each(['2021-W53-1', '2020-01-01T24:00', '2026-07-12T10:00:00z', '2020-01-01T10:00+24:00', '2020-001'])('%s is refused, naming the field', async (t) => {
      const e = await refused({ event: { start_time: t } });
      expect(errorsOf(e)).toEqual([{ code: 'OCTX_CONSUMER_INCOMPATIBLE', severity: 'error', recordId: EVENT, field: 'start_time' }]);
    });
  });

  describe('weights: Decimal(str(w)).quantize(0.01), half to even', () => {
    it.each([
      [0.125, '0.12'],
      [0.135, '0.14'],
      [2.675, '2.68'],
      [0.005, '0.00'],
    ])('%s warns that SAG stores %s', async (w, stored) => {
      const r = await accepted({ link: { weight: w } });
      expect(r.report.warnings.map(located)).toEqual([{ code: 'OCTX_CONSUMER_ADJUSTED', severity: 'warning', recordId: EVENT, field: 'weight' }]);
      expect(r.report.warnings[0]!.message).toContain(`will be stored as ${stored}`);
    });
    it('a weight over 9.99 that would round to 9.99 is still refused (SAG checks before it rounds)', async () => {
      await refused({ link: { weight: 9.991 } });
    });
  });
});

describe('the identity check keeps fixed-size digests', () => {
  it('among 100 000 entities with 500-character names, the one duplicate is found and names the first', () => {
    const c = new ConsumerChecker(SAG_1_7_PROFILE);
    const long = (n: number) => `${n.toString(36)}${x(494)}`;
    for (let n = 0; n < 100_000; n++) c.record('entity', { id: id(0x1_0000 + n), type: 'person', name: long(n) });
    c.record('entity', { id: id(0x9_9999), type: 'PERSON ', name: long(42).toUpperCase() });
    expect(c.issues.map(located)).toEqual([{ code: 'OCTX_CONSUMER_INCOMPATIBLE', severity: 'error', recordId: id(0x9_9999), field: 'name' }]);
    expect(c.issues[0]!.message).toContain(id(0x1_0000 + 42));
  });
});
