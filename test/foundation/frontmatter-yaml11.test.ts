import { describe, expect, it } from 'vitest';
import { isMap, isScalar, parseDocument } from 'yaml';
import { prepareDocument } from '../../src/knowledge/document.js';
import { mayRetypeUnderYaml11, parseFrontmatter } from '../../src/knowledge/frontmatter.js';
import { isOctxError } from '../../src/index.js';

// parseFrontmatter only parses a block a second time, as YAML 1.1, when some node could read
// differently there. These tests hold it to what an unconditional YAML 1.1 reading gives.

const ID = '019c1234-5678-7abc-8def-0123456789ab';

const OPTIONS = { uniqueKeys: true, merge: false, strict: true, stringKeys: true, prettyErrors: false, logLevel: 'silent' } as const;

/** The YAML 1.1 reading parseFrontmatter always did before: parse, refuse on any error or warning. */
function read11(source: string): { ok: true; data: unknown } | { ok: false } {
  const doc = parseDocument(source, { version: '1.1', ...OPTIONS });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return { ok: false };
  return { ok: true, data: doc.toJS({ maxAliasCount: 0 }) };
}

function read12(source: string): unknown {
  return parseDocument(source, { version: '1.2', schema: 'core', ...OPTIONS }).toJS({ maxAliasCount: 0 });
}

describe('parseFrontmatter: YAML 1.1 typing only when it can differ', () => {
  it.each([
    // [frontmatter, 1.2 value of v, 1.1 value of v]
    ['v: yes\n', 'yes', true],
    ['v: Off\n', 'Off', false],
    ['v: y\n', 'y', true],
    ['v: N\n', 'N', false],
    ['v: 0o17\n', 15, '0o17'],
    ['v: 017\n', 17, 15],
    ['v: 1_000\n', '1_000', 1000],
    ['v: 0x1F\n', 31, 31],
    ['v: 0b101\n', '0b101', 5],
    ['v: .5\n', 0.5, 0.5],
    ['v: 1:20\n', '1:20', 80],
    ['v: e5\n', 'e5', Number.NaN], // the yaml library's 1.1 float: a mantissa-less exponent
    ['v: +12\n', 12, 12],
    ['v: true\n', true, true],
    ['v: ~\n', null, null],
    ['v:\n', null, null],
    ['v: "yes"\n', 'yes', 'yes'],
    ["v: '0o17'\n", '0o17', '0o17'],
    ['v: "2026-01-01"\n', '2026-01-01', '2026-01-01'],
    ['v: |\n  yes\n', 'yes\n', 'yes\n'],
    ['v: !!str yes\n', 'yes', 'yes'],
    ['v: yes-please\n', 'yes-please', 'yes-please'],
    ['v: [a, yes]\n', ['a', 'yes'], ['a', true]],
    ['v: {k: on}\n', { k: 'on' }, { k: true }],
  ])('%j reads v as %j (1.2) and %j (1.1)', (source, v12, v11) => {
    const parsed = parseFrontmatter(source);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.data.v).toStrictEqual(v12);
    expect(parsed.value.yaml11.v).toStrictEqual(v11);
  });

  it('reads a YAML 1.1 timestamp as a Date only in the 1.1 reading', () => {
    const parsed = parseFrontmatter('date: 2026-01-01\n');
    expect(parsed.ok && parsed.value.data.date).toBe('2026-01-01');
    expect(parsed.ok && parsed.value.yaml11.date).toStrictEqual(new Date(Date.UTC(2026, 0, 1)));
  });

  it('still refuses a tagged scalar that only YAML 1.1 cannot resolve', () => {
    // 1.2 core reads `!!int "0o17"` as 15; the 1.1 schema has no 0o octal, so it warns. The
    // value is quoted and the key is no 1.1 word: only the tag calls for the 1.1 reading.
    expect(read12('num: !!int "0o17"\n')).toStrictEqual({ num: 15 });
    expect(parseFrontmatter('num: !!int "0o17"\n').ok).toBe(false);
  });

  it('skips the second reading for the usual block: yaml11 is the 1.2 data itself', () => {
    const source = `type: "Document"\ntitle: "产品指南 42"\noctx:\n  document_id: "${ID}"\n`;
    const parsed = parseFrontmatter(source);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.yaml11).toBe(parsed.value.data);
    expect(parsed.value.data).toStrictEqual({ type: 'Document', title: '产品指南 42', octx: { document_id: ID } });
    // …and parses again when a value could read differently.
    const again = parseFrontmatter(`${source}draft: no\n`);
    expect(again.ok && again.value.yaml11 !== again.value.data).toBe(true);
  });

  it('keeps refusing types and ids that are strings only under YAML 1.2', () => {
    const mintId = () => ID;
    const code = (markdown: string): string | undefined => {
      try {
        prepareDocument({ path: 'x.md', markdown }, { mintId });
      } catch (e) {
        if (isOctxError(e)) return e.code;
        throw e;
      }
      return undefined;
    };
    expect(code('---\ntype: on\n---\n')).toBe('OCTX_DOCUMENT_TYPE_MISSING');
    expect(code('---\ntype: 2026-01-01\n---\n')).toBe('OCTX_DOCUMENT_TYPE_MISSING');
    expect(code('---\ntype: e5\n---\n')).toBe('OCTX_DOCUMENT_TYPE_MISSING');
    expect(code('---\ntype: Guide\n---\n')).toBeUndefined();
    expect(code(`---\ntype: "Document"\ntitle: "T"\noctx:\n  document_id: "${ID}"\n---\n`)).toBeUndefined();
    expect(code(`---\ntype: "Document"\noctx:\n  document_id: ${ID}\n---\n`)).toBeUndefined();
  });

  // Every plain scalar of up to 3 characters over the characters YAML 1.1 typing looks at, plus
  // longer values of each 1.1 type: wherever the 1.1 reading differs from the 1.2 one, the node
  // test must say so, and parseFrontmatter must give exactly the unconditional 1.1 reading.
  const ALPHABET = [...'017_.:-+eExobyYnNOf~<'];
  const candidates = new Set<string>();
  const grow = (prefix: string, depth: number): void => {
    for (const c of ALPHABET) {
      candidates.add(prefix + c);
      if (depth > 1) grow(prefix + c, depth - 1);
    }
  };
  grow('', 3);
  for (const v of [
    'yes',
    'Yes',
    'YES',
    'yEs',
    'no',
    'No',
    'NO',
    'on',
    'On',
    'ON',
    'off',
    'Off',
    'OFF',
    'true',
    'False',
    'NULL',
    'Null',
    'nULL',
    '.inf',
    '-.Inf',
    '+.INF',
    '.nan',
    '.NaN',
    '.NAN',
    '1e5',
    '1E+5',
    '1.0e+10',
    'e+5',
    'E-10',
    '_1',
    '1__0',
    '0x_1F',
    '0xff',
    '-0x1F',
    '0o777',
    '0777',
    '-017',
    '0b1_0',
    '+0b1',
    '2026-01-01',
    '2026-1-1',
    '2001-12-14t21:59:43.10-05:00',
    '2001-12-14 21:59:43.10 -5',
    '190:20:30',
    '1:20.5',
    '-1:20',
    '12:60',
    '1.5',
    '1.',
    '-.5',
    '+1_000.5',
    '<<',
    '=',
    '~',
    'example',
    'Offline',
    'yesterday',
    'nope',
  ])
    candidates.add(v);

  it(`agrees with an unconditional YAML 1.1 reading on ${candidates.size} plain scalars`, () => {
    let differing = 0;
    let checked = 0;
    for (const v of candidates) {
      const source = `k: ${v}\n`;
      const doc = parseDocument(source, { version: '1.2', schema: 'core', ...OPTIONS });
      if (doc.errors.length > 0 || doc.warnings.length > 0) continue; // not a plain scalar value
      const contents = doc.contents;
      const node = isMap(contents) ? contents.items[0]?.value : undefined;
      if (!isScalar(node) || node.type !== 'PLAIN') continue;
      checked++;
      const v12 = (doc.toJS() as Record<string, unknown>).k;
      const legacy = read11(source);
      const v11 = legacy.ok ? (legacy.data as Record<string, unknown>).k : undefined;
      if (!legacy.ok || !sameValue(v11, v12)) {
        differing++;
        expect(mayRetypeUnderYaml11(node), `node test misses ${JSON.stringify(v)}`).toBe(true);
      }
      const parsed = parseFrontmatter(source);
      expect(parsed.ok, `ok-ness of ${JSON.stringify(v)}`).toBe(legacy.ok);
      if (parsed.ok && legacy.ok) {
        expect(parsed.value.yaml11, `1.1 reading of ${JSON.stringify(v)}`).toStrictEqual(legacy.data);
        expect(parsed.value.data.k, `1.2 reading of ${JSON.stringify(v)}`).toStrictEqual(v12);
      }
    }
    // The table must have exercised both sides.
    expect(checked).toBeGreaterThan(5000);
    expect(differing).toBeGreaterThan(100);
  });

  it('treats quoted and block scalars as strings in both readings, and tagged nodes as unknown', () => {
    const nodeOf = (source: string) => {
      const contents = parseDocument(source).contents;
      return isMap(contents) ? contents.items[0]!.value! : contents!;
    };
    expect(mayRetypeUnderYaml11(nodeOf('k: "yes"\n') as never)).toBe(false);
    expect(mayRetypeUnderYaml11(nodeOf("k: '1_000'\n") as never)).toBe(false);
    expect(mayRetypeUnderYaml11(nodeOf('k: >\n  2026-01-01\n') as never)).toBe(false);
    expect(mayRetypeUnderYaml11(nodeOf('k: Document\n') as never)).toBe(false);
    expect(mayRetypeUnderYaml11(nodeOf('k: !!str Document\n') as never)).toBe(true);
    expect(mayRetypeUnderYaml11(nodeOf('k: yes\n') as never)).toBe(true);
    expect(mayRetypeUnderYaml11(nodeOf('k: 2026-01-01\n') as never)).toBe(true);
  });
});

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  return Object.is(a, b);
}
