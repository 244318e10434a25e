/**
 * TOML and JSON frontmatter converted to YAML keep their values: a float stays a float (`1.0`,
 * `-0.0`, `1e20`), a key keeps its place (integer-like keys included, which JavaScript objects move
 * first), U+2028/U+2029 are escaped, and a time finer than a millisecond, which the TOML parser
 * cannot carry, is refused rather than cut. Read back as the builder reads YAML (which compares
 * every scalar with PyYAML's typing) and, when a python3 with PyYAML is found, by PyYAML itself.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toYamlFrontmatter } from '../../src/builder/foreign-frontmatter.js';
import { parseFrontmatter } from '../../src/knowledge/frontmatter.js';
import { isOctxError } from '../../src/index.js';
import { findPythonWithYaml } from '../helpers/python.js';
import { ROOT } from '../helpers/temp.js';

function block(text: string): string {
  return /^---\n([\s\S]*?)---\n/.exec(toYamlFrontmatter(text, 'knowledge/x.md').text)![1]!;
}

function refusal(text: string): string {
  try {
    toYamlFrontmatter(text, 'knowledge/x.md');
  } catch (e) {
    if (isOctxError(e, 'OCTX_DOCUMENT_FRONTMATTER')) return e.message;
    throw e;
  }
  throw new Error('expected a refusal');
}

const JSON_DOC =
  '{"a": 1.0, "b": -0.0, "c": 1e20, "d": 12345678901234567890.0, "e": 1.5e-7, "i": 3, "n": -0, "2": "two", "z": "a\\u2028b\\u2029c", "1": {"10": true, "9": null}}\n\nBody\n';
const JSON_BLOCK =
  'a: 1.0\nb: -0.0\nc: 100000000000000000000.0\nd: 12345678901234567000.0\ne: 1.5e-7\ni: 3\n"n": 0\n"2": "two"\nz: "a\\u2028b\\u2029c"\n"1":\n  "10": true\n  "9": null\n';
const TOML_DOC = '+++\nf = 1.0\nz = -0.0\nbig = 1e20\ni = 1_000\ntime = 1979-05-27T07:32:00.123Z\nsep = "a\u2028b"\n+++\nBody\n';
const TOML_BLOCK = 'f: 1.0\nz: -0.0\nbig: 100000000000000000000.0\ni: 1000\ntime: "1979-05-27T07:32:00.123Z"\nsep: "a\\u2028b"\n';

describe('TOML/JSON frontmatter keeps its values in YAML', () => {
  it('JSON: floats stay floats, keys keep their order, line and paragraph separators are escaped', () => {
    expect(block(JSON_DOC)).toBe(JSON_BLOCK);
    const parsed = parseFrontmatter(JSON_BLOCK);
    expect(parsed.ok && parsed.value.retyped).toEqual([]);
    expect(parsed.ok && Object.keys(parsed.value.data)).toEqual(['1', '2', 'a', 'b', 'c', 'd', 'e', 'i', 'n', 'z']); // (a JS object; the text keeps the order)
  });

  it('TOML: floats stay floats, integers stay integers; a time keeps its milliseconds', () => {
    expect(block(TOML_DOC)).toBe(TOML_BLOCK);
  });

  it('TOML: a time finer than a millisecond is refused, naming it', () => {
    expect(refusal('+++\nt = 1979-05-27T07:32:00.999999Z\n+++\nBody\n')).toContain('1979-05-27T07:32:00.999999Z');
    expect(refusal('+++\nt = 07:32:00.1234\n+++\nBody\n')).toContain('07:32:00.1234');
  });

  it('TOML: a table with an integer-like key among others is refused (its order cannot be read back)', () => {
    expect(refusal('+++\nb = 1\n"1" = 2\n+++\nBody\n')).toContain('"1"');
    expect(block('+++\n[t]\n"1" = 2\n+++\nBody\n')).toBe('t:\n  "1": 2\n');
  });

  const python = findPythonWithYaml();
  it.skipIf(python === undefined && !process.env.CI)('PyYAML reads the converted blocks as the same typed values', () => {
    if (python === undefined) throw new Error('CI is set and no python3 with PyYAML was found');
    const r = spawnSync(python.command, [join(ROOT, 'test/knowledge/pyyaml-oracle.py')], {
      input: `${JSON.stringify({ v: JSON_BLOCK })}\n${JSON.stringify({ v: TOML_BLOCK })}\n`,
      encoding: 'utf8',
    });
    const [, json, toml] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(json).toStrictEqual({
      ok: {
        m: [
          [{ s: 'a' }, { f: '1.0' }],
          [{ s: 'b' }, { f: '-0.0' }],
          [{ s: 'c' }, { f: '1e+20' }],
          [{ s: 'd' }, { f: '1.2345678901234567e+19' }],
          [{ s: 'e' }, { f: '1.5e-07' }],
          [{ s: 'i' }, { i: '3' }],
          [{ s: 'n' }, { i: '0' }],
          [{ s: '2' }, { s: 'two' }],
          [{ s: 'z' }, { s: 'a\u2028b\u2029c' }],
          [
            { s: '1' },
            {
              m: [
                [{ s: '10' }, { b: true }],
                [{ s: '9' }, { n: 1 }],
              ],
            },
          ],
        ],
      },
    });
    expect(toml).toStrictEqual({
      ok: {
        m: [
          [{ s: 'f' }, { f: '1.0' }],
          [{ s: 'z' }, { f: '-0.0' }],
          [{ s: 'big' }, { f: '1e+20' }],
          [{ s: 'i' }, { i: '1000' }],
          [{ s: 'time' }, { s: '1979-05-27T07:32:00.123Z' }],
          [{ s: 'sep' }, { s: 'a\u2028b' }],
        ],
      },
    });
  });
});
