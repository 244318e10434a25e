/**
 * The reader of plain frontmatter blocks (`src/knowledge/simple-frontmatter.ts`) against the full
 * safe-YAML parse (`parseWithYaml`): every block it reads must give the same data under YAML 1.2
 * and 1.1 and the same node count; everything else must be left to the full parse. Generated
 * blocks sit on the boundary (typed words, numbers, dates, escapes, comments, indentation), and
 * a sample is read by the real PyYAML (the reference reader) when python3 has it.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lexCounted, parseFrontmatter, parseWithYaml } from '../../src/knowledge/frontmatter.js';
import { readSimpleFrontmatter } from '../../src/knowledge/simple-frontmatter.js';
import { fuzzParameters } from '../fuzz/fuzz-config.js';

const W_BLOCK = 'type: "Document"\ntitle: "Topic 12 – overview"\noctx:\n  document_id: "019b76da-a800-7000-8000-000000000001"\n';
const FOLDER_BLOCK = 'type: Document\ntitle: Topic 12\noctx:\n  document_id: 019b76da-a800-7000-8000-000000000001\n';

/** The full parse's reading of `source`, or its refusal. */
function full(source: string) {
  return parseWithYaml(source, Number.MAX_SAFE_INTEGER);
}

/** Asserts that a block the simple reader accepts reads the same in full. */
function expectSameAsFull(source: string): void {
  const simple = readSimpleFrontmatter(source);
  const reference = full(source);
  expect(reference.ok, `full parse of ${JSON.stringify(source)}`).toBe(true);
  if (!simple || !reference.ok) return;
  expect(simple.data, JSON.stringify(source)).toStrictEqual(reference.value.data);
  expect(reference.value.retyped, `PyYAML reading of ${JSON.stringify(source)}`).toEqual([]);
  expect(simple.nodes, `node count of ${JSON.stringify(source)}`).toBe(lexCounted(source, Number.MAX_SAFE_INTEGER).nodes);
}

describe('readSimpleFrontmatter', () => {
  it('reads the blocks the SDK and the usual tools write, as the full parse does', () => {
    for (const source of [
      W_BLOCK,
      FOLDER_BLOCK,
      'title: 三国志 第一回\ntype: Concept\n',
      'title: ""\n',
      'title: "a: b # c, [d] {e} &f *g !h |i >j"\n',
      'title: Résumé (draft) - v2.1, final/rev+1\n',
      'octx:\n    document_id: "019b76da-a800-7000-8000-000000000001"\n    source: web\ntags_note: x\n',
    ]) {
      expect(readSimpleFrontmatter(source), JSON.stringify(source)).toBeDefined();
      expectSameAsFull(source);
    }
    expect(readSimpleFrontmatter(FOLDER_BLOCK)).toStrictEqual({
      data: { type: 'Document', title: 'Topic 12', octx: { document_id: '019b76da-a800-7000-8000-000000000001' } },
      nodes: 11,
    });
  });

  it('parseFrontmatter reads the empty block as the yaml library does, without it (the simple reader declines it: PyYAML reads None)', () => {
    const fast = parseFrontmatter('');
    const reference = full('');
    if (!fast.ok || !reference.ok) throw new Error('the empty block must parse');
    expect(fast.value.data).toStrictEqual({});
    expect(fast.value.data).toStrictEqual(reference.value.data);
    expect(fast.value.nodes).toBe(0);
    expect(fast.value.nodes).toBe(reference.value.nodes);
    expect(fast.value.retyped).toEqual([]);
    expect(String(fast.value.document)).toBe(String(reference.value.document));
    // Each reading has its own object: a caller that fills one does not fill the next.
    fast.value.data.x = 1;
    const again = parseFrontmatter('');
    expect(again.ok && again.value.data).toStrictEqual({});
  });

  it('leaves every other shape to the full parse', () => {
    for (const source of [
      '', // empty block
      'title: x', // no final line end
      'title: x\r\n', // CRLF
      'title: yes\n', // a 1.1 boolean
      'title: No\n',
      'title: null\n',
      'title: TRUE\n',
      'on: x\n', // a typed key
      'e5: x\n',
      'title: e5\n', // a 1.1 float
      'title: 12\n', // a number
      'title: 2026-01-01\n', // a date
      'title: .inf\n',
      'title: x \n', // trailing space
      'title:  x\n', // two spaces
      'title: x # note\n', // a comment
      '# note\ntitle: x\n',
      'title: x\n\nmore: y\n', // a blank line
      'title: "a\\"b"\n', // an escape
      "title: 'x'\n", // single quotes
      'title: "a\tb"\n', // a tab
      'title: "a\u2028b"\n', // a 1.1 line break
      'tags: [a, b]\n', // flow
      'tags:\n  - a\n', // a sequence
      'octx:\n', // null
      'octx:\n  a: x\n   b: y\n', // uneven indentation
      'octx:\n  inner:\n    deep: x\n', // a second level
      'title: x\ntitle: y\n', // a repeated key
      'octx:\n  a: x\n  a: y\n',
      '__proto__: x\n',
      'title: &a x\n', // an anchor
      'title: !!str x\n', // a tag
      'title: 019B76DA-A800-7000-8000-000000000001\n', // not a canonical (lower-case) UUID
      '  title: x\n', // indented at the root
      `${'k'.repeat(1025)}: x\n`, // a key above YAML's 1024-character bound
    ]) {
      expect(readSimpleFrontmatter(source), JSON.stringify(source)).toBeUndefined();
    }
  });

  it('agrees with the full parse on generated blocks near its boundary', () => {
    // Mostly keys and values the reader takes, with the ones it must decline mixed in.
    const key = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('type', 'title', 'octx', 'document_id', 'a-b', '_x', 'x1', 'Name') },
      { weight: 1, arbitrary: fc.constantFrom('on', 'Y', 'null', 'e5', 'E2e', '__proto__', 'key with space', 'k:', '1a') },
    );
    const word = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.constantFrom(
          'Document',
          'Topic 12',
          'a - b',
          'x,y',
          'a/b+c',
          'Résumé',
          '三国志',
          'ex',
          'nope',
          'yess',
          'Nan',
          '019b76da-a800-7000-8000-000000000001',
          '12345678-1234-1234-1234-123456789012',
          '',
        ),
      },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          '(draft)',
          'yes',
          'Off',
          'NULL',
          'true',
          'n',
          'e5',
          'E-3',
          '12',
          '0x1f',
          '1_000',
          '2026-01-01',
          '12:30',
          '.inf',
          '~',
          '-x',
          'a: b',
          'a #b',
          'a#b',
          'x ',
          '019b76da-a800-7000-8000-00000000000',
        ),
      },
    );
    const quoted = word.map((w) => `"${w}"`);
    const escaped = fc.constantFrom('"a\\"b"', '"\\u00e9"', '"a\\/b"', "'single'", '"a\u0085b"');
    const value = fc.oneof({ weight: 4, arbitrary: word }, { weight: 3, arbitrary: quoted }, { weight: 1, arbitrary: escaped });
    const pair = fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`);
    const nested = fc
      .tuple(key, fc.constantFrom(' ', '  ', '    '), fc.array(fc.tuple(key, value, fc.boolean()), { minLength: 0, maxLength: 3 }))
      .map(([k, indent, items]) => [`${k}:`, ...items.map(([ik, v, shift]) => `${shift && items.length > 1 ? `${indent} ` : indent}${ik}: ${v}`)].join('\n'));
    const line = fc.oneof({ weight: 6, arbitrary: pair }, { weight: 2, arbitrary: nested }, { weight: 1, arbitrary: fc.constantFrom('', '# c', '- x', 'x', '---') });
    const block = fc.array(line, { minLength: 1, maxLength: 5 }).map((lines) => `${lines.join('\n')}\n`);
    let read = 0;
    let declined = 0;
    fc.assert(
      fc.property(block, (source) => {
        if (readSimpleFrontmatter(source) === undefined) {
          declined++;
          return;
        }
        read++;
        expectSameAsFull(source);
      }),
      fuzzParameters(4000),
    );
    // Both sides of the boundary were exercised.
    expect(read).toBeGreaterThan(200);
    expect(declined).toBeGreaterThan(200);
  });
});

describe('parseFrontmatter with a simple block', () => {
  it('lists nothing PyYAML reads otherwise, and gives the yaml document only when asked for', () => {
    const parsed = parseFrontmatter(FOLDER_BLOCK);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.retyped).toEqual([]);
    expect(parsed.value.nodes).toBe(11);
    // The document is the full parse's, with its ranges (used to insert a missing document_id).
    const first = parsed.value.document;
    expect(first.toJS()).toStrictEqual(parsed.value.data);
    expect(parsed.value.document).toBe(first);
  });

  it('still enforces the node bound', () => {
    const parsed = parseFrontmatter(FOLDER_BLOCK, { maxNodes: 10 });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.tooComplex).toBe(true);
  });
});

// PyYAML, the reference reader's YAML library, when python3 has it.
const pyyaml = spawnSync(process.env.PYTHON ?? 'python3', ['-c', 'import yaml'], { encoding: 'utf8' });
const hasPyYaml = pyyaml.status === 0;

describe.skipIf(!hasPyYaml)('readSimpleFrontmatter against PyYAML', () => {
  it('reads the accepted blocks as PyYAML safe_load does', () => {
    const blocks = [
      W_BLOCK,
      FOLDER_BLOCK,
      'title: 三国志 第一回\ntype: Concept\n',
      'title: Résumé (draft) - v2.1, final/rev+1\n',
      'title: "a: b # c, [d] {e} &f *g !h |i >j"\nx1: ex\na-b: a - b\n',
      'octx:\n    document_id: "019b76da-a800-7000-8000-000000000001"\n    source: web\n',
      'id: 12345678-1234-1234-1234-123456789012\n',
    ];
    const script = 'import json, sys, yaml\nfor s in json.load(sys.stdin):\n    print(json.dumps(yaml.safe_load(s), ensure_ascii=False))\n';
    const run = spawnSync(process.env.PYTHON ?? 'python3', ['-c', script], { input: JSON.stringify(blocks), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const answers = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    blocks.forEach((source, i) => {
      const simple = readSimpleFrontmatter(source);
      expect(simple, JSON.stringify(source)).toBeDefined();
      expect(simple!.data, JSON.stringify(source)).toStrictEqual(answers[i]);
    });
  });
});
