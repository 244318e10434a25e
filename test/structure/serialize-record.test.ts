import { describe, expect, it } from 'vitest';
import { RECORD_FIELDS, type RecordKind } from '../../src/model/records.js';
import { serializeRecord } from '../../src/structure/record-check.js';

// serializeRecord writes a record straight through JSON.stringify when its keys are already
// the known fields in spec order. Every line must stay what the ordered copy always wrote.

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** The serialisation before the fast path: known fields in spec order, extras sorted, into a null-prototype copy. */
function copied(kind: RecordKind, r: Record<string, unknown>): string {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of RECORD_FIELDS[kind]) if (r[key] !== undefined) out[key] = r[key];
  const known = new Set(RECORD_FIELDS[kind]);
  const extra = Object.keys(r)
    .filter((k) => !known.has(k) && r[k] !== undefined)
    .sort();
  for (const key of extra) out[key] = r[key];
  // Line separators are written as escapes (issue 16, item 11).
  return JSON.stringify(out).replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function withProto(proto: object | null, fields: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(Object.create(proto) as Record<string, unknown>, fields);
}

function nonEnumerable(fields: Record<string, unknown>, hidden: string, value: unknown): Record<string, unknown> {
  return Object.defineProperty({ ...fields }, hidden, { value, enumerable: false });
}

const C = { id: id(1), document_id: id(2), ordinal: 3, text: '文本 "quoted" \\ \u2028' };

const CASES: [string, RecordKind, Record<string, unknown>, string][] = [
  ['a chunk in spec order', 'chunk', { ...C }, `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"文本 \\"quoted\\" \\\\ \\u2028"}`],
  ['a chunk with its keys reversed', 'chunk', { text: 't', ordinal: 0, document_id: id(2), id: id(1) }, `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":0,"text":"t"}`],
  [
    'a chunk with extra keys',
    'chunk',
    { ...C, text: 't', 'x-z': 1, page: 2, 'x-a': { b: 2, a: 1 } },
    `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"t","page":2,"x-a":{"b":2,"a":1},"x-z":1}`,
  ],
  ['a chunk with an extra key first', 'chunk', { 'x-a': true, ...C, text: 't' }, `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"t","x-a":true}`],
  // Integer-like keys come first in any JavaScript object, the copy included: kept as it was.
  ['a chunk with integer-like extra keys', 'chunk', { ...C, text: 't', 10: 'b', 2: 'a' }, `{"2":"a","10":"b","id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"t"}`],
  ['a chunk with an undefined known field', 'chunk', { id: id(1), document_id: undefined, ordinal: 3, text: 't' }, `{"id":"${id(1)}","ordinal":3,"text":"t"}`],
  ['a chunk with an undefined extra field', 'chunk', { ...C, text: 't', 'x-a': undefined }, `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"t"}`],
  [
    'a chunk with a "__proto__" field from JSON.parse',
    'chunk',
    JSON.parse(`{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"t","__proto__":{"a":1}}`) as Record<string, unknown>,
    `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"t","__proto__":{"a":1}}`,
  ],
  [
    'a chunk whose text is inherited',
    'chunk',
    withProto({ text: 'inherited' }, { id: id(1), document_id: id(2), ordinal: 3 }),
    `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"inherited"}`,
  ],
  [
    'a chunk whose text is not enumerable',
    'chunk',
    nonEnumerable({ id: id(1), document_id: id(2), ordinal: 3 }, 'text', 'hidden'),
    `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"hidden"}`,
  ],
  ['a null-prototype chunk in spec order', 'chunk', withProto(null, { ...C, text: 't' }), `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"t"}`],
  ['a chunk with its own toJSON', 'chunk', { ...C, text: 't', toJSON: () => 'x' }, '"x"'],
  ['a chunk with a nested toJSON', 'chunk', { ...C, text: { toJSON: (key: string) => `via ${key}` } }, `{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"via text"}`],
  ['a chunk with a function value', 'chunk', { ...C, text: 't', ordinal: () => 1 }, `{"id":"${id(1)}","document_id":"${id(2)}","text":"t"}`],
  ['a Date', 'chunk', new Date(0) as unknown as Record<string, unknown>, '{}'],
  ['an empty array', 'chunk', [] as unknown as Record<string, unknown>, '{}'],
  ['an event without its optional fields', 'event', { id: id(1), title: 'T', content: 'C' }, `{"id":"${id(1)}","title":"T","content":"C"}`],
  [
    'a child event in spec order',
    'event',
    { id: id(1), title: 'T', content: 'C', summary: 'S', category: 'k', parent_id: id(9), level: 1 },
    `{"id":"${id(1)}","title":"T","content":"C","summary":"S","category":"k","parent_id":"${id(9)}","level":1}`,
  ],
  [
    'a child event with level before parent_id',
    'event',
    { id: id(1), title: 'T', content: 'C', level: 1, parent_id: id(9) },
    `{"id":"${id(1)}","title":"T","content":"C","parent_id":"${id(9)}","level":1}`,
  ],
  [
    'an event with undefined optional fields',
    'event',
    { id: id(1), title: 'T', content: 'C', summary: undefined, category: undefined, parent_id: undefined, level: undefined },
    `{"id":"${id(1)}","title":"T","content":"C"}`,
  ],
  ['an entity in spec order', 'entity', { id: id(1), name: 'N', type: 'person', description: 'D' }, `{"id":"${id(1)}","name":"N","type":"person","description":"D"}`],
  ['an entity with type before name', 'entity', { id: id(1), type: 'person', name: 'N' }, `{"id":"${id(1)}","name":"N","type":"person"}`],
  ['a chunk-event link', 'chunk-event', { chunk_id: id(1), event_id: id(2) }, `{"chunk_id":"${id(1)}","event_id":"${id(2)}"}`],
  ['a chunk-event link reversed', 'chunk-event', { event_id: id(2), chunk_id: id(1) }, `{"chunk_id":"${id(1)}","event_id":"${id(2)}"}`],
  [
    'an event-entity link with weight',
    'event-entity',
    { event_id: id(1), entity_id: id(2), weight: 0.5, description: 'd' },
    `{"event_id":"${id(1)}","entity_id":"${id(2)}","weight":0.5,"description":"d"}`,
  ],
  [
    'an event-entity link with description before weight',
    'event-entity',
    { event_id: id(1), entity_id: id(2), description: 'd', weight: -0 },
    `{"event_id":"${id(1)}","entity_id":"${id(2)}","weight":0,"description":"d"}`,
  ],
];

describe('serializeRecord', () => {
  it.each(CASES)('writes %s as the ordered copy does', (_name, kind, record, expected) => {
    expect(copied(kind, record)).toBe(expected);
    expect(serializeRecord(kind, record)).toBe(expected);
  });

  it('ignores a toJSON inherited from Object.prototype, as the null-prototype copy does', () => {
    const record = { id: id(1), document_id: id(2), ordinal: 3, text: 't' };
    Object.defineProperty(Object.prototype, 'toJSON', { value: () => 'polluted', configurable: true, writable: true, enumerable: false });
    try {
      expect(serializeRecord('chunk', record)).toBe(`{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"t"}`);
    } finally {
      delete (Object.prototype as { toJSON?: unknown }).toJSON;
    }
  });

  it('does not depend on how many times a field is read for ordered records', () => {
    let reads = 0;
    const record = {
      id: id(1),
      document_id: id(2),
      ordinal: 3,
      get text() {
        reads++;
        return 't';
      },
    };
    expect(serializeRecord('chunk', record)).toBe(`{"id":"${id(1)}","document_id":"${id(2)}","ordinal":3,"text":"t"}`);
    expect(reads).toBeGreaterThan(0);
  });

  it('keeps the spec order for every permutation of every kind', () => {
    const values: Record<string, unknown> = {
      id: id(1),
      document_id: id(2),
      ordinal: 0,
      text: 't',
      title: 'T',
      content: 'C',
      summary: 'S',
      category: 'k',
      parent_id: id(3),
      level: 1,
      name: 'N',
      type: 'p',
      description: 'D',
      chunk_id: id(4),
      event_id: id(5),
      entity_id: id(6),
      weight: 1,
    };
    for (const kind of Object.keys(RECORD_FIELDS) as RecordKind[]) {
      for (const order of permutations([...RECORD_FIELDS[kind]])) {
        const record = Object.fromEntries(order.map((k) => [k, values[k]]));
        expect(serializeRecord(kind, record), `${kind} ${order.join(',')}`).toBe(copied(kind, record));
        expect(Object.keys(JSON.parse(serializeRecord(kind, record)) as object)).toStrictEqual(RECORD_FIELDS[kind]);
      }
    }
  });
});

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest]));
}
