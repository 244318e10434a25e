/**
 * The cases the Python differential tests ask, and what the TypeScript side answers for each, in
 * the oracle's answer format (test/consumers/python-oracle.py): shared by the live differential
 * (python-differential.test.ts, one process per Python found) and the recorded Python 3.12
 * answers (python-312-recorded.test.ts, which runs where no 3.12 is).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  casefold,
  codePointLength,
  PYTHON_UNICODE_VERSION,
  type PythonUnicode,
  pythonFromIsoformat,
  pythonIsoformat,
  pythonIsSpace,
  pythonNfc,
  pythonStrip,
  sagDatetime,
  sagWeight,
} from '../../src/consumers/python/index.js';
import { sagDatabaseIdentity, sagEntityIdentity, sagStoredType } from '../../src/consumers/sag-1-7-profile.js';
import { fuzzParameters } from '../fuzz/fuzz-config.js';
import { ROOT } from '../helpers/temp.js';

const ORACLE = join(ROOT, 'test/consumers/python-oracle.py');
const RUNS = 1500;

export type Op = 'every_code_point' | 'strip' | 'isspace' | 'casefold' | 'nfc' | 'len' | 'fromisoformat' | 'sag_datetime' | 'sag_weight' | 'identities';
export interface Case {
  readonly op: Op;
  readonly v: unknown;
}

// ---- what TypeScript says, in the oracle's answer format ----

/** Over all of Unicode: the code points casefold and NFC change, with the results, and those isspace accepts (the oracle's `every_code_point`). */
function everyCodePoint(unicode: PythonUnicode): { folds: [number, string][]; spaces: number[]; nfc: [number, string][] } {
  const folds: [number, string][] = [];
  const spaces: number[] = [];
  const nfc: [number, string][] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    const c = String.fromCodePoint(cp);
    const f = casefold(c);
    if (f !== c) folds.push([cp, f]);
    if (pythonIsSpace(c)) spaces.push(cp);
    const n = pythonNfc(c, unicode);
    if (n !== c) nfc.push([cp, n]);
  }
  return { folds, spaces, nfc };
}

/** What the TypeScript side answers for a case, in the oracle's format, under Python's `unicode`. */
export function ours(c: Case, unicode: PythonUnicode): unknown {
  const s = c.v as string;
  switch (c.op) {
    case 'every_code_point':
      return everyCodePoint(unicode);
    case 'strip':
      return pythonStrip(s);
    case 'isspace':
      return pythonIsSpace(s);
    case 'casefold':
      return casefold(s);
    case 'nfc':
      return pythonNfc(s, unicode);
    case 'len':
      return codePointLength(s);
    case 'fromisoformat': {
      const dt = pythonFromIsoformat(s);
      return dt ? pythonIsoformat(dt) : null;
    }
    case 'sag_datetime': {
      const dt = sagDatetime(c.v);
      return dt === null ? { none: true } : dt === undefined ? { error: true } : { iso: pythonIsoformat(dt) };
    }
    case 'sag_weight': {
      const w = sagWeight(c.v);
      return w === undefined ? 'not a number' : w.ok ? { stored: w.stored } : { refused: true };
    }
    case 'identities': {
      const [t, n] = c.v as [string, string];
      const plan = unicode === PYTHON_UNICODE_VERSION ? sagEntityIdentity(t, n) : sagEntityIdentity(t, n, unicode);
      return { plan: JSON.parse(plan), database: JSON.parse(sagDatabaseIdentity(t, n)), storedTypeLength: codePointLength(sagStoredType(t)) };
    }
  }
}

// ---- generators, biased to where JavaScript and Python differ ----

/** Python white space that trim() keeps, and the other way round, plus neighbours. */
const SPACES = [
  '\x1c',
  '\x1d',
  '\x1e',
  '\x1f',
  '\x85',
  '\ufeff',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\u200b',
  '\u180e',
  '\u3000',
  '\u1680',
  '\u202f',
  ' ',
  '\t',
  '\n',
  '\r',
  '\x0b',
  '\x0c',
  '\x00',
];
/** Case folding specials: full folds, Turkic, Greek, Cherokee, ligatures, title case. */
const FOLDS = ['ß', 'ẞ', 'ΐ', 'ﬁ', 'ﬀ', 'İ', 'ı', 'I', 'ſ', 'K', 'Σ', 'ς', 'ǅ', 'ŉ', 'ǰ', 'ᾈ', 'ᏸ', 'ꭰ', 'Ꭰ', 'Ա', 'ﬓ', 'Ω', 'Å', '𐐀', '𞤀', 'ꟊ', 'ꟕ', '\u1c89', '\ua7cb', '\ua7dc'];
/** Combining marks and pieces that compose: NFC reorders and composes these. */
const MARKS = ['\u0301', '\u0300', '\u0323', '\u0308', '\u0345', '\u0327', 'e', 'E', 'a', 'o', '\u1100', '\u1161', '\u11a8', '\uac00', '\u0b47', '\u0b3e', '\u0344'];

const codePointIn = (min: number, max: number) => fc.integer({ min, max }).map((cp) => String.fromCodePoint(cp));

/** One code point (or a short piece): corners, characters Unicode added after 14.0, or anything. */
const unit = fc.oneof(
  { arbitrary: fc.constantFrom(...SPACES), weight: 3 },
  { arbitrary: fc.constantFrom(...FOLDS), weight: 3 },
  { arbitrary: fc.constantFrom(...MARKS), weight: 3 },
  { arbitrary: fc.constantFrom('a', 'Z', 'x', ' ', '1'), weight: 2 },
  // Tulu-Tigalari, Gurung Khema, Kirat Rai (Unicode 16.0: new marks and compositions Python 3.11 does not know)
  { arbitrary: fc.oneof(codePointIn(0x11380, 0x113ff), codePointIn(0x16100, 0x1613f), codePointIn(0x16d40, 0x16d7f)), weight: 2 },
  // Unicode 15.0's new combining marks (Python 3.12 reorders them, 3.11 does not know them)
  { arbitrary: fc.constantFrom('\u{10efd}', '\u{10efe}', '\u{10eff}', '\u{11f41}', '\u{11f42}', '\u{1e08f}', '\u0cf3', '\u0ecE'), weight: 2 },
  { arbitrary: codePointIn(0x0, 0x2fff), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 2 },
);
const text = fc.string({ unit, maxLength: 12 });

const d2 = (min: number, max: number) => fc.integer({ min, max }).map((n) => String(n).padStart(2, '0'));
const year = fc.oneof(
  fc.constantFrom('2020', '2021', '2015', '2026', '2004', '1999', '0001', '0000', '9999', '2000', '1900'),
  fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0')),
);
const date = fc.oneof(
  fc.tuple(year, d2(0, 13), d2(0, 32)).map(([y, m, d]) => `${y}-${m}-${d}`),
  fc.tuple(year, d2(1, 12), d2(1, 31)).map(([y, m, d]) => `${y}${m}${d}`),
  fc.tuple(year, d2(0, 54), fc.integer({ min: 0, max: 8 })).map(([y, w, d]) => `${y}-W${w}-${d}`),
  fc.tuple(year, d2(50, 54), fc.constantFrom('', '-1', '-7')).map(([y, w, d]) => `${y}-W${w}${d}`),
  fc.tuple(year, d2(0, 54), fc.constantFrom('', '1', '7', '0')).map(([y, w, d]) => `${y}W${w}${d}`),
  fc.tuple(year, d2(1, 12)).map(([y, m]) => `${y}-${m}`),
  fc.tuple(year, fc.integer({ min: 1, max: 366 })).map(([y, n]) => `${y}-${String(n).padStart(3, '0')}`),
);
const fraction = fc.tuple(fc.constantFrom('.', ','), fc.string({ unit: fc.constantFrom('0', '1', '5', '9'), maxLength: 8 })).map(([s, f]) => s + f);
const time = fc.oneof(
  fc.tuple(d2(0, 25), d2(0, 61), d2(0, 61), fc.option(fraction, { nil: '' })).map(([h, m, s, f]) => `${h}:${m}:${s}${f}`),
  fc
    .tuple(
      d2(0, 24),
      fc.option(
        d2(0, 60).map((m) => `:${m}`),
        { nil: '' },
      ),
    )
    .map(([h, m]) => h + m),
  fc.tuple(d2(0, 24), d2(0, 59), fc.option(d2(0, 59), { nil: '' }), fc.option(fraction, { nil: '' })).map(([h, m, s, f]) => h + m + s + f),
  fc.tuple(d2(0, 24), fraction).map(([h, f]) => h + f),
);
const offset = fc.oneof(
  fc.constantFrom('', 'Z', 'z', '+00:00', '-00:00', '+24:00', '-23:59', '+23:59:59.999999', '+0530', '+05', '+05:30:15', '+00:00:00.5', 'ZZ', '+00:99'),
  fc.tuple(fc.constantFrom('+', '-'), d2(0, 25), fc.constantFrom('', ':'), d2(0, 61)).map(([s, h, c, m]) => s + h + c + m),
);
const separator = fc.constantFrom('T', 'T', 'T', ' ', 't', 'é', '😀', 'W', '-', '1', '\ud800', 'Z');
const isoLike = fc.oneof(
  { arbitrary: fc.tuple(date, separator, time, offset).map(([a, b, c, d]) => a + b + c + d), weight: 5 },
  { arbitrary: date, weight: 2 },
  { arbitrary: fc.tuple(date, separator, time).map(([a, b, c]) => a + b + c), weight: 2 },
  // the grammar's own alphabet, shuffled: finds the parser's odd corners
  { arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789-:+.,TWZ 0123456789'), minLength: 6, maxLength: 28 }), weight: 3 },
);
const weight = fc.oneof(
  fc.integer({ min: 0, max: 1100 }).map((n) => n / 100),
  fc.integer({ min: -10, max: 10_100 }).map((n) => n / 1000),
  fc.integer({ min: 0, max: 100_000 }).map((n) => n / 10_000),
  fc.double({ min: -1, max: 11, noNaN: true }),
  fc.constantFrom(null, 0, 1, 9.99, 9.995, 10, 0.005, 0.015, 0.125, 0.135, 2.675, 1e-7, 5e-324, -0, 1e21),
);

// ---- fixed corners (each also goes to Python) ----

export const CORNERS: Case[] = [
  ...['\x85', '\x1c\x1d\x1e\x1f', '\ufeff', ' \ufeff ', '\u00a0x\u2028', '', ' ', '\u200b', '\x85title\x85'].flatMap((v): Case[] => [
    { op: 'strip', v },
    { op: 'isspace', v },
  ]),
  ...['Straße', 'STRASSE', 'ΐ', 'ﬁ', 'İstanbul', 'ıI', 'ΣΑΣ', 'ꭰᏸ', 'ß'.repeat(26)].map((v): Case => ({ op: 'casefold', v })),
  ...['e\u0301', '\u00e9', 'a\u0323\u0301', '\u1100\u1161\u11a8', '\u{11382}\u{113c9}', '\u{1611e}\u{1611e}', '\u{16d67}\u{16d67}', 'x\u{16d67}\u0301', 'a\u{1e4ec}\u0301'].map(
    (v): Case => ({
      op: 'nfc',
      v,
    }),
  ),
  ...[
    '2026-07-12',
    '2026-07-12T10:00:00Z',
    '2020-W53-1',
    '2021-W53-1',
    '2015-W53-7',
    '2020W531',
    '2020W53',
    '20200101T010203',
    '2020-01-01T10:00:00,5',
    '2020-01-01T24:00',
    '2020-01-01T23:59:60',
    '2020-02-30',
    '2024-02-29',
    '2023-02-29',
    '2020-01-01T10:00+24:00',
    '2020-01-01T10:00+23:59:59.999999',
    '2020-01-01T10:00:00.1234567',
    '2020-01-01é10:00',
    '2020-01-01\ud80010:00',
    '2020-W01-110',
    '0000-W01-1',
    '9999-W52-7',
    '2020-01-01T10:00:00.+01:00',
    '2020-001',
    '2020-01',
    '2020-01-01T',
    '2020-W01-',
  ].flatMap((v): Case[] => [
    { op: 'fromisoformat', v },
    { op: 'sag_datetime', v },
  ]),
  ...[null, '', 0, 20260712, '2026-07-12Z', '2026-07-12T10:00Z', 'z', '2026-07-12T10:00:00z', 'Z2026'].map((v): Case => ({ op: 'sag_datetime', v })),
  ...[null, 0, 0.125, 0.135, 0.005, 9.99, 9.991, 9.995, 10, -0.001, 2.675, 1.005, 0.1 + 0.2].map((v): Case => ({ op: 'sag_weight', v })),
  ...[
    ['Person', 'Cao Cao'],
    ['person ', 'CAO CAO'],
    ['ß'.repeat(26), 'x'],
    ['\x85person\x1f', 'E\u0301mile'],
    ['\ufeffperson', '\u00c9mile'],
    ['person', 'a\u{10efd}\u0301'],
    ['person', 'a\u0301\u{10efd}'],
  ].map((v): Case => ({ op: 'identities', v })),
];

export function generated(): Case[] {
  const sample = <T>(arb: fc.Arbitrary<T>, op: Op, salt: number): Case[] => {
    const p = fuzzParameters<T>(RUNS);
    return fc.sample(arb, { numRuns: p.numRuns, seed: (p.seed! + salt) | 0 }).map((v) => ({ op, v }));
  };
  return [
    ...sample(text, 'strip', 1),
    ...sample(text, 'isspace', 2),
    ...sample(text, 'casefold', 3),
    ...sample(text, 'nfc', 4),
    ...sample(text, 'len', 5),
    ...sample(isoLike, 'fromisoformat', 6),
    ...sample(fc.oneof(isoLike, fc.constantFrom(null, '', 1, true)), 'sag_datetime', 7),
    ...sample(weight, 'sag_weight', 8),
    ...sample(fc.tuple(text, text), 'identities', 9),
  ];
}

/** Runs the oracle once over every case. */
export function askPython(python: string, cases: readonly Case[]): { header: { python: string; unicode: string }; answers: unknown[] } {
  const input = cases.map((c) => JSON.stringify(c)).join('\n') + '\n';
  const r = spawnSync(python, [ORACLE], { input, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, timeout: 120_000 });
  if (r.error || r.status !== 0) throw new Error(`${python} ${ORACLE} failed (${r.error?.message ?? r.status ?? r.signal}): ${r.stderr}`);
  const [first, ...rest] = r.stdout.trimEnd().split('\n');
  return { header: JSON.parse(first!) as { python: string; unicode: string }, answers: rest.map((l) => JSON.parse(l) as unknown) };
}

/** Strings made mostly of what Unicode 15.0 (Python 3.12) added: its new combining marks next to marks 14.0 knew, and its new letters. */
const unicode15Text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\u{10efd}', '\u{10efe}', '\u{10eff}', '\u{11f00}', '\u{11f41}', '\u{11f42}', '\u{1e08f}', '\u0cf3', '\u0ece', '\u{1e4ec}', '\u{1e4ef}'),
    codePointIn(0x11f00, 0x11f5f),
    codePointIn(0x1e030, 0x1e08f),
    codePointIn(0x31350, 0x323af),
    fc.constantFrom(...MARKS, ...FOLDS),
  ),
  minLength: 1,
  maxLength: 8,
});

/** A letter with one of Unicode 15.0's combining marks and a mark of another class, in either order: NFC reorders them under 3.12 only. */
const unicode15Marks = fc
  .tuple(
    fc.constantFrom('a', 'E', 'ß', 'K', 'İ', '\u{11f04}'),
    fc.constantFrom('\u{10efd}', '\u{10efe}', '\u{10eff}', '\u{1e08f}', '\u{11f41}', '\u{11f42}'),
    fc.constantFrom('\u0301', '\u0323', '\u0345', '\u0327', '\u05b0', '\u0316'),
    fc.boolean(),
  )
  .map(([base, added, old, first]) => (first ? base + added + old : base + old + added));

/**
 * The cases whose Python 3.12 answers are checked in (fixtures/consumers/python-3.12-answers.jsonl):
 * the corners, a fixed sample of every operation (a seed of its own, so FUZZ_SEED does not move
 * it), names made of Unicode 15.0's additions for NFC and both identities, and every code point.
 */
export function recordedCases(): Case[] {
  const sample = <T>(arb: fc.Arbitrary<T>, op: Op, runs: number, salt: number): Case[] => fc.sample(arb, { numRuns: runs, seed: 37_312 + salt }).map((v) => ({ op, v }));
  return [
    { op: 'every_code_point', v: null },
    ...CORNERS,
    ...sample(text, 'strip', 60, 1),
    ...sample(text, 'isspace', 60, 2),
    ...sample(text, 'casefold', 60, 3),
    ...sample(text, 'len', 60, 4),
    ...sample(isoLike, 'fromisoformat', 200, 5),
    ...sample(fc.oneof(isoLike, fc.constantFrom(null, '', 1, true)), 'sag_datetime', 200, 6),
    ...sample(weight, 'sag_weight', 100, 7),
    ...sample(fc.oneof(text, unicode15Text, unicode15Marks), 'nfc', 300, 8),
    ...sample(fc.tuple(fc.constantFrom('person', 'Person ', '\x85ß'), fc.oneof(text, unicode15Text, unicode15Marks)), 'identities', 300, 9),
  ];
}
