/**
 * Differential test: each piece of Python the sag-1.7 profile re-implements, against the real
 * Pythons SAG v1.7 runs: 3.11 (Unicode 14.0, its desktop build) and 3.12 (Unicode 15.0, its server
 * image and CI), on generated inputs biased to the corners (fast-check) plus fixed corner tables.
 * One process per Python answers every case (test/consumers/python-oracle.py).
 *
 * Without such a Python the test is skipped with its reason, except under CI (`CI` set), where it
 * fails. PYTHON / PYTHON312 name the interpreters (else python3, python3.12 and pyenv's are tried);
 * FUZZ_RUNS / FUZZ_SEED as in test/fuzz/fuzz-config.ts.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  casefold,
  codePointLength,
  nfcCasefold,
  PYTHON_LATER_UNICODE_VERSION,
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
import { sagDatabaseIdentity, sagEntityIdentity, sagStoredType } from '../../src/consumers/sag-1-7.js';
import { fuzzParameters } from '../fuzz/fuzz-config.js';
import { findPythonWithUnicode } from '../helpers/python.js';
import { ROOT } from '../helpers/temp.js';

const ORACLE = join(ROOT, 'test/consumers/python-oracle.py');
const RUNS = 1500;

type Op = 'every_code_point' | 'strip' | 'isspace' | 'casefold' | 'nfc' | 'len' | 'fromisoformat' | 'sag_datetime' | 'sag_weight' | 'identities';
interface Case {
  readonly op: Op;
  readonly v: unknown;
}

// ---- what TypeScript says, in the oracle's answer format ----

function ours(c: Case, unicode: PythonUnicode): unknown {
  const s = c.v as string;
  switch (c.op) {
    case 'every_code_point':
      return undefined;
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

const CORNERS: Case[] = [
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

function generated(): Case[] {
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
function askPython(python: string, cases: readonly Case[]): { header: { python: string; unicode: string }; answers: unknown[] } {
  const input = cases.map((c) => JSON.stringify(c)).join('\n') + '\n';
  const r = spawnSync(python, [ORACLE], { input, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, timeout: 120_000 });
  if (r.error || r.status !== 0) throw new Error(`${python} ${ORACLE} failed (${r.error?.message ?? r.status ?? r.signal}): ${r.stderr}`);
  const [first, ...rest] = r.stdout.trimEnd().split('\n');
  return { header: JSON.parse(first!) as { python: string; unicode: string }, answers: rest.map((l) => JSON.parse(l) as unknown) };
}

const PYTHONS = [
  { label: 'Python 3.11', unicode: PYTHON_UNICODE_VERSION, found: findPythonWithUnicode(PYTHON_UNICODE_VERSION, 'PYTHON', ['python3', 'python3.11', '/usr/bin/python3']) },
  { label: 'Python 3.12', unicode: PYTHON_LATER_UNICODE_VERSION, found: findPythonWithUnicode(PYTHON_LATER_UNICODE_VERSION, 'PYTHON312', ['python3.12']) },
] as const;

for (const { label, unicode, found } of PYTHONS) {
  describe(`Python semantics of the sag-1.7 profile, against real ${label} (Unicode ${unicode})`, () => {
    if (found === undefined && !process.env.CI) {
      console.warn(`python differential test skipped: no ${label} with Unicode ${unicode} found; under CI it fails instead`);
      it.skip(`skipped: no ${label} found; under CI this test fails instead`, () => {});
      return;
    }
    const python = (): string => {
      if (found === undefined) throw new Error(`CI is set and no ${label} (Unicode ${unicode}) can be started: the differential test must run in CI`);
      return found.command;
    };

    it('every generated and corner case gets Python’s answer', () => {
      const cases = [...CORNERS, ...generated()];
      const py = askPython(python(), cases);
      expect(py.header.unicode).toBe(unicode);
      expect(py.answers).toHaveLength(cases.length);
      const wrong = cases.map((c, i) => ({ ...c, python: py.answers[i], ours: ours(c, unicode) })).filter((r) => JSON.stringify(r.python) !== JSON.stringify(r.ours));
      const byOp = new Map<string, number>();
      for (const c of cases) byOp.set(c.op, (byOp.get(c.op) ?? 0) + 1);
      const parsed = cases.filter((c, i) => c.op === 'fromisoformat' && py.answers[i] !== null).length;
      console.info(
        `python differential: ${cases.length} cases compared with Python ${py.header.python} (${[...byOp].map(([op, n]) => `${op} ${n}`).join(', ')}; fromisoformat accepted ${parsed} of ${byOp.get('fromisoformat')})`,
      );
      expect(wrong.slice(0, 20)).toEqual([]);
    });

    it('casefold, isspace and NFC agree with Python on every code point', () => {
      const py = askPython(python(), [{ op: 'every_code_point', v: null }]);
      const { folds, spaces, nfc } = py.answers[0] as { folds: [number, string][]; spaces: number[]; nfc: [number, string][] };
      const theirs = new Map(folds);
      const oursFolds: [number, string][] = [];
      const oursSpaces: number[] = [];
      const oursNfc: [number, string][] = [];
      for (let cp = 0; cp <= 0x10ffff; cp++) {
        const c = String.fromCodePoint(cp);
        const f = casefold(c);
        if (f !== c) oursFolds.push([cp, f]);
        if (pythonIsSpace(c)) oursSpaces.push(cp);
        const n = pythonNfc(c, unicode);
        if (n !== c) oursNfc.push([cp, n]);
      }
      expect(oursFolds.filter(([cp, f]) => theirs.get(cp) !== f)).toEqual([]);
      expect(oursFolds).toHaveLength(folds.length);
      expect(oursSpaces).toEqual(spaces);
      expect(oursNfc).toEqual(nfc);
      console.info(`python differential (${label}): casefold, isspace and NFC compared on all ${0x110000} code points (${folds.length} fold, ${nfc.length} change under NFC)`);
    });
  });
}

describe('nfcCasefold', () => {
  it('is NFC then casefold, as SAG’s plan composes them', () => {
    expect(nfcCasefold('E\u0301MILE')).toBe(nfcCasefold('\u00e9mile'));
  });

  it('differs between Unicode 14.0 and 15.0 only where 15.0 added combining marks', () => {
    expect(nfcCasefold('a\u0301\u{10efd}')).not.toBe(nfcCasefold('a\u{10efd}\u0301'));
    expect(nfcCasefold('a\u0301\u{10efd}', PYTHON_LATER_UNICODE_VERSION)).toBe(nfcCasefold('a\u{10efd}\u0301', PYTHON_LATER_UNICODE_VERSION));
  });
});
