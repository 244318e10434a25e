/** The two pieces of Python that SAG's rules rest on, checked against CPython 3.11's answers (fixtures/consumers/). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { casefold, nfcCasefold, sagEntityIdentity } from '../../src/index.js';
import { codePointLength } from '../../src/model/casefold.js';
import { pythonParsesIsoDatetime } from '../../src/consumers/python/fromisoformat.js';
import { ROOT } from '../helpers/temp.js';

const fixture = (name: string) => JSON.parse(readFileSync(join(ROOT, 'fixtures/consumers', name), 'utf8')) as { cases: [string, string | boolean][] };

describe('casefold', () => {
  it.each(fixture('python-casefold.json').cases)('%s → Python casefold', (input, expected) => {
    expect(casefold(input)).toBe(expected);
  });
  it('NFC first, so composed and decomposed spellings fold alike', () => {
    expect(nfcCasefold('E\u0301mile')).toBe(nfcCasefold('\u00E9MILE'));
    expect(sagEntityIdentity('person', 'Cao Cao')).toBe(sagEntityIdentity('person', 'CAO CAO'));
    expect(sagEntityIdentity('person', 'Cao Cao')).not.toBe(sagEntityIdentity('title', 'Cao Cao'));
  });
  it('lengths count code points, as Python and VARCHAR do', () => {
    expect(codePointLength('𝒜'.repeat(3))).toBe(3);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('\ud800x')).toBe(2);
  });
});

describe('datetime.fromisoformat', () => {
  it.each(fixture('python-fromisoformat.json').cases)('%j → %s', (input, ok) => {
    expect(pythonParsesIsoDatetime(input)).toBe(ok);
  });
  it('non-strings never parse', () => {
    expect(pythonParsesIsoDatetime(20260712)).toBe(false);
    expect(pythonParsesIsoDatetime(null)).toBe(false);
  });
});
