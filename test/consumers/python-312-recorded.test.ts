/**
 * The sag-1.7 profile's Python 3.12 behaviour (Unicode 15.0: SAG's server image) checked where no
 * Python 3.12 is, CI included: against Python 3.12's own answers, recorded in
 * fixtures/consumers/python-3.12-answers.jsonl (one JSON line per case, after a header naming the
 * Python and its Unicode) — strip, isspace, casefold, NFC, `len`, fromisoformat, SAG's `_datetime`
 * and `_weight`, both entity identities, and casefold/isspace/NFC on every code point.
 *
 * - Runs everywhere, never skipped: every recorded answer against the TypeScript side under
 *   Unicode 15.0.
 * - With a real Python 3.12 at hand (PYTHON312, python3.12 or pyenv's; not a part every machine
 *   has, so skipped with a visible message elsewhere, in CI too): the oracle is asked the same
 *   cases and must give the recorded file byte for byte. `npx vitest run -u` with 3.12 at hand
 *   writes the file again (after a change to the cases in python-cases.ts).
 *
 * Python 3.11's half runs live in CI (python-differential.test.ts): 3.11 is a part every machine has.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PYTHON_LATER_UNICODE_VERSION, PYTHON_UNICODE_VERSION } from '../../src/consumers/python/index.js';
import { findPythonWithUnicode } from '../helpers/python.js';
import { ROOT } from '../helpers/temp.js';
import { askPython, ours, recordedCases, type Case } from './python-cases.js';

const FILE = join(ROOT, 'fixtures/consumers/python-3.12-answers.jsonl');

interface Header {
  readonly python: string;
  readonly unicode: string;
  readonly note: string;
}

const NOTE = 'answers of test/consumers/python-oracle.py under Python 3.12, one per case: see test/consumers/python-312-recorded.test.ts';

/** JSON in ASCII: U+0085, U+2028 and the like escaped, so no reader or editor splits a line at them. */
const ascii = (value: unknown): string => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The file's text: the header, then `{op, v, answer}` a line. */
function serialize(header: Header, cases: readonly Case[], answers: readonly unknown[]): string {
  return [ascii(header), ...cases.map((c, i) => ascii({ op: c.op, v: c.v, answer: answers[i] }))].join('\n') + '\n';
}

function recorded(): { header: Header; cases: Case[]; answers: unknown[] } {
  const [first, ...lines] = readFileSync(FILE, 'utf8').trimEnd().split('\n');
  const rows = lines.map((l) => JSON.parse(l) as Case & { answer: unknown });
  return { header: JSON.parse(first!) as Header, cases: rows.map(({ op, v }) => ({ op, v })), answers: rows.map((r) => r.answer) };
}

describe('the profile under Python 3.12, against the answers Python 3.12 recorded (no Python needed)', () => {
  const { header, cases, answers } = recorded();

  it('the file is 3.12’s, with every operation', () => {
    expect(header).toEqual({ python: '3.12', unicode: PYTHON_LATER_UNICODE_VERSION, note: NOTE });
    const byOp: Record<string, number> = {};
    for (const c of cases) byOp[c.op] = (byOp[c.op] ?? 0) + 1;
    expect(byOp).toEqual({
      every_code_point: 1,
      strip: 69,
      isspace: 69,
      casefold: 69,
      len: 60,
      nfc: 309,
      fromisoformat: 227,
      sag_datetime: 236,
      sag_weight: 113,
      identities: 307,
    });
  });

  it('every recorded case gets 3.12’s answer', () => {
    const wrong = cases
      .map((c, i) => ({ ...c, python: answers[i], ours: c.op === 'every_code_point' ? undefined : ours(c, PYTHON_LATER_UNICODE_VERSION) }))
      .filter((r) => r.op !== 'every_code_point' && JSON.stringify(r.python) !== JSON.stringify(r.ours));
    expect(wrong.slice(0, 20)).toEqual([]);
  });

  it('the cases tell 3.12 from 3.11: answers Unicode 15.0 gives and 14.0 would not', () => {
    const differ = cases.filter((c, i) => c.op !== 'every_code_point' && JSON.stringify(ours(c, PYTHON_UNICODE_VERSION)) !== JSON.stringify(answers[i]));
    const byOp: Record<string, number> = {};
    for (const c of differ) byOp[c.op] = (byOp[c.op] ?? 0) + 1;
    expect(byOp).toEqual({ nfc: 52, identities: 39 });
  });

  it('casefold, isspace and NFC on every code point are 3.12’s', () => {
    const i = cases.findIndex((c) => c.op === 'every_code_point');
    const theirs = answers[i] as { folds: [number, string][]; spaces: number[]; nfc: [number, string][] };
    const mine = ours(cases[i]!, PYTHON_LATER_UNICODE_VERSION) as typeof theirs;
    expect(mine.folds).toEqual(theirs.folds);
    expect(mine.spaces).toEqual(theirs.spaces);
    expect(mine.nfc).toEqual(theirs.nfc);
  });
});

const python312 = findPythonWithUnicode(PYTHON_LATER_UNICODE_VERSION, 'PYTHON312', ['python3.12']);
if (python312 === undefined) console.warn('python 3.12 recorded answers: regeneration skipped: no Python 3.12 found (not a part every machine has; set PYTHON312 to run it)');

describe.skipIf(python312 === undefined)('the recorded answers, regenerated by a real Python 3.12', () => {
  it('Python 3.12 gives the recorded file byte for byte', async () => {
    const cases = recordedCases();
    const py = askPython(python312!.command, cases);
    expect(py.header.unicode).toBe(PYTHON_LATER_UNICODE_VERSION);
    const text = serialize({ python: py.header.python.split('.').slice(0, 2).join('.'), unicode: py.header.unicode, note: NOTE }, cases, py.answers);
    await expect(text).toMatchFileSnapshot(FILE);
  }, 120_000);
});
