import { describe, expect, it } from 'vitest';
import { OCTX_CODES, OctxError } from 'octx-export';
import { issue } from '../../src/model/errors.js';
import { exitCodeFor, formatIssueLine, HINTS, hintFor, reportError } from '../../src/cli/errors.js';
import { formatDuration, formatRate, ProgressLine } from '../../src/terminal/progress.js';

function fakeStream(isTTY: boolean, columns?: number) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, ...(columns !== undefined ? { columns } : {}), write: (s: string) => (writes.push(s), true) } };
}

describe('progress line', () => {
  it('draws percent, count, records/s and ETA on one updating line when stderr is a terminal', () => {
    let now = 0;
    const { writes, stream } = fakeStream(true);
    const p = new ProgressLine(stream, { now: () => now, interval: 100 });
    p.update({ phase: 'write', kind: 'entry', completed: 0, total: 400 });
    now = 2000;
    p.update({ phase: 'write', kind: 'entry', completed: 100, total: 400 });
    now = 2050; // inside the redraw interval: skipped
    p.update({ phase: 'write', kind: 'entry', completed: 110, total: 400 });
    now = 4000;
    p.update({ phase: 'write', kind: 'entry', completed: 400, total: 400 });
    p.update({ phase: 'warning', issue: issue({ code: 'OCTX_VECTOR_NORM', severity: 'warning', message: 'x' }) });
    p.done();
    expect(writes).toEqual([
      '\r\x1b[2Kwrite entry   0% 0/400 –/s ETA ?',
      '\r\x1b[2Kwrite entry  25% 100/400 50/s ETA 6s',
      '\r\x1b[2Kwrite entry 100% 400/400 100/s ETA 0s',
      '\r\x1b[2K',
    ]);
  });

  it('stays silent when stderr is not a terminal, and fits the terminal width', () => {
    const quiet = fakeStream(false);
    const p = new ProgressLine(quiet.stream);
    p.update({ phase: 'verify', kind: 'package', completed: 1, total: 1 });
    p.step('reading', 5, 10);
    p.done();
    expect(p.enabled).toBe(false);
    expect(quiet.writes).toEqual([]);
    const narrow = fakeStream(true, 20);
    new ProgressLine(narrow.stream, { now: () => 1 }).step('validate structure', 1, 1);
    expect(narrow.writes[0]!.replace('\r\x1b[2K', '').length).toBe(19);
  });

  it('formats durations and rates', () => {
    expect([formatDuration(4.4), formatDuration(185), formatDuration(7325), formatDuration(Number.NaN)]).toEqual(['4s', '3m05s', '2h02m', '?']);
    expect([formatRate(0), formatRate(3.25), formatRate(850), formatRate(12_345), formatRate(123_456)]).toEqual(['–/s', '3.3/s', '850/s', '12k/s', '123k/s']);
  });
});

describe('error reporting', () => {
  it('every hint belongs to a known code, and unknown codes fall back to their meaning', () => {
    for (const code of Object.keys(HINTS)) expect(OCTX_CODES).toHaveProperty(code);
    expect(hintFor('OCTX_VECTOR_NORM')).toContain(OCTX_CODES.OCTX_VECTOR_NORM);
  });

  it('prints one line per issue with its place, then one hint; exit 2 for usage/I/O, 1 otherwise', () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (s: string) => (out.push(s), true) }, stderr: { write: (s: string) => (err.push(s), true) } } as never;
    const e = OctxError.aggregate('OCTX_STRUCTURE_INVALID', 'bad', [
      issue({
        code: 'OCTX_REFERENCE_UNKNOWN',
        path: 'data/chunks.jsonl',
        line: 3,
        recordId: '019c2222-2222-7222-8222-222222222222',
        field: 'document_id',
        message: 'unknown document\nsecond line',
      }),
      issue({ code: 'OCTX_CHUNK_ORDINAL_DUPLICATE', message: 'ordinal 0 twice' }),
    ]);
    expect(reportError(e, io, { json: false, debug: false })).toBe(1);
    expect(err.join('')).toBe(
      [
        // The aggregate's own code and headline first (reviewer finding: they were dropped).
        'error[OCTX_STRUCTURE_INVALID]: bad',
        'error[OCTX_REFERENCE_UNKNOWN]: unknown document',
        '  --> data/chunks.jsonl:3',
        '  record 019c2222-2222-7222-8222-222222222222',
        '  field document_id',
        'error[OCTX_CHUNK_ORDINAL_DUPLICATE]: ordinal 0 twice',
        `hint: ${HINTS.OCTX_STRUCTURE_INVALID}`,
        '',
      ].join('\n'),
    );
    expect(out).toEqual([]);
    expect(exitCodeFor(OctxError.of({ code: 'OCTX_OUTPUT_EXISTS', message: 'x' }))).toBe(2);
    expect(exitCodeFor(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(2);
    expect(exitCodeFor(new TypeError('bug'))).toBe(1);
    expect(formatIssueLine(issue({ code: 'OCTX_VECTOR_NORM', severity: 'warning', message: 'not unit length' }))).toBe('warning[OCTX_VECTOR_NORM]: not unit length');
  });

  it('unexpected errors print no stack unless --debug', () => {
    const err: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => (err.push(s), true) } } as never;
    reportError(new TypeError('boom'), io, { json: false, debug: false });
    expect(err.join('')).toBe('error[UNEXPECTED]: boom\n(run again with --debug for the stack trace)\n');
    err.length = 0;
    reportError(new TypeError('boom'), io, { json: false, debug: true });
    expect(err.join('')).toMatch(/^error\[UNEXPECTED\]: boom\nTypeError: boom\n\s+at /);
  });
});
