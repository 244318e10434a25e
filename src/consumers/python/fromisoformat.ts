/**
 * Python 3.11's `datetime.datetime.fromisoformat(value)`: the parser SAG v1.7 runs on an event's
 * `start_time` / `end_time`. A port of CPython 3.11's C implementation (`Modules/_datetimemodule.c`:
 * `_find_isoformat_datetime_separator`, `parse_isoformat_date`, `parse_isoformat_time`,
 * `parse_hh_mm_ss_ff`, `iso_to_ymd`, then the range checks of the `datetime` and `timezone`
 * constructors), step for step, quirks included: the separator is any one character, found by
 * the shape of the date; ISO week dates (`2020-W53-1`, `2020W531`, week 53 only in a year that has
 * one); basic formats (`20200101T010203`); `.` or `,` before the fraction, digits past the sixth
 * ignored; no hour 24, no leap second; offsets strictly within ±24 h. Positions count code points
 * (Python 3.11 accepts `é` or `😀`, even a lone surrogate, as the separator; any other non-ASCII
 * character fails the grammar either way). The C code reads a NUL-terminated buffer, so an
 * embedded `\0` ends the text as it does there. Checked against `python3` by
 * test/consumers/python-differential.test.ts.
 */

/** A datetime as CPython builds it from the text. */
export interface PythonDatetime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly microsecond: number;
  /** The UTC offset in microseconds; absent for a naive datetime. */
  readonly offsetMicroseconds?: number;
}

const NUL = 0;
const DASH = 0x2d;
const WEEK = 0x57; // W
const COLON = 0x3a;
const DOT = 0x2e;
const COMMA = 0x2c;
const ZULU = 0x5a; // Z
const PLUS = 0x2b;

/** The text as code points; reading past the end gives NUL, as the C string's terminator does. */
class Text {
  readonly cps: number[];
  constructor(s: string) {
    this.cps = [];
    for (const c of s) this.cps.push(c.codePointAt(0)!);
  }
  get length(): number {
    return this.cps.length;
  }
  at(i: number): number {
    return i >= 0 && i < this.cps.length ? this.cps[i]! : NUL;
  }
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** `parse_digits`: `n` ASCII digits at `p`, or undefined. */
function digits(t: Text, p: number, n: number): { p: number; v: number } | undefined {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = t.at(p++);
    if (!isDigit(c)) return undefined;
    v = v * 10 + (c - 0x30);
  }
  return { p, v };
}

/** `_find_isoformat_datetime_separator`: where the date ends (-1: no valid place). */
function separatorAt(t: Text): number {
  const len = t.length;
  if (len === 7) return 7;
  if (t.at(4) === DASH) {
    if (t.at(5) !== WEEK) return 10;
    if (len < 8) return -1;
    if (len > 8 && t.at(8) === DASH) {
      if (len === 9) return -1;
      if (len > 10 && isDigit(t.at(10))) return 8;
      return 10;
    }
    return 8;
  }
  if (t.at(4) === WEEK) {
    let idx = 7;
    while (idx < len && isDigit(t.at(idx))) idx++;
    if (idx < 9) return idx;
    return idx % 2 === 0 ? 7 : 8;
  }
  return 8;
}

const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeap(y) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** `iso_to_ymd`, or undefined where CPython fails (an ISO year 0 yields an ordinal below 1, so it fails too). */
function isoToYmd(isoYear: number, week: number, weekday: number): { year: number; month: number; day: number } | undefined {
  if (isoYear < 1) return undefined;
  const jan1 = new Date(0);
  jan1.setUTCFullYear(isoYear, 0, 1);
  const firstWeekday = (jan1.getUTCDay() + 6) % 7; // 0 = Monday, as Python counts
  if (week <= 0 || week >= 53) {
    if (!(week === 53 && (firstWeekday === 3 || (firstWeekday === 2 && isLeap(isoYear))))) return undefined;
  }
  if (weekday <= 0 || weekday >= 8) return undefined;
  const week1Monday = -firstWeekday + (firstWeekday > 3 ? 7 : 0);
  const d = new Date(jan1.getTime() + (week1Monday + (week - 1) * 7 + weekday - 1) * 86_400_000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** `parse_isoformat_date` over the first `len` code points. */
function parseDate(t: Text, len: number): { year: number; month: number; day: number } | undefined {
  const y = digits(t, 0, 4);
  if (!y) return undefined;
  let p = y.p;
  const usesSeparator = t.at(p) === DASH;
  if (usesSeparator) p++;
  if (t.at(p) === WEEK) {
    p++;
    const w = digits(t, p, 2);
    if (!w) return undefined;
    p = w.p;
    let weekday = 1;
    if (p < len) {
      if (usesSeparator && t.at(p++) !== DASH) return undefined;
      const d = digits(t, p, 1);
      if (!d) return undefined;
      weekday = d.v;
    }
    return isoToYmd(y.v, w.v, weekday);
  }
  const m = digits(t, p, 2);
  if (!m) return undefined;
  p = m.p;
  if (usesSeparator && t.at(p++) !== DASH) return undefined;
  const d = digits(t, p, 2);
  if (!d) return undefined;
  return { year: y.v, month: m.v, day: d.v };
}

interface Clock {
  hour: number;
  minute: number;
  second: number;
  microsecond: number;
}

/** `parse_hh_mm_ss_ff` over [start, end): 0 success at the end, 1 success with more text, -1 failure. */
function parseClock(t: Text, start: number, end: number, out: Clock): number {
  const vals = [0, 0, 0];
  let p = start;
  let hasSeparator = true;
  let i = 0;
  for (; i < 3; i++) {
    const r = digits(t, p, 2);
    if (!r) return -1;
    vals[i] = r.v;
    p = r.p;
    const c = t.at(p++);
    if (i === 0) hasSeparator = c === COLON;
    if (p >= end) {
      [out.hour, out.minute, out.second] = vals as [number, number, number];
      return c !== NUL ? 1 : 0;
    } else if (hasSeparator && c === COLON) {
      continue;
    } else if (c === DOT || c === COMMA) {
      break;
    } else if (!hasSeparator) {
      p--;
    } else {
      return -1;
    }
  }
  [out.hour, out.minute, out.second] = vals as [number, number, number];
  const toParse = Math.min(end - p, 6);
  const f = digits(t, p, toParse);
  if (!f) return -1;
  p = f.p;
  // CPython multiplies by correction[to_parse - 1]; with nothing to parse the value is 0 either way.
  out.microsecond = toParse > 0 && toParse < 6 ? f.v * 10 ** (6 - toParse) : f.v;
  while (isDigit(t.at(p))) p++;
  return t.at(p) !== NUL ? 1 : 0;
}

/** `parse_isoformat_time` over [start, end): the clock and, when given, the offset in microseconds. */
function parseTime(t: Text, start: number, end: number): { clock: Clock; offset?: number } | undefined {
  let tz = start;
  do {
    const c = t.at(tz);
    if (c === ZULU || c === PLUS || c === DASH) break;
  } while (++tz < end);
  const clock: Clock = { hour: 0, minute: 0, second: 0, microsecond: 0 };
  const rv = parseClock(t, start, tz, clock);
  if (rv < 0) return undefined;
  if (tz === end) return rv === 1 ? undefined : { clock };
  if (t.at(tz) === ZULU) return t.at(tz + 1) !== NUL ? undefined : { clock, offset: 0 };
  const sign = t.at(tz) === DASH ? -1 : 1;
  const off: Clock = { hour: 0, minute: 0, second: 0, microsecond: 0 };
  if (parseClock(t, tz + 1, end, off) !== 0) return undefined;
  const seconds = sign * (off.hour * 3600 + off.minute * 60 + off.second);
  // tzinfo_from_isoformat_results: whole seconds 0 means UTC (a fraction alone is dropped).
  return { clock, offset: seconds === 0 ? 0 : seconds * 1_000_000 + sign * off.microsecond };
}

/** `datetime.fromisoformat(value)`: the datetime, or undefined where Python raises. */
export function pythonFromIsoformat(value: string): PythonDatetime | undefined {
  const t = new Text(value);
  if (t.length < 7) return undefined;
  const sep = separatorAt(t);
  if (sep < 0) return undefined;
  const date = parseDate(t, sep);
  if (!date) return undefined;
  let clock: Clock = { hour: 0, minute: 0, second: 0, microsecond: 0 };
  let offset: number | undefined;
  if (t.length > sep) {
    const time = parseTime(t, sep + 1, t.length);
    if (!time) return undefined;
    clock = time.clock;
    offset = time.offset;
  }
  const { year, month, day } = date;
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (clock.hour > 23 || clock.minute > 59 || clock.second > 59) return undefined;
  if (offset !== undefined && Math.abs(offset) >= 86_400_000_000) return undefined;
  return { year, month, day, ...clock, ...(offset !== undefined ? { offsetMicroseconds: offset } : {}) };
}

/** True when `datetime.fromisoformat(value)` returns a datetime; false when it raises (a non-string raises too). */
export function pythonParsesIsoDatetime(value: unknown): boolean {
  return typeof value === 'string' && pythonFromIsoformat(value) !== undefined;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `dt.isoformat()` of a parsed datetime, as Python writes it (for comparisons and messages). */
export function pythonIsoformat(dt: PythonDatetime): string {
  let s = `${pad(dt.year, 4)}-${pad(dt.month)}-${pad(dt.day)}T${pad(dt.hour)}:${pad(dt.minute)}:${pad(dt.second)}`;
  if (dt.microsecond) s += `.${pad(dt.microsecond, 6)}`;
  if (dt.offsetMicroseconds === undefined) return s;
  const off = dt.offsetMicroseconds;
  const abs = Math.abs(off);
  const hh = Math.floor(abs / 3_600_000_000);
  const mm = Math.floor((abs % 3_600_000_000) / 60_000_000);
  const ss = Math.floor((abs % 60_000_000) / 1_000_000);
  const us = abs % 1_000_000;
  s += `${off < 0 ? '-' : '+'}${pad(hh)}:${pad(mm)}`;
  if (ss || us) s += `:${pad(ss)}`;
  if (us) s += `.${pad(us, 6)}`;
  return s;
}

/**
 * SAG v1.7's `_datetime(v)`: `None` unless `v` is a non-empty `str`, then
 * `datetime.fromisoformat(v.replace("Z", "+00:00"))`. `null`: no time (SAG accepts it);
 * `undefined`: SAG's import fails ("invalid OCTX datetime").
 */
export function sagDatetime(value: unknown): PythonDatetime | null | undefined {
  if (typeof value !== 'string' || value === '') return null;
  return pythonFromIsoformat(value.replaceAll('Z', '+00:00'));
}
