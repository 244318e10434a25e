import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, loadWorkdir, type EventRecord, type PackageBuilderOptions } from '../../src/index.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, knownFields } from '../../src/model/record-kinds.js';
import { editDistance, snakeCase } from '../../src/model/edit-distance.js';
import { likelyField } from '../../src/structure/field-suspects.js';
import { tempDir } from '../helpers/temp.js';
import { failure, failureAsync } from '../helpers/errors.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd0);

function builder(options: Partial<PackageBuilderOptions> = {}): PackageBuilder {
  return new PackageBuilder({ asset: { id: id(1), name: 'T' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' }, ...options }).addDocument({
    path: 'a.md',
    markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\nOne.\n`,
  });
}

/** A complete graph around two events; the child's record is the caller's. */
function withChild(b: PackageBuilder, child: EventRecord): PackageBuilder {
  return b
    .addChunk({ id: id(0x11), document_id: DOC, ordinal: 0, text: 'One.' })
    .addEvent({ id: id(0x21), title: 'Parent', content: 'A big thing happened.' })
    .addEvent(child)
    .addEntity({ id: id(0x31), name: 'Alice', type: 'person' })
    .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) })
    .linkChunkEvent({ chunk_id: id(0x11), event_id: child.id })
    .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) })
    .linkEventEntity({ event_id: child.id, entity_id: id(0x31) });
}

describe('edit distance (Damerau-Levenshtein, optimal string alignment)', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours as one edit each', () => {
    expect(editDistance('sumary', 'summary')).toBe(1);
    expect(editDistance('ordnial', 'ordinal')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('titel', 'title')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
    // past `max` it stops and answers max + 1
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
    expect(editDistance('a', 'abcdef', 2)).toBe(3);
  });

  it('normalises camelCase, kebab-case and capitals to snake_case', () => {
    expect(snakeCase('parentId')).toBe('parent_id');
    expect(snakeCase('parent-id')).toBe('parent_id');
    expect(snakeCase('Document_ID')).toBe('document_id');
    expect(snakeCase('chunkId')).toBe('chunk_id');
  });
});

describe('suspect record fields (issue 15, problem 2)', () => {
  it('every known field of RECORD_KINDS, spelt in camelCase, kebab-case or with one letter dropped, is recognised', () => {
    for (const kind of RECORD_KIND_ORDER) {
      for (const field of knownFields(kind)) {
        const camel = field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
        const none = () => false;
        if (camel !== field) expect(likelyField(kind, camel, none), `${kind}.${camel}`).toBe(field);
        if (field.includes('_')) expect(likelyField(kind, field.replace(/_/g, '-'), none), `${kind}.${field}`).toBe(field);
        if (field.length >= 4) expect(likelyField(kind, field.slice(0, 1) + field.slice(2), none), `${kind}.${field} minus a letter`).toBe(field);
      }
    }
    expect(RECORD_KINDS.event.optional).toContain('parent_id');
  });

  it('addEvent({ …, parentId }) is kept, but warned about: OCTX_RECORD_FIELD_SUSPECT naming the record, the field and parent_id', async () => {
    const child = id(0x22);
    // @ts-expect-error -- parentId is not a field of EventRecord: TypeScript refuses the literal (see test/types/records.test-d.ts)
    const b = withChild(builder(), { id: child, title: 'Child', content: 'A smaller thing happened.', parentId: id(0x21) });
    const result = await b.export({ output: join(tempDir(), 'p.octx') });
    expect(result.report.warnings).toEqual([
      {
        code: 'OCTX_RECORD_FIELD_SUSPECT',
        severity: 'warning',
        path: 'data/events.jsonl',
        recordId: child,
        field: 'parentId',
        message: 'event field "parentId" is not a known field; did you mean "parent_id"? It is kept as an extra field and "parent_id" stays unset',
      },
    ]);
  });

  it('warns on parent-id and sumary too, and not on extra fields that resemble no missing known field', async () => {
    const child = id(0x22);
    const record = { id: child, title: 'Child', content: 'Smaller.', 'parent-id': id(0x21), sumary: 'x', x_source: 'wiki', titles: ['a'], ts: 3 };
    const result = await withChild(builder(), record).export({ output: join(tempDir(), 'q.octx') });
    expect(result.report.warnings.map((w) => [w.field, w.message.match(/did you mean "([a-z_]+)"/)?.[1]])).toEqual([
      ['parent-id', 'parent_id'],
      ['sumary', 'summary'],
    ]);
  });

  it('a refused record leaves no warning behind', async () => {
    const b = builder().addEvent({ id: id(0x21), title: 'P', content: 'C.' });
    const dup = { id: id(0x21), title: 'Again', content: 'Same id.', sumary: 'x' };
    expect(failure(() => b.addEvent(dup)).code).toBe('OCTX_ID_DUPLICATE');
    const result = await b.export({ output: join(tempDir(), 'r.octx'), documentsOnly: true });
    expect(result.report.warnings).toEqual([]);
  });

  it('level with parentId instead of parent_id: the record error says which field was probably meant', () => {
    const b = builder();
    const record = { id: id(0x22), title: 'Child', content: 'Smaller.', parentId: id(0x21), level: 1 };
    const e = failure(() => b.addEvent(record));
    expect(e.code).toBe('OCTX_RECORD_INVALID');
    expect(e.issues.map((i) => [i.code, i.field])).toContainEqual(['OCTX_RECORD_FIELD_SUSPECT', 'parentId']);
    expect(e.message).toContain('did you mean "parent_id"?');
  });

  it('builder strict: the add call refuses the suspect field at once with its own code, and the builder stays usable', async () => {
    const b = builder({ strict: true });
    const record = { id: id(0x22), title: 'Child', content: 'Smaller.', parentId: id(0x21) };
    const e = failure(() => b.addEvent(record));
    expect(e.code).toBe('OCTX_RECORD_FIELD_SUSPECT');
    expect(e.issues).toEqual([expect.objectContaining({ code: 'OCTX_RECORD_FIELD_SUSPECT', severity: 'error', recordId: id(0x22), field: 'parentId' })]);
    withChild(b, { id: id(0x22), title: 'Child', content: 'Smaller.', parent_id: id(0x21), level: 1 });
    const result = await b.export({ output: join(tempDir(), 's.octx') });
    expect(result.report.capabilities).toEqual(['sag-structured']);
  });

  it('export({ strict: true }): the collected suspect warnings refuse the export with OCTX_STRICT_VIOLATION', async () => {
    const record = { id: id(0x22), title: 'Child', content: 'Smaller.', sumary: 'x' };
    const e = await failureAsync(withChild(builder(), record).export({ output: join(tempDir(), 't.octx'), strict: true }));
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(e.issues.map((i) => [i.code, i.field])).toEqual([
      ['OCTX_STRICT_VIOLATION', undefined],
      ['OCTX_RECORD_FIELD_SUSPECT', 'sumary'],
    ]);
  });

  it('a working folder: events.jsonl with parentId is a warning at loading, an error naming file and line under strict', async () => {
    const dir = join(tempDir(), 'kb');
    mkdirSync(join(dir, 'knowledge'), { recursive: true });
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'knowledge/a.md'), `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\nOne.\n`);
    writeFileSync(
      join(dir, 'data/events.jsonl'),
      `${JSON.stringify({ id: id(0x21), title: 'P', content: 'C.' })}\n${JSON.stringify({ id: id(0x22), title: 'Q', content: 'D.', parentId: id(0x21) })}\n`,
    );
    const lax = new PackageBuilder({ asset: { name: 'W' } });
    await loadWorkdir(lax, dir);
    const result = await lax.export({ output: join(tempDir(), 'w.octx') });
    expect(result.report.warnings.filter((w) => w.code === 'OCTX_RECORD_FIELD_SUSPECT').map((w) => [w.recordId, w.field])).toEqual([[id(0x22), 'parentId']]);
    const strict = new PackageBuilder({ asset: { name: 'W' }, strict: true });
    const e = await failureAsync(loadWorkdir(strict, dir));
    await strict.dispose();
    expect(e.code).toBe('OCTX_RECORD_FIELD_SUSPECT');
    expect(e.issues[0]).toMatchObject({ path: 'data/events.jsonl', line: 2, field: 'parentId' });
  });
});
