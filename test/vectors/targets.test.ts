import { describe, expect, it } from 'vitest';
import { VECTOR_TARGETS, isVectorTarget } from '../../src/vectors/targets.js';

describe('vector targets', () => {
  it('lists chunks, events, entities in spec order, frozen', () => {
    expect(VECTOR_TARGETS).toEqual(['chunks', 'events', 'entities']);
    expect(Object.isFrozen(VECTOR_TARGETS)).toBe(true);
  });

  it('recognises exactly the three targets', () => {
    for (const t of VECTOR_TARGETS) expect(isVectorTarget(t)).toBe(true);
    for (const t of ['chunk', 'documents', 'Chunks', '', null, 1, undefined]) expect(isVectorTarget(t)).toBe(false);
  });
});
