/**
 * The sag-1.7 rules that follow SAG's import code past the column bounds: the plan's entity-type
 * check, the insert's `_extra(record)`, `str(heading or "")`, the INTEGER columns, the dropped
 * offset, the database's normalized_name, Python 3.12's Unicode. Each rule: the value SAG refuses
 * (or changes) and the boundary value that passes, through the checker the export and the
 * validator run; one export shows the refusal end to end.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConsumerChecker, PackageBuilder, SAG_1_7_PROFILE, validatePackage } from '../../src/index.js';
import { pythonFloatRepr, pythonStr, sagExtraProblem } from '../../src/consumers/python/builtins.js';
import { failureAsync as failure } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

type Kind = 'chunk' | 'event' | 'entity' | 'event-entity';
/** The findings (code, field, message) for one record of a kind. */
function check(kind: Kind, fields: Record<string, unknown>, more: Record<string, unknown>[] = []): { code: string; field?: string; message: string }[] {
  const base = {
    chunk: { id: id(1), document_id: id(2), ordinal: 0, text: 't' },
    event: { id: id(3), title: 'Battle', content: 'c' },
    entity: { id: id(4), type: 'person', name: 'Cao Cao' },
    'event-entity': { event_id: id(3), entity_id: id(4) },
  }[kind];
  const c = new ConsumerChecker(SAG_1_7_PROFILE);
  for (const [i, m] of more.entries()) c.record(kind, { ...base, id: id(100 + i), ...m });
  c.record(kind, { ...base, ...fields });
  return c.issues.map((i) => ({ code: i.code, ...(i.field ? { field: i.field } : {}), message: i.message }));
}
const codes = (kind: Kind, fields: Record<string, unknown>, more?: Record<string, unknown>[]) => check(kind, fields, more).map((i) => `${i.code} ${i.field}`);

describe('sag-1.7: the entity type as SAG plans and checks it', () => {
  it('a type Python strips to nothing is refused ("entity type must not be empty")', () => {
    expect(codes('entity', { type: '\x1c' })).toStrictEqual(['OCTX_CONSUMER_INCOMPATIBLE type']);
    expect(codes('entity', { type: '\x85 ' })).toStrictEqual(['OCTX_CONSUMER_INCOMPATIBLE type']);
    expect(codes('entity', { type: '\ufeff' })).toStrictEqual([]);
  });

  it('the type as written is bounded too: 50 code points', () => {
    expect(codes('entity', { type: `${'t'.repeat(50)} ` })).toStrictEqual(['OCTX_CONSUMER_INCOMPATIBLE type']);
    expect(codes('entity', { type: 't'.repeat(50) })).toStrictEqual([]);
  });
});

describe('sag-1.7: extra_data as SAG inserts it (dict(extra_data or {}))', () => {
  it.each(['ab', 5, true, [1, 2], { octx: 'x' }, [[[1], 2]], ['abc']])('%j is refused on every record kind SAG inserts', (extra) => {
    for (const kind of ['chunk', 'event', 'entity', 'event-entity'] as const) expect(codes(kind, { extra_data: extra })).toStrictEqual(['OCTX_CONSUMER_INCOMPATIBLE extra_data']);
  });

  it.each([{}, { a: 1 }, { octx: { record_id: 'x' } }, { octx: null }, null, '', 0, false, [], [['a', 1]], ['ab'], [{ k: 1, v: 2 }]])('%j passes', (extra) => {
    expect(sagExtraProblem(extra)).toBeUndefined();
    expect(codes('chunk', { extra_data: extra })).toStrictEqual([]);
  });

  it('names the Python exception', () => {
    expect(sagExtraProblem('ab')).toBe('dict(extra_data) raises ValueError: dictionary update sequence element #0 has length 1; 2 is required');
    expect(sagExtraProblem({ octx: [1] })).toBe('dict(extra_data["octx"]) raises TypeError: cannot convert dictionary update sequence element #0 to a sequence');
  });
});

describe('sag-1.7: a heading that is not a string is measured as str(heading or "")', () => {
  it('bounds it at 500', () => {
    expect(codes('chunk', { heading: Array.from({ length: 100 }, () => 1234) })).toStrictEqual(['OCTX_CONSUMER_INCOMPATIBLE heading']); // "[1234, 1234, …]" is 598
    expect(codes('chunk', { heading: Array.from({ length: 83 }, () => 1234) })).toStrictEqual([]); // 496
    expect(codes('chunk', { heading: 0 })).toStrictEqual([]);
  });

  it('str() as Python writes it', () => {
    expect(pythonStr([1, 'a', null, true, { k: 2.5 }, "it's"])).toBe(`[1, 'a', None, True, {'k': 2.5}, "it's"]`);
    expect([1e16, 1e-5, 0.1, 123.0e20, -0, 1.5].map(pythonFloatRepr)).toStrictEqual(['1e+16', '1e-05', '0.1', '1.23e+22', '-0.0', '1.5']);
  });
});

describe('sag-1.7: what SAG stores changed, on some deployments refused (warnings)', () => {
  it('an ordinal or level above INTEGER (PostgreSQL, MySQL)', () => {
    expect(check('chunk', { ordinal: 2 ** 31 })).toMatchObject([
      { code: 'OCTX_CONSUMER_ADJUSTED', field: 'ordinal', message: expect.stringContaining(`ordinal is ${2 ** 31}; the limit is`) },
    ]);
    expect(codes('chunk', { ordinal: 2 ** 31 - 1 })).toStrictEqual([]);
    expect(check('event', { level: 2 ** 31 })).toMatchObject([
      { code: 'OCTX_CONSUMER_ADJUSTED', field: 'level', message: expect.stringContaining(`level is ${2 ** 31}; the limit is`) },
    ]);
    expect(codes('event', { level: 2 ** 31 - 1 })).toStrictEqual([]);
  });

  it('a time with an offset: SAG keeps the wall-clock time and drops the offset', () => {
    expect(check('event', { start_time: '2026-07-12T10:00:00+08:00' })).toMatchObject([
      { code: 'OCTX_CONSUMER_ADJUSTED', field: 'start_time', message: expect.stringContaining('will be stored as 2026-07-12T10:00:00 (the offset is dropped, not converted)') },
    ]);
    expect(codes('event', { start_time: '2026-07-12T10:00:00' })).toStrictEqual([]);
  });

  it('a name that folds past 500 (normalized_name VARCHAR(500))', () => {
    expect(check('entity', { name: 'ß'.repeat(500) })).toMatchObject([
      { code: 'OCTX_CONSUMER_ADJUSTED', field: 'name', message: expect.stringContaining('is 1000 characters as stored (casefold: normalized_name); the limit is 500') },
    ]);
    expect(codes('entity', { name: 'ß'.repeat(250) })).toStrictEqual([]);
  });
});

describe('sag-1.7: Python 3.12 (Unicode 15.0) as well as 3.11', () => {
  it('two names that only 3.12 normalizes alike are one entity for SAG’s server', () => {
    // U+10EFD (Arabic small low word sakta, new in 15.0, combining class 220) before U+0301: 3.12
    // reorders and composes, 3.11 leaves the unknown character as a starter.
    const issues = check('entity', { name: 'a\u0301\u{10efd}' }, [{ name: 'a\u{10efd}\u0301' }]);
    expect(issues.map((i) => `${i.code} ${i.field}`)).toStrictEqual(['OCTX_CONSUMER_INCOMPATIBLE name']);
    expect(issues[0]!.message).toContain('Python 3.12');
  });
});

describe('an export for sag-1.7 refuses what SAG’s insert refuses', () => {
  it('extra_data "ab" on a chunk', async () => {
    const DOC = id(0xd1);
    const b = new PackageBuilder({ asset: { id: id(9), name: 'SAG' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
      .addDocument({ path: 'a.md', markdown: `---\ntitle: "A"\noctx:\n  document_id: ${DOC}\n---\n# A\n` })
      .addChunk({ id: id(1), document_id: DOC, ordinal: 0, text: 't', extra_data: 'ab' } as never)
      .addEvent({ id: id(3), title: 'Battle', content: 'c' })
      .addEntity({ id: id(4), name: 'Cao Cao', type: '\x85' })
      .linkChunkEvent({ chunk_id: id(1), event_id: id(3) })
      .linkEventEntity({ event_id: id(3), entity_id: id(4) });
    const e = await failure(b.export({ output: join(tempDir(), 'p.octx'), consumer: 'sag-1.7' }));
    expect(e.code).toBe('OCTX_CONSUMER_INCOMPATIBLE');
    expect(e.issues.map((i) => `${i.recordId} ${i.field}`).sort()).toStrictEqual([`${id(1)} extra_data`, `${id(4)} type`]);
  });
});

describe('sag-1.7: a document title SAG cannot use is replaced by the body’s first "# " line', () => {
  const DOC = id(0xd1);
  /** Export (and validate) one document with this frontmatter title and body, for sag-1.7. */
  async function titleIssues(title: string, body: string): Promise<{ exported: string[]; validated: string[] }> {
    const build = () =>
      new PackageBuilder({ asset: { id: id(9), name: 'SAG' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } }).addDocument({
        path: 'notes/a.md',
        markdown: `---\ntitle: ${title}\noctx:\n  document_id: ${DOC}\n---\n${body}`,
      });
    const seed = join(tempDir(), 'seed.octx');
    await build().export({ output: seed });
    const validated = (await validatePackage(seed, { consumer: 'sag-1.7' })).consumer!.issues.filter((i) => i.severity === 'error').map((i) => `${i.field}: ${i.message}`);
    let exported: string[] = [];
    try {
      await build().export({ output: join(tempDir(), 'p.octx'), consumer: 'sag-1.7' });
    } catch (e) {
      exported = (e as { issues: { field?: string; message: string }[] }).issues.map((i) => `${i.field}: ${i.message}`);
    }
    return { exported, validated };
  }
  const long = `# ${'h'.repeat(501)}\n`;

  it.each([['0x1F'], ['null'], ['"\\u0085"'], ['"  "'], ['[a]']])('title %s falls back to a 501-character heading: refused at export and by the validator', async (title) => {
    const { exported, validated } = await titleIssues(title, long);
    expect(exported).toHaveLength(1);
    expect(exported[0]).toMatch(/^title: .* is 501 characters as stored/);
    expect(validated).toStrictEqual(exported);
  });

  it('a usable title is measured, not the heading; a 500-character heading passes; no heading: the file stem', async () => {
    expect(await titleIssues('"Short"', long)).toStrictEqual({ exported: [], validated: [] });
    expect(await titleIssues('null', `# ${'h'.repeat(500)}\n`)).toStrictEqual({ exported: [], validated: [] });
    expect(await titleIssues('null', `#${'h'.repeat(600)}\n  # ${'h'.repeat(600)}\n`)).toStrictEqual({ exported: [], validated: [] });
  });

  it('a title over two lines is measured as PyYAML folds it (one space for the line break): 500 passes, 501 is refused', async () => {
    expect(await titleIssues(`${'a'.repeat(250)}\n  ${'b'.repeat(249)}`, '# H\n')).toStrictEqual({ exported: [], validated: [] });
    const { exported, validated } = await titleIssues(`${'a'.repeat(250)}\n  ${'b'.repeat(250)}`, '# H\n');
    expect(exported).toHaveLength(1);
    expect(exported[0]).toMatch(/^title: .* is 501 characters as stored/);
    expect(validated).toStrictEqual(exported);
  });

  it('splits the body as Python’s splitlines() does (U+2028 ends a line)', async () => {
    const { exported } = await titleIssues('null', `intro\u2028# ${'h'.repeat(501)}\n`);
    expect(exported).toHaveLength(1);
  });
});
