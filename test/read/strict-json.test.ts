import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../src/read/index.js';
import { findDuplicateKey, findUnsafeIntegerLiteral } from '../../src/read/strict-json.js';

describe('parseStrictJson', () => {
  it('parses strict JSON', () => {
    expect(parseStrictJson('{"a":1,"b":[{"c":"d"}]}')).toEqual({ ok: true, value: { a: 1, b: [{ c: 'd' }] } });
    expect(parseStrictJson('[1,2]')).toEqual({ ok: true, value: [1, 2] });
    expect(parseStrictJson('"x"')).toEqual({ ok: true, value: 'x' });
  });

  it('detects duplicate keys at any depth, after unescaping', () => {
    for (const text of ['{"a":1,"a":2}', '{"x":{"a":1,"a":1}}', '[{"a":1},{"b":1,"b":2}]', '{"a":1,"\\u0061":2}', '{"__proto__":1,"__proto__":2}', '{ "a" : 1 , "a" : 1 }']) {
      const r = parseStrictJson(text);
      expect(r.ok, text).toBe(false);
      if (!r.ok) expect(r.kind).toBe('duplicate-key');
    }
    const named = parseStrictJson('{"outer":{"k":1,"k":2}}');
    expect(named).toMatchObject({ ok: false, key: 'k' });
  });

  it('is not fooled by quotes, colons and escapes inside strings', () => {
    for (const text of ['{"a":"\\"b\\":1","b":"x:y"}', '{"a\\\\":1,"a":2}', '{"a":["\\"a\\":", "a"],"x":{"a":1}}', '{"":1,"\\"":2}']) {
      expect(parseStrictJson(text), text).toMatchObject({ ok: true });
    }
    // Same keys in different objects are fine.
    expect(parseStrictJson('[{"a":1},{"a":2}]')).toMatchObject({ ok: true });
  });

  it('refuses BOM, NaN, Infinity, trailing commas and comments as syntax errors', () => {
    for (const text of ['\ufeff{}', '{"a":NaN}', '{"a":Infinity}', '{"a":-Infinity}', '{"a":1,}', '{"a":1}// c', "{'a':1}"]) {
      expect(parseStrictJson(text), text).toMatchObject({ ok: false, kind: 'syntax' });
    }
  });

  it('refuses nesting deeper than maxDepth', () => {
    expect(parseStrictJson('[[[1]]]', { maxDepth: 3 })).toMatchObject({ ok: true });
    expect(parseStrictJson('[[[[1]]]]', { maxDepth: 3 })).toMatchObject({ ok: false, kind: 'depth' });
    expect(parseStrictJson(`${'['.repeat(101)}${']'.repeat(101)}`)).toMatchObject({ ok: false, kind: 'depth' });
  });

  it('reports numbers that overflow to infinity with their path', () => {
    expect(parseStrictJson('{"a":{"b":[1,1e999]}}')).toMatchObject({ ok: true, nonFinite: 'a.b[1]' });
    expect(parseStrictJson('-1e400')).toMatchObject({ ok: true, nonFinite: '' });
  });

  it('finds unsafe integer literals but not floats or strings', () => {
    expect(findUnsafeIntegerLiteral('{"a":12345678901234567890}')).toBe('12345678901234567890');
    expect(findUnsafeIntegerLiteral('{"a":-9007199254740993}')).toBe('-9007199254740993');
    expect(findUnsafeIntegerLiteral('{"a":9007199254740991,"b":1e300,"c":"12345678901234567890","d":1.2345678901234567890}')).toBeUndefined();
  });

  it('scans strings of millions of characters without a RangeError (issue 16, item 6)', () => {
    const long = 'x'.repeat(9_000_000);
    expect(findUnsafeIntegerLiteral(`{"name":"${long}","n":12345678901234567890}`)).toBe('12345678901234567890');
    expect(findUnsafeIntegerLiteral(`{"name":"${'\\"'.repeat(3_000_000)}","n":1}`)).toBeUndefined();
    expect(findUnsafeIntegerLiteral(`{"k\\\\":"a\\"12345678901234567890","m":[-12345678901234567890]}`)).toBe('-12345678901234567890');
  });

  it('findDuplicateKey names the repeated key', () => {
    expect(findDuplicateKey('{"a":{"b":1},"c":{"b":2,"b":3}}')).toBe('b');
    expect(findDuplicateKey('{"a":1}')).toBeUndefined();
  });
});
