/**
 * `addRecord` with a kind that is not a record kind (names from data: a working folder, an
 * adapter) is a typed error with the closest kind, never a bare TypeError, and stores nothing.
 */
import { describe, expect, it } from 'vitest';
import { PackageBuilder } from '../../src/index.js';
import { failure } from '../helpers/errors.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

describe('addRecord with an unknown kind', () => {
  it.each([
    ['nope', undefined],
    ['__proto__', undefined],
    ['constructor', undefined],
    ['Chunk', 'chunk'],
    ['chunks', 'chunk'],
    ['event_entity', 'event-entity'],
    ['entty', 'entity'],
  ])('%j: OCTX_RECORD_KIND_UNKNOWN (did you mean %j)', (kind, near) => {
    const b = new PackageBuilder({ asset: { id: id(9), name: 'K' } });
    const e = failure(() => b.addRecord(kind as never, { id: id(1), document_id: id(2), ordinal: 0, text: 't' }));
    expect(e.code).toBe('OCTX_RECORD_KIND_UNKNOWN');
    expect(e.issues[0]).toMatchObject({ field: 'kind' });
    expect(e.message).toContain(`unknown record kind ${JSON.stringify(kind)}; the kinds are chunk, event, entity, chunk-event, event-entity`);
    if (near === undefined) expect(e.message).not.toContain('did you mean');
    else expect(e.message).toContain(`(did you mean "${near}"?)`);
    // Nothing was stored: the same id is still free.
    expect(() => b.addRecord('chunk', { id: id(1), document_id: id(2), ordinal: 0, text: 't' })).not.toThrow();
  });

  it('a kind that is not a string', () => {
    expect(failure(() => new PackageBuilder({ asset: { id: id(9), name: 'K' } }).addRecord(42 as never, {})).message).toContain('unknown record kind a value of type number');
  });
});
