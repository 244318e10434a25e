/**
 * TOML and JSON frontmatter rewritten as YAML (issue 22, item 3): the YAML carries the same data
 * under YAML 1.2 and under YAML 1.1 (the reference's PyYAML), the body stays byte for byte, and
 * what is not frontmatter is left alone.
 */
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { frontmatterSyntax, toYamlFrontmatter } from '../../src/builder/foreign-frontmatter.js';
import { parseFrontmatter } from '../../src/knowledge/frontmatter.js';
import type { OctxError } from '../../src/index.js';

const OPTIONS = { uniqueKeys: true, merge: false, strict: true, stringKeys: true, prettyErrors: false, logLevel: 'silent' } as const;

/** The YAML block of a converted text, read as YAML 1.2 (core) and as YAML 1.1. */
function readBoth(text: string): { v12: unknown; v11: unknown; body: string } {
  const m = /^---\r?\n([\s\S]*?)---\r?\n/.exec(text)!;
  const v12 = parseDocument(m[1]!, { version: '1.2', schema: 'core', ...OPTIONS }).toJS();
  const v11 = parseDocument(m[1]!, { version: '1.1', ...OPTIONS }).toJS();
  return { v12, v11, body: text.slice(m[0].length) };
}

function refusal(text: string): OctxError {
  try {
    toYamlFrontmatter(text, 'knowledge/x.md');
  } catch (e) {
    return e as OctxError;
  }
  throw new Error('expected a refusal');
}

describe('toYamlFrontmatter', () => {
  it('TOML: every value type reads the same under YAML 1.2 and 1.1; keys in order; the body after +++ untouched', () => {
    const toml = [
      '+++',
      'title = "On: yes"',
      'yes = "a key YAML 1.1 would read as true"',
      '"key with spaces" = 1',
      'int = 1_000',
      'big = 1e21',
      'small = 1.5e-7',
      'pi = 3.14',
      'inf = inf',
      'ninf = -inf',
      'nan = nan',
      'flag = true',
      'day = 1979-05-27',
      'when = 1979-05-27T07:32:00Z',
      'local = 1979-05-27T07:32:00.5',
      'clock = 07:32:00',
      'list = ["a", 1, true, 2024-01-01]',
      'multiline = """',
      'two',
      'lines"""',
      '',
      '[octx]',
      'document_id = "019c1234-5678-7abc-8def-0123456789ab"',
      '',
      '[[authors]]',
      'name = "Ann"',
      '[[authors]]',
      'name = "Bo"',
      '',
      '[empty]',
      '+++',
      '',
      '# Body',
      '+++ not a fence in the body',
      '',
    ].join('\n');
    const out = toYamlFrontmatter(toml, 'knowledge/x.md');
    expect(out.syntax).toBe('toml');
    const { v12, v11, body } = readBoth(out.text);
    expect(body).toBe('\n# Body\n+++ not a fence in the body\n');
    expect(out.body).toBe(body);
    const expected = {
      title: 'On: yes',
      yes: 'a key YAML 1.1 would read as true',
      'key with spaces': 1,
      int: 1000,
      big: 1e21,
      small: 1.5e-7,
      pi: 3.14,
      inf: Infinity,
      ninf: -Infinity,
      nan: NaN,
      flag: true,
      day: '1979-05-27',
      when: '1979-05-27T07:32:00Z',
      local: '1979-05-27T07:32:00.500',
      clock: '07:32:00',
      list: ['a', 1, true, '2024-01-01'],
      multiline: 'two\nlines',
      octx: { document_id: '019c1234-5678-7abc-8def-0123456789ab' },
      authors: [{ name: 'Ann' }, { name: 'Bo' }],
      empty: {},
    };
    expect(v12).toEqual(expected);
    expect(v11).toEqual(expected);
    expect(Object.keys(v12 as object)).toEqual(Object.keys(expected));
    // And it passes the builder's own safe-YAML rules.
    expect(parseFrontmatter(/^---\n([\s\S]*?)---\n/.exec(out.text)![1]!).ok).toBe(true);
  });

  it('JSON: the object at the top, strict (no duplicate keys), the body after its closing line untouched', () => {
    const out = toYamlFrontmatter(
      '{\n  "title": "API \\"v2\\"",\n  "weight": 30,\n  "n": null,\n  "nested": { "a": [1, {"b": "}"}] }\n}\n\nBody {with braces}.\n',
      'knowledge/x.md',
    );
    expect(out.syntax).toBe('json');
    const { v12, v11, body } = readBoth(out.text);
    const expected = { title: 'API "v2"', weight: 30, n: null, nested: { a: [1, { b: '}' }] } };
    expect(v12).toEqual(expected);
    expect(v11).toEqual(expected);
    expect(body).toBe('\nBody {with braces}.\n');
    expect(refusal('{\n  "a": 1,\n  "a": 2\n}\n').message).toContain('JSON frontmatter does not parse');
    expect(refusal('{\n  "a": 1\n} trailing\n').message).toContain('on its own line');
    expect(refusal('{\n  "a": 1\n').message).toContain('never closed');
    // As in TOML: an integer beyond 2^53 - 1 is refused (before: 9007199254740993 was carried as 9007199254740992).
    const unsafe = refusal('{"title": "x", "n": 9007199254740993, "s": "12345678901234567890"}\n\nBody\n');
    expect(unsafe.code).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(unsafe.message).toContain('integer 9007199254740993 cannot be carried exactly');
    expect(toYamlFrontmatter('{"n": 9007199254740991, "s": "12345678901234567890"}\nBody\n', 'knowledge/x.md').text).toContain('"n": 9007199254740991');
  });

  it('YAML, no block, a Hugo shortcode or Liquid tag at the top: unchanged', () => {
    for (const text of ['---\na: 1\n---\nBody\n', '# Title\n', '{{< note >}}\nHi\n{{< /note >}}\n', '{% include x.html %}\n', '+++ not a fence\n']) {
      const out = toYamlFrontmatter(text, 'knowledge/x.md');
      expect(out.text).toBe(text);
      expect(['yaml', 'none']).toContain(out.syntax);
    }
    expect(frontmatterSyntax('{ "title": "x" }\nBody')).toBe('json');
    expect(frontmatterSyntax('{}\nBody')).toBe('json');
  });

  it('a TOML block that does not parse, is not closed, or holds an integer JavaScript cannot carry is refused with the file and field', () => {
    const e = refusal('+++\ntitle = \n+++\nBody\n');
    expect(e.code).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(e.issues[0]).toMatchObject({ path: 'knowledge/x.md', field: 'frontmatter' });
    expect(e.message).toContain('TOML frontmatter (+++) does not parse');
    expect(refusal('+++\ntitle = "x"\n').message).toContain('never closed');
    expect(refusal('+++\nn = 9007199254740993\n+++\n').code).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(refusal('+++\n__proto__ = 1\n+++\n').code).toBe('OCTX_DOCUMENT_FRONTMATTER');
  });
});
