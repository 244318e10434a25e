/**
 * Review of the plain-frontmatter fast path (issue 23): `readSimpleFrontmatter` must accept only
 * blocks that the full safe-YAML parse (`parseWithYaml`) reads the same way (ok-ness, data, the
 * YAML 1.1 reading, the node count) and that PyYAML `safe_load` (the reference reader) reads to
 * the same data. The tests here go wider than `simple-frontmatter.test.ts`: every code point of
 * the letter ranges the reader takes, every BMP character in a double-quoted value, exhaustive
 * short keys and values, a character-level fast-check property, and the callers
 * (`prepareDocument`, `readConceptDocument`, `reservedDocumentProblems`, `mergeFrontmatter`)
 * compared against a copy of themselves whose fast path is switched off.
 *
 * The review found one divergence, now fixed: keys longer than 1024 characters (YAML's bound on
 * an implicit key) were accepted; the tests of that section pin the refusal.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { mergeFrontmatter } from '../../src/adapters/shared/frontmatter-merge.js';
import { readConceptDocument } from '../../src/knowledge/concept.js';
import { prepareDocument } from '../../src/knowledge/document.js';
import { lexCounted, parseFrontmatter, parseWithYaml } from '../../src/knowledge/frontmatter.js';
import { reservedDocumentProblems } from '../../src/knowledge/reserved.js';
import { readSimpleFrontmatter } from '../../src/knowledge/simple-frontmatter.js';
import { fuzzParameters } from '../fuzz/fuzz-config.js';

// Characters parseFrontmatter refuses before `readSimpleFrontmatter` runs (its NON_PRINTABLE).
// eslint-disable-next-line no-control-regex
const PRE_REFUSED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

const ID = '019b76da-a800-7000-8000-000000000001';

/** The full parse's reading of `source`, or its refusal. */
function full(source: string) {
  return parseWithYaml(source, Number.MAX_SAFE_INTEGER);
}

/**
 * A value's exact shape as text: for objects their prototype and every own property (key order,
 * descriptor flags, value), recursively. `toStrictEqual` cannot be used for this data: it compares
 * `a.constructor === b.constructor`, so two equal objects with an own `constructor` key differ.
 */
function shape(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify([typeof v, v]);
  const proto = Object.getPrototypeOf(v) as unknown;
  const protoName = proto === Object.prototype ? 'Object' : proto === Array.prototype ? 'Array' : proto === null ? 'null' : 'other';
  const props = Reflect.ownKeys(v).map((k) => {
    const d = Object.getOwnPropertyDescriptor(v, k)!;
    return `${String(k)}${d.enumerable ? 'e' : ''}${d.writable ? 'w' : ''}${d.configurable ? 'c' : ''}${d.get || d.set ? 'accessor' : ''}=${shape(d.value)}`;
  });
  return `${protoName}{${props.join(',')}}`;
}

/** Whatever differs between the fast reader and the full parse for an accepted block, or `undefined`. */
function divergence(source: string): string | undefined {
  const simple = readSimpleFrontmatter(source);
  if (simple === undefined) return undefined;
  const reference = full(source);
  if (!reference.ok) return `full parse refuses it: ${reference.reason}`;
  const got = shape(simple.data);
  if (got !== shape(reference.value.data)) return `data differs: ${got} vs ${shape(reference.value.data)}`;
  if (reference.value.retyped.length > 0) return `PyYAML reads ${reference.value.retyped[0]!.where} otherwise`;
  const nodes = lexCounted(source, Number.MAX_SAFE_INTEGER).nodes;
  if (simple.nodes !== nodes) return `node count ${simple.nodes}, lexCounted ${nodes}`;
  return undefined;
}

function expectNoDivergence(source: string): void {
  expect(divergence(source), JSON.stringify(source.slice(0, 300))).toBeUndefined();
}

/** Code points of `readSimpleFrontmatter`'s WIDE class (as documented in its source). */
const WIDE_RANGES: readonly [number, number][] = [
  [0xc0, 0xd6],
  [0xd8, 0xf6],
  [0xf8, 0x24f],
  [0x3001, 0x9fff],
  [0xac00, 0xd7a3],
  [0xff01, 0xff60],
];

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One block of `k0: v0`, `k1: v1`, … lines (top level), or the same under `octx:` (nested). */
function pairsBlock(values: readonly string[], nested = false): string {
  const lines = values.map((v, i) => `${nested ? '  ' : ''}k${i}: ${v}`);
  return `${nested ? 'octx:\n' : ''}${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// PyYAML, one process for all blocks (JSON over stdin, one JSON answer a line).
const python = process.env.PYTHON ?? 'python3';
const hasPyYaml = spawnSync(python, ['-c', 'import yaml'], { encoding: 'utf8' }).status === 0;

/** PyYAML safe_load of each block: `{ ok, data }` or `{ ok: false, error }`. */
function pyyamlRead(blocks: readonly string[]): ({ ok: true; data: unknown } | { ok: false; error: string })[] {
  const script = [
    'import json, sys, yaml',
    'out = []',
    'for s in json.load(sys.stdin):',
    '    try:',
    '        out.append(json.dumps({"ok": True, "data": yaml.safe_load(s)}, ensure_ascii=True, default=repr))',
    '    except Exception as e:',
    '        out.append(json.dumps({"ok": False, "error": type(e).__name__ + ": " + str(e).splitlines()[0]}))',
    'sys.stdout.write("\\n".join(out) + "\\n")',
  ].join('\n');
  const run = spawnSync(python, ['-c', script], { input: JSON.stringify(blocks), encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  expect(lines.length).toBe(blocks.length);
  return lines.map((l) => JSON.parse(l) as { ok: true; data: unknown } | { ok: false; error: string });
}

// Accepted blocks collected by the tests below; PyYAML reads them all at the end (one process).
const forPyYaml: string[] = [];
function accepted(source: string, withPyYaml = true): void {
  expect(readSimpleFrontmatter(source), JSON.stringify(source.slice(0, 200))).toBeDefined();
  expectNoDivergence(source);
  // PyYAML (pure Python) is slow: the exhaustive tests send it one form of each character.
  if (withPyYaml) forPyYaml.push(source);
}

// ---------------------------------------------------------------------------------------------
describe('keys longer than 1024 characters (found in review, fixed)', () => {
  // An implicit YAML key may be at most 1024 characters long (YAML 1.2 §7.4; the yaml library
  // reports KEY_OVER_1024_CHARS in strict mode, PyYAML "could not find expected ':'" / "mapping
  // values are not allowed here"). KEY had no length bound, so the fast path accepted a block
  // that the full parse and the reference reader both refuse.
  const longKey = 'k'.repeat(1025);
  const blocks = [`${longKey}: v\n`, `title: x\n${longKey}: v\n`, `octx:\n  ${longKey}: v\n`, `title: x\nx-${longKey}: "v"\n`];

  it('the full parse and PyYAML refuse a key of 1025 characters (and take one of 1024)', () => {
    for (const source of blocks) expect(full(source).ok, source.slice(0, 20)).toBe(false);
    expect(full(`${'k'.repeat(1024)}: v\n`).ok).toBe(true);
    if (hasPyYaml) {
      for (const answer of pyyamlRead(blocks)) expect(answer.ok).toBe(false);
      expect(pyyamlRead([`${'k'.repeat(1024)}: v\n`])[0]!.ok).toBe(true);
    }
  });

  it('parseFrontmatter refuses a key longer than 1024 characters, as the full parse and PyYAML do', () => {
    for (const source of blocks) expect(parseFrontmatter(source).ok, source.slice(0, 20)).toBe(false);
  });

  it('prepareDocument refuses a document whose frontmatter has such a key', () => {
    const markdown = `---\ntype: Document\ntitle: T\n${longKey}: v\noctx:\n  document_id: ${ID}\n---\n# T\n`;
    expect(() => prepareDocument({ path: 'a.md', markdown }, { mintId: () => ID })).toThrow(expect.objectContaining({ code: 'OCTX_DOCUMENT_FRONTMATTER' }));
  });

  it('the validator (readConceptDocument) reports that frontmatter', () => {
    const text = `---\ntype: Document\ntitle: T\n${longKey}: v\noctx:\n  document_id: ${ID}\n---\n# T\n`;
    expect(readConceptDocument('knowledge/a.md', text).issues.map((i) => i.code)).toStrictEqual(['OCTX_DOCUMENT_FRONTMATTER']);
  });

  it('mergeFrontmatter (RAG/SAG adapters) refuses a long key with OCTX_DOCUMENT_FRONTMATTER', () => {
    // mergeFrontmatter always reads the lazy `document`, whose full parse refuses the block.
    const markdown = `---\ntitle: T\n${longKey}: v\n---\nbody\n`;
    expect(() => mergeFrontmatter(markdown, { documentId: ID }, 'knowledge/a.md')).toThrow(expect.objectContaining({ code: 'OCTX_DOCUMENT_FRONTMATTER' }));
  });

  it('the root index.md check reports the long key as unreadable YAML', () => {
    const text = `---\n${longKey}: v\n---\n# Index\n\n* [A](a.md) - x\n`;
    const problems = reservedDocumentProblems('knowledge/index.md', text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^frontmatter: The : indicator must be at most 1024 chars/);
  });

  // Before the fix, the lazy `document` getter ran the full parse, which refuses the block, and
  // threw a plain Error ("unreachable: …"), no OCTX_* code.
  it('a long key inside octx without document_id is OCTX_DOCUMENT_FRONTMATTER, not a plain Error', () => {
    const markdown = `---\ntype: Document\ntitle: T\noctx:\n  ${longKey}: v\n---\n# T\n`;
    expect(() => prepareDocument({ path: 'a.md', markdown }, { mintId: () => ID })).toThrow(expect.objectContaining({ code: 'OCTX_DOCUMENT_FRONTMATTER' }));
  });
});

// ---------------------------------------------------------------------------------------------
describe('readSimpleFrontmatter, character by character', () => {
  it('every code point of the WIDE ranges, as a whole value, a start, an end and a middle, reads as in full', () => {
    const wide: string[] = [];
    for (const [from, to] of WIDE_RANGES) for (let c = from; c <= to; c++) wide.push(String.fromCodePoint(c));
    expect(wide.length).toBe(40_337);
    for (const chunk of chunks(wide, 500)) {
      accepted(pairsBlock(chunk));
      accepted(
        pairsBlock(
          chunk.map((c) => `${c}x ${c}`),
          true,
        ),
        false,
      );
      accepted(`title: a${chunk.join('')}z\nbody: ${chunk.join(' ')}\n`);
      accepted(`q: "${chunk.join('')}"\n`, false);
    }
  });

  it('no BMP character outside the classes is taken in a plain value; every taken one reads as in full', () => {
    const taken: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCharCode(c);
      const forms = [`t: ${ch}\n`, `t: a${ch}\n`, `t: a${ch}b\n`, `o:\n  t: a${ch}b\n`];
      const reads = forms.map((f) => readSimpleFrontmatter(f) !== undefined);
      if (reads.some(Boolean)) taken.push(ch);
      // `a<c>b` in a plain value: only the documented characters.
      const documented = /[A-Za-z0-9 _.,()/+\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u3001-\u9fff\uac00-\ud7a3\uff01-\uff60-]/.test(ch);
      expect(reads[2], `U+${c.toString(16)}`).toBe(documented);
    }
    for (const chunk of chunks(taken, 400)) {
      accepted(pairsBlock(chunk.map((c) => `a${c}b`)));
      accepted(
        pairsBlock(
          chunk.map((c) => `a${c}b`),
          true,
        ),
        false,
      );
    }
  });

  it('every BMP character a double-quoted value may hold reads as in full (and as PyYAML reads it)', () => {
    const taken: string[] = [];
    for (let c = 0x20; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCharCode(c);
      const source = `t: "${ch}"\n`;
      // parseFrontmatter's own character checks run first; the fast reader only sees what passes.
      if (readSimpleFrontmatter(source) === undefined) {
        expect('"\\\t\u0085\u2028\u2029\ufeff'.includes(ch), `U+${c.toString(16)} declined`).toBe(true);
        continue;
      }
      if (/[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/.test(ch)) {
        expect(parseFrontmatter(source).ok, `U+${c.toString(16)}`).toBe(false);
        continue;
      }
      taken.push(ch);
    }
    for (const chunk of chunks(taken, 1000)) {
      accepted(`q: "${chunk.join('')}"\n`);
      accepted(pairsBlock(chunk.slice(0, 300).map((c) => `" ${c} "`)), false);
    }
    // Astral characters (surrogate pairs) too.
    accepted(`q: "😀 𝒜 𠀀 \u{10fffd}"\nr: "a😀"\n`);
  });

  it('every key of one or two printable ASCII characters it takes reads as in full', () => {
    const keys: string[] = [];
    const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i));
    for (const a of ascii) {
      if (readSimpleFrontmatter(`${a}: v\n`) !== undefined) keys.push(a);
      for (const b of ascii) if (readSimpleFrontmatter(`${a}${b}: v\n`) !== undefined) keys.push(a + b);
    }
    expect(keys.length).toBeGreaterThan(3000);
    for (const chunk of chunks(keys, 400)) {
      accepted(`${chunk.map((k) => `${k}: v`).join('\n')}\n`);
      accepted(`octx:\n${chunk.map((k) => `   ${k}: "v"`).join('\n')}\n`, false);
      accepted(`${chunk.map((k) => `${k}:\n  ${k}: v`).join('\n')}\n`);
    }
  });

  it('every plain value of up to three characters over a boundary alphabet reads as in full', () => {
    // Letters that start YAML 1.1/1.2 words (y, n, o, t, f, e, E, N, Y, ...), digits, the
    // punctuation PLAIN takes, and one character of each WIDE range.
    const alphabet = [...'aeEyYnNoOfFtTlLus0159 _.,()/+-', 'À', 'ß', 'ɏ', '、', '〇', 'ー', '가', '！', '０', '｠'];
    const values: string[] = [];
    for (const a of alphabet) {
      values.push(a);
      for (const b of alphabet) {
        values.push(a + b);
        for (const c of alphabet) values.push(a + b + c);
      }
    }
    const taken = values.filter((v) => readSimpleFrontmatter(`t: ${v}\n`) !== undefined);
    expect(taken.length).toBeGreaterThan(10_000);
    // The typed words and 1.1 floats are declined, whatever the case.
    for (const word of ['y', 'N', 'on', 'oN', 'OFF', 'no', 'yes', 'YeS', 'nuLL', 'e5', 'E-1', 'e+0']) expect(taken, word).not.toContain(word);
    for (const chunk of chunks(taken, 500)) {
      accepted(pairsBlock(chunk));
      accepted(pairsBlock(chunk, true), false);
    }
    // …and as keys, where they fit KEY.
    const keys = taken.filter((v) => readSimpleFrontmatter(`${v}: x\n`) !== undefined);
    expect(keys.length).toBeGreaterThan(1000);
    for (const chunk of chunks(keys, 500)) accepted(`${chunk.map((k) => `${k}: x`).join('\n')}\n`);
  });
});

describe('readSimpleFrontmatter, edges the full parse treats specially', () => {
  it('many "[", "{" and "- " inside values (the fast exit for hostile nesting) read as in full', () => {
    accepted(`t: a${' -'.repeat(300)} b\nq: "${'['.repeat(300)}${'{'.repeat(300)}"\no:\n  r: "${'- '.repeat(300)}x"\n`);
  });

  it('long values, deep indentation and keys up to 1024 characters read as in full', () => {
    accepted(`t: ${'v'.repeat(100_000)}\nq: "${'w '.repeat(50_000)}x"\n`);
    accepted(`octx:\n${' '.repeat(2000)}k: v\n${' '.repeat(2000)}j: "w"\n`);
    accepted(`${'k'.repeat(1024)}: v\nt: x\no:\n  ${'j'.repeat(1024)}: "w"\n`);
  });

  it('a key the same at both levels, and JS prototype names as keys, read as in full', () => {
    accepted(`octx:\n  octx: x\n  title: why\ntitle: z\n`);
    accepted(`constructor:\n  constructor: x\n  toString: yy\nhasOwnProperty: "z"\nvalueOf: w\nprototype: p\nisPrototypeOf: q\n`);
    expect(readSimpleFrontmatter('__proto__: x\n')).toBeUndefined();
    expect(readSimpleFrontmatter('o:\n  __proto__: x\n')).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
describe('readSimpleFrontmatter, generated blocks at character level', () => {
  it('whatever it accepts reads as in full (fast-check over keys, values, indentation, quoting)', () => {
    // Mostly characters the reader takes, with a few it must decline mixed in, so both sides of
    // its boundary are exercised at the level of single characters.
    const keyChar = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...'abyYnNoOeEl_-0159'.split('')) }, { weight: 1, arbitrary: fc.constantFrom(...':# ."\'À'.split('')) });
    const key = fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: keyChar, minLength: 1, maxLength: 5 }) },
      { weight: 1, arbitrary: fc.constantFrom('constructor', 'hasOwnProperty', 'toString', 'valueOf', 'prototype', '__proto__', '_proto', 'octx', 'document_id', 'title', 'type') },
    );
    const valueChar = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...'aeEyYnNotfl0159 _.,()/+-'.split('')) },
      { weight: 3, arbitrary: fc.constantFrom('À', 'ÿ', 'ɏ', '、', '〇', '가', '힣', '！', '：', '＃', '｠') },
      { weight: 1, arbitrary: fc.constantFrom('\u3000', '\u00a0', '\u00d7', '\u0085', '\u2028', '\ufeff', ...':#"\'\\\t[]{}&*!|>%@`?~='.split('')) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    );
    const plain = fc.string({ unit: valueChar, minLength: 0, maxLength: 8 });
    const value = fc.oneof(
      { weight: 4, arbitrary: plain },
      { weight: 3, arbitrary: plain.map((v) => `"${v}"`) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.constantFrom(ID, ID.toUpperCase(), `e${ID.slice(1)}`, `1${ID.slice(1)}`, ID.replace(/-/g, '')) },
    );
    const sep = fc.oneof({ weight: 12, arbitrary: fc.constant(': ') }, { weight: 1, arbitrary: fc.constantFrom(':  ', ':', ' : ', ':\t') });
    const pair = fc.tuple(key, sep, value).map(([k, s, v]) => `${k}${s}${v}`);
    const indent = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(' ', '  ', '    ') }, { weight: 1, arbitrary: fc.constantFrom('', '\t', '  \t') });
    const nested = fc
      .tuple(key, indent, fc.array(fc.tuple(pair, fc.integer({ min: 0, max: 12 })), { minLength: 0, maxLength: 3 }))
      .map(([k, i, items]) => [`${k}:`, ...items.map(([p, shift]) => `${shift === 0 ? `${i} ` : i}${p}`)].join('\n'));
    const line = fc.oneof({ weight: 12, arbitrary: pair }, { weight: 4, arbitrary: nested }, { weight: 1, arbitrary: fc.constantFrom('', ' ', '#', '---', '...', '- a', ' x: y') });
    const ending = fc.oneof({ weight: 12, arbitrary: fc.constant('\n') }, { weight: 1, arbitrary: fc.constantFrom('', '\r\n', '\n\n') });
    const block = fc.tuple(fc.array(line, { minLength: 1, maxLength: 6 }), ending).map(([lines, end]) => `${lines.join('\n')}${end}`);
    let taken = 0;
    fc.assert(
      fc.property(block, (source) => {
        // parseFrontmatter refuses these before the fast reader runs (its documented precondition).
        if (PRE_REFUSED.test(source) || !source.isWellFormed()) return;
        if (readSimpleFrontmatter(source) === undefined) return;
        taken++;
        expectNoDivergence(source);
        forPyYaml.push(source);
      }),
      fuzzParameters(20_000),
    );
    expect(taken).toBeGreaterThan(500);
  });
});

/**
 * Runs `load` (dynamic imports) with `readSimpleFrontmatter` switched off: the modules it returns
 * take the full path, as before the fast path existed.
 */
async function withoutFastPath<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  vi.doMock('../../src/knowledge/simple-frontmatter.js', () => ({ readSimpleFrontmatter: () => undefined }));
  try {
    return await load();
  } finally {
    vi.doUnmock('../../src/knowledge/simple-frontmatter.js');
    vi.resetModules();
  }
}

// ---------------------------------------------------------------------------------------------
describe('parseFrontmatter with the fast path, against parseWithYaml', () => {
  const blocks = [
    `type: Document\ntitle: Topic 12\noctx:\n  document_id: ${ID}\n`,
    `type: "Document"\ntitle: "T"\noctx:\n  source: web\n`,
    `octx:\n    source: web\n    kind: "x"\ntitle: 三国志\n`,
    `constructor: x\nhasOwnProperty: yy\ntoString: "z"\nvalueOf:\n  prototype: p\n`,
    `okf_version: "0.1"\n`,
  ];

  it('gives the same result with every bound, including the lazily parsed document', async () => {
    const slowParse = await withoutFastPath(async () => (await import('../../src/knowledge/frontmatter.js')).parseFrontmatter);
    for (const source of blocks) {
      expect(readSimpleFrontmatter(source), source).toBeDefined();
      const nodes = lexCounted(source, Number.MAX_SAFE_INTEGER).nodes;
      for (const maxNodes of [0, 1, nodes - 1, nodes, nodes + 1]) {
        for (const maxBytes of [source.length - 1, source.length, 1 << 20]) {
          const fast = parseFrontmatter(source, { maxNodes, maxBytes });
          const slow = slowParse(source, { maxNodes, maxBytes });
          expect(fast.ok, `${source} ${maxNodes} ${maxBytes}`).toBe(slow.ok);
          if (!fast.ok || !slow.ok) {
            expect(fast).toStrictEqual(slow);
            continue;
          }
          expect(shape(fast.value.data)).toBe(shape(slow.value.data));
          expect(fast.value.retyped).toStrictEqual(slow.value.retyped);
          expect(fast.value.nodes).toBe(slow.value.nodes);
          expect(fast.value.document.toString()).toBe(slow.value.document.toString());
          expect(fast.value.document.toJS()).toStrictEqual(slow.value.document.toJS());
          expect(Object.getPrototypeOf(fast.value.data)).toBe(Object.getPrototypeOf(slow.value.data));
        }
      }
    }
  });

  it('spreading, JSON.stringify and structuredClone of the parsed value behave as with an eager document', () => {
    const source = blocks[0]!;
    const fast = parseFrontmatter(source);
    const slow = parseWithYaml(source, Number.MAX_SAFE_INTEGER);
    expect(fast.ok && slow.ok).toBe(true);
    if (!fast.ok || !slow.ok) return;
    // Spreading reads the getter (one full parse), and gives the same document text.
    const spread = { ...fast.value };
    expect(spread.document.toString()).toBe(slow.value.document.toString());
    // JSON.stringify reads it too (the Document's toJSON): the same JSON, but the fast value lists
    // `document` last (a getter defined after `nodes`), the full one second (low: key order only).
    expect(JSON.parse(JSON.stringify(fast.value))).toStrictEqual(JSON.parse(JSON.stringify(slow.value)));
    expect(Object.keys(fast.value)).toStrictEqual(['data', 'retyped', 'nodes', 'document']);
    expect(Object.keys(slow.value)).toStrictEqual(['data', 'document', 'retyped', 'nodes']);
    // Neither can be cloned (the yaml Document holds functions): same failure both ways.
    expect(() => structuredClone(fast.value)).toThrow();
    expect(() => structuredClone(slow.value)).toThrow();
    // Each parse has its own document: mutating one (as mergeFrontmatter does) leaves the next intact.
    fast.value.document.set('x', 'y');
    const again = parseFrontmatter(source);
    expect(again.ok && again.value.document.toString()).toBe(slow.value.document.toString());
  });
});

// ---------------------------------------------------------------------------------------------
describe('callers, against a copy whose fast path is switched off', () => {
  type Callers = {
    prepareDocument: typeof prepareDocument;
    readConceptDocument: typeof readConceptDocument;
    reservedDocumentProblems: typeof reservedDocumentProblems;
    mergeFrontmatter: typeof mergeFrontmatter;
  };
  let slow: Callers;
  beforeAll(async () => {
    slow = await withoutFastPath(async () => ({
      prepareDocument: (await import('../../src/knowledge/document.js')).prepareDocument,
      readConceptDocument: (await import('../../src/knowledge/concept.js')).readConceptDocument,
      reservedDocumentProblems: (await import('../../src/knowledge/reserved.js')).reservedDocumentProblems,
      mergeFrontmatter: (await import('../../src/adapters/shared/frontmatter-merge.js')).mergeFrontmatter,
    }));
  });

  /** The outcome of `f`: its value, or the error's name, code and message. */
  function outcome(f: () => unknown): unknown {
    try {
      const v = f() as Record<string, unknown>;
      return v !== null && typeof v === 'object' && Buffer.isBuffer(v.bytes) ? { ...v, bytes: v.bytes.toString('utf8') } : v;
    } catch (e) {
      return { threw: (e as Error).name, code: (e as { code?: unknown }).code, message: (e as Error).message };
    }
  }

  const other = '019b76da-a800-7000-8000-0000000000ff';
  const frontmatters = [
    `type: Document\ntitle: Topic 12\noctx:\n  document_id: ${ID}\n`, // nothing missing: bytes kept
    `type: Document\ntitle: Topic 12\noctx:\n  document_id: "${ID}"\n`,
    `title: Topic\n`, // type and octx appended
    `type: Concept\n`, // title from the H1
    `type: Document\ntitle: T\noctx:\n  source: web\n`, // document_id inserted through the lazy document
    `type: Document\ntitle: T\noctx:\n     source: web\n     kind: "x y"\nextra: z\n`,
    `type: Document\ntitle: T\noctx:\n  document_id: ${other.replace('7000', '4000')}\n`, // not a v7
    `type: Document\ntitle: T\noctx:\n  document_id: 019B76DA-A800-7000-8000-000000000001\n`, // upper case: full path
    `type: Document\noctx: ${ID}\n`, // octx not a mapping
    `type: ""\ntitle: T\n`, // empty type
    `type: Document\ntitle: ""\n`,
    `constructor: x\ntype: Document\n`,
    `okf_version: "0.1"\n`,
    `okf_version: "0.1"\ntitle: x\n`,
    `type: Document\ntitle: T\noctx:\n  document_id: ${ID}\nx: ${'k'.repeat(1024)}\n`,
  ];
  const markdowns = frontmatters.flatMap((fm) => {
    const plain = `---\n${fm}---\n# Heading\n\n* [A](a.md) - x\n`;
    return [plain, `\ufeff---\n${fm}---\nbody\n`, plain.replace(/\n/g, '\r\n'), `---\r\n${fm}---\r\nbody\r\n`];
  });

  it('prepareDocument gives the same bytes, ids, titles and errors', () => {
    for (const markdown of markdowns) {
      for (const options of [{ mintId: () => other }, { mintId: () => other, defaultType: 'Concept', maxFrontmatterNodes: 6 }, { mintId: () => other, maxFrontmatterBytes: 20 }]) {
        for (const path of ['guides/a.md', 'index.md', 'x/log.md']) {
          const input = { path, markdown };
          expect(
            outcome(() => prepareDocument(input, options)),
            `${path} ${markdown}`,
          ).toStrictEqual(outcome(() => slow.prepareDocument(input, options)));
        }
      }
    }
  });

  it('readConceptDocument and reservedDocumentProblems give the same issues and data', () => {
    for (const markdown of markdowns) {
      const text = markdown.replace(/^\ufeff/, '');
      for (const bounds of [undefined, 20, { maxNodes: 6 }]) {
        expect(
          outcome(() => readConceptDocument('knowledge/a.md', text, bounds)),
          markdown,
        ).toStrictEqual(outcome(() => slow.readConceptDocument('knowledge/a.md', text, bounds)));
        for (const path of ['knowledge/index.md', 'knowledge/a/index.md', 'knowledge/a/log.md']) {
          expect(outcome(() => reservedDocumentProblems(path, text, bounds))).toStrictEqual(outcome(() => slow.reservedDocumentProblems(path, text, bounds)));
        }
      }
    }
  });

  it('mergeFrontmatter gives the same Markdown', () => {
    for (const markdown of markdowns) {
      for (const additions of [{}, { type: 'Document', title: 'T', documentId: other }, { documentId: other, extras: { 'x-rag': { a: 1 }, title: 'u' } }]) {
        expect(
          outcome(() => mergeFrontmatter(markdown, additions, 'knowledge/a.md')),
          markdown,
        ).toStrictEqual(outcome(() => slow.mergeFrontmatter(markdown, additions, 'knowledge/a.md')));
      }
    }
  });

  it('the switched-off copy really takes the full path (and gives the typed errors the fast path misses)', () => {
    // A 1025-character key is where the two paths differ (see "confirmed breakages").
    const key = 'k'.repeat(1025);
    const text = `---\ntype: Document\ntitle: T\n${key}: v\noctx:\n  document_id: ${ID}\n---\n`;
    expect(slow.readConceptDocument('knowledge/a.md', text).issues.map((i) => i.code)).toStrictEqual(['OCTX_DOCUMENT_FRONTMATTER']);
    const code = (f: () => unknown): unknown => (outcome(f) as { code?: unknown }).code;
    expect(code(() => slow.prepareDocument({ path: 'a.md', markdown: text }, { mintId: () => other }))).toBe('OCTX_DOCUMENT_FRONTMATTER');
    const noId = `---\ntype: Document\ntitle: T\noctx:\n  ${key}: v\n---\n`;
    expect(code(() => slow.prepareDocument({ path: 'a.md', markdown: noId }, { mintId: () => other }))).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(code(() => slow.mergeFrontmatter(noId, { documentId: other }, 'knowledge/a.md'))).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(slow.reservedDocumentProblems('knowledge/index.md', `---\n${key}: v\n---\n# I\n\n* [A](a.md) - x\n`)[0]).toMatch(/^frontmatter: The : indicator/);
  });
});

// ---------------------------------------------------------------------------------------------
// Last: PyYAML reads every accepted block collected above to the same data.
describe.skipIf(!hasPyYaml)('PyYAML reads every accepted block as the fast path does', () => {
  it('same data, no refusal', () => {
    expect(forPyYaml.length).toBeGreaterThan(500);
    const answers = pyyamlRead(forPyYaml);
    forPyYaml.forEach((source, i) => {
      const answer = answers[i]!;
      const simple = readSimpleFrontmatter(source)!;
      expect(answer.ok ? undefined : answer.error, JSON.stringify(source.slice(0, 200))).toBeUndefined();
      if (answer.ok) expect(shape(answer.data), JSON.stringify(source.slice(0, 200))).toBe(shape(simple.data));
    });
  });
});
