/**
 * Frontmatter read as PyYAML (YAML 1.1, `safe_load`) reads it: the cases found against the real
 * PyYAML, each with what the validator says (`readConceptDocument`), what the builder does
 * (`prepareDocument`: refuse, or write the value double-quoted) and the typed error every YAML
 * failure becomes. The generated comparison with real PyYAML is test/knowledge/pyyaml-differential.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readConceptDocument } from '../../src/knowledge/concept.js';
import { prepareDocument } from '../../src/knowledge/document.js';
import { parseFrontmatter } from '../../src/knowledge/frontmatter.js';
import { pyyamlPlainScalar } from '../../src/knowledge/pyyaml-scalar.js';
import { yamlQuote } from '../../src/knowledge/yaml-quote.js';
import { isOctxError } from '../../src/index.js';

const ID = '019c1234-5678-7abc-8def-0123456789ab';
const TAIL = `type: "Document"\ntitle: "T"\noctx:\n  document_id: "${ID}"\n`;

/** The builder's bytes for a document with this frontmatter block, or the error code. */
function build(block: string): string {
  try {
    return prepareDocument({ path: 'x.md', markdown: `---\n${block}---\nBody\n` }, { mintId: () => ID }).bytes.toString('utf8');
  } catch (e) {
    if (isOctxError(e)) return e.code;
    throw e;
  }
}

/** The validator's issue codes and messages for a Concept Document with this block (plus the required keys). */
function validate(block: string): { code: string; message: string; field?: string }[] {
  return readConceptDocument('knowledge/x.md', `---\n${block}${TAIL}---\nBody\n`).issues.map((i) => ({ code: i.code, message: i.message, ...(i.field ? { field: i.field } : {}) }));
}

describe('PyYAML scalar typing (resolver.py and constructor.py)', () => {
  it.each([
    ['yes', { kind: 'bool', value: true }],
    ['Off', { kind: 'bool', value: false }],
    ['y', { kind: 'str', value: 'y' }],
    ['N', { kind: 'str', value: 'N' }],
    ['07', { kind: 'int', value: 7n }],
    ['010', { kind: 'int', value: 8n }],
    ['08', { kind: 'str', value: '08' }],
    ['0o17', { kind: 'str', value: '0o17' }],
    ['1_000', { kind: 'int', value: 1000n }],
    ['0x1F', { kind: 'int', value: 31n }],
    ['-0x1F', { kind: 'int', value: -31n }],
    ['0b101', { kind: 'int', value: 5n }],
    ['12:30', { kind: 'int', value: 750n }],
    ['190:20:30.15', { kind: 'float', value: 685230.15 }],
    ['1e3', { kind: 'str', value: '1e3' }],
    ['1.0e3', { kind: 'str', value: '1.0e3' }],
    ['1.5e+3', { kind: 'float', value: 1500 }],
    ['.5', { kind: 'float', value: 0.5 }],
    ['-.inf', { kind: 'float', value: -Infinity }],
    ['~', { kind: 'null' }],
    ['', { kind: 'null' }],
    ['2024-01-01', { kind: 'timestamp', value: '2024-01-01' }],
    ['e5', { kind: 'str', value: 'e5' }],
    ['12345678901234567890', { kind: 'int', value: 12345678901234567890n }],
  ])('%j', (text, expected) => {
    expect(pyyamlPlainScalar(text)).toStrictEqual(expected);
  });

  it('refuses what PyYAML cannot construct: <<, =, 0b_', () => {
    expect(pyyamlPlainScalar('<<').kind).toBe('error');
    expect(pyyamlPlainScalar('=').kind).toBe('error');
    expect(pyyamlPlainScalar('0b_').kind).toBe('error');
  });
});

describe('keys PyYAML reads as one key (YAML 1.1 equality)', () => {
  it.each([
    ['yes: 1\non: 2\n', 'key "yes"'],
    ['1: a\n1.0: b\n', 'key "1"'],
    ['null: a\n~: b\n', 'key "null"'],
    ['07: a\n7: b\n', 'key "07"'],
    ['1_000: a\n1000: b\n', 'key "1_000"'],
  ])('%j: the validator refuses it; the builder writes the keys quoted, as two keys for every reader', (block, where) => {
    const issues = validate(block);
    expect(issues.map((i) => i.code)).toContain('OCTX_DOCUMENT_FRONTMATTER');
    expect(issues.find((i) => i.code === 'OCTX_DOCUMENT_FRONTMATTER')!.message).toContain(where);
    const out = build(block);
    const [a, b] = block.split('\n');
    expect(out).toContain(`${yamlQuote(a!.split(':')[0]!)}: ${a!.split(': ')[1]}\n`);
    expect(out).toContain(`${yamlQuote(b!.split(':')[0]!)}: ${b!.split(': ')[1]}\n`);
  });
});

describe('values PyYAML types otherwise', () => {
  it('writes a plain string PyYAML types otherwise double-quoted, and keeps everything else byte for byte', () => {
    const block = `date: 2024-02-05   # published\ndraft: yes\ntime: 12:30\nlist: [a, on, 1_000]\n<<: {b: 1}\nv: =\n${TAIL}`;
    expect(build(block)).toBe(`---\ndate: "2024-02-05"   # published\ndraft: "yes"\ntime: "12:30"\nlist: [a, "on", "1_000"]\n"<<": {b: 1}\nv: "="\n${TAIL}---\nBody\n`);
  });

  it('the validator names each such value, with both readings', () => {
    expect(validate('date: 2024-02-05\n')).toStrictEqual([
      {
        code: 'OCTX_DOCUMENT_FRONTMATTER',
        field: 'date',
        message:
          'date: YAML 1.2 reads the string "2024-02-05" and PyYAML (YAML 1.1, the reference reader) reads a date/time (2024-02-05); quote it so every reader reads the string',
      },
    ]);
    expect(validate('tags: [a, yes]\n').map((i) => i.message)).toStrictEqual([
      expect.stringContaining('tags[1]: YAML 1.2 reads the string "yes" and PyYAML (YAML 1.1, the reference reader) reads True'),
    ]);
  });

  it.each([
    ['n: 010\n', 'the integer 10', 'the integer 8'],
    ['n: 1e3\n', 'the float 1000', 'the string "1e3"'],
    ['n: 0o17\n', 'the integer 15', 'the string "0o17"'],
    ['v: !!int "0o17"\n', 'the integer 15', 'something else'],
  ])('%j: a number both read differently is refused by the builder and the validator', (block, ours, theirs) => {
    expect(build(block)).toBe('OCTX_DOCUMENT_FRONTMATTER');
    const [issue] = validate(block);
    expect(issue!.code).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(issue!.message).toContain(`YAML 1.2 reads ${ours} and PyYAML (YAML 1.1, the reference reader) reads ${theirs}`);
  });

  it('refuses an integer no JavaScript number carries exactly', () => {
    expect(build('views: 12345678901234567890\n')).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(validate('views: 9007199254740993\n')[0]!.message).toContain('beyond 2^53 - 1');
    expect(build('views: 9007199254740991\n')).toContain('views: 9007199254740991\n');
  });

  it('keeps a type PyYAML does not read as a string refused as a missing type', () => {
    expect(build('type: on\n')).toBe('OCTX_DOCUMENT_TYPE_MISSING');
    expect(build('type: 2026-01-01\n')).toBe('OCTX_DOCUMENT_TYPE_MISSING');
    expect(readConceptDocument('knowledge/x.md', `---\ntype: yes\noctx:\n  document_id: "${ID}"\n---\n`).issues.map((i) => i.code)).toStrictEqual(['OCTX_DOCUMENT_TYPE_REQUIRED']);
    expect(build('type: e5\n')).toContain('type: e5\n');
  });
});

describe('text PyYAML splits or scans otherwise', () => {
  it.each([
    ['type: \u0085\n', 'U+0085'],
    ['title: x\u2028---\nb: 1\n', 'U+2028'],
    ['title: "a\u2029b"\n', 'U+2029'],
    ['title: a\ufeffb\n', 'U+FEFF'],
  ])('%j is refused (a line break to YAML 1.1, an ordinary character to 1.2)', (block, cp) => {
    expect(build(block)).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(validate(block)[0]!.message).toContain(`raw ${cp}`);
  });

  it('takes the escaped forms', () => {
    expect(build('title: "a\\u2028b\\x85"\n')).toContain('title: "a\\u2028b\\x85"\n');
    expect(validate('name: "a\\u2028b"\n')).toStrictEqual([]);
  });

  it.each(['title: a\tb\n', 'title: a \tb\n', 'a: b\t# c\n', 'a:\tb\n', 'a: "x"\t\n', 'a:\n- b\n-\tc\n'])('%j: a tab outside quotes is refused', (block) => {
    expect(build(block)).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(validate(block)[0]!.message).toContain('tab');
  });

  it.each(['a: "x\ty"\n', "a: 'x\ty'\n", 'a: b # c\td\n', 'f: |\n  x\ty\n'])('%j: a tab in a quoted string, a comment or a block scalar is kept', (block) => {
    expect(validate(block)).toStrictEqual([]);
  });

  it.each(['a: [x?y]\n', 'a: {k: x?}\n', 'a: [:x]\n'])('%j: a flow collection PyYAML parses otherwise is refused', (block) => {
    expect(validate(block)[0]!.message).toContain('flow collection');
  });
});

describe('every YAML failure is a typed issue', () => {
  it('<<: 1 (the yaml library used to throw a bare Error)', () => {
    expect(parseFrontmatter('<<: 1\n').ok).toBe(true);
    expect(validate('<<: 1\n').map((i) => i.code)).toStrictEqual(['OCTX_DOCUMENT_FRONTMATTER']);
    expect(build('<<: 1\n')).toContain('"<<": 1\n');
  });
});

describe('what the SDK writes', () => {
  it('escapes U+0085, U+2028, U+2029 and U+FEFF in the strings it writes (a derived title here)', () => {
    const out = prepareDocument({ path: 'x.md', markdown: '# a\u0085d\ufeffe\n' }, { mintId: () => ID }).bytes.toString('utf8');
    expect(out).toContain('title: "a\\u0085d\\ufeffe"\n');
    expect(yamlQuote('a\u2028b\u2029c')).toBe('"a\\u2028b\\u2029c"');
    expect(parseFrontmatter(`title: ${yamlQuote('a\u2028b\u2029c\u0085\ufeff\u007f')}\n`)).toMatchObject({
      ok: true,
      value: { data: { title: 'a\u2028b\u2029c\u0085\ufeff\u007f' }, retyped: [] },
    });
  });
});
