/**
 * Whether Python's `datetime.datetime.fromisoformat(value)` (CPython 3.11+) accepts a string: the
 * parser SAG v1.7 runs on an event's `start_time` / `end_time`. Covered: calendar dates
 * (`YYYY-MM-DD`, `YYYYMMDD`) and ISO week dates (`YYYY-Www[-D]`, `YYYYWww[D]`), any one character
 * as the date/time separator, times `HH[:MM[:SS[.f…]]]` or `HHMM[SS]`, and offsets `Z` or
 * `±HH[:MM[:SS[.f…]]]`, with the calendar's ranges (no hour 24, no leap second). Checked against
 * Python 3.11 on `fixtures/consumers/python-fromisoformat.json`.
 */

const DIGITS = /^\d+$/;

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function dateOk(d: string): boolean {
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d) ?? /^(\d{4})(\d{2})(\d{2})$/.exec(d);
  if (m) {
    const [y, mo, da] = [Number(m[1]), Number(m[2]), Number(m[3])];
    return y >= 1 && mo >= 1 && mo <= 12 && da >= 1 && da <= daysIn(y, mo);
  }
  m = /^(\d{4})-W(\d{2})(?:-([1-7]))?$/.exec(d) ?? /^(\d{4})W(\d{2})([1-7])?$/.exec(d);
  if (m) return Number(m[1]) >= 1 && Number(m[2]) >= 1 && Number(m[2]) <= 53;
  return false;
}

/** Where the date ends, as CPython finds it (`_find_isoformat_datetime_separator`), in code points. */
function dateLength(cps: readonly string[]): number {
  if (cps.length === 7) return 7;
  if (cps[4] === '-') {
    if (cps[5] !== 'W') return 10;
    return cps.length > 8 && cps[8] === '-' ? 10 : 8;
  }
  if (cps[4] === 'W') {
    let i = 7;
    while (i < cps.length && DIGITS.test(cps[i]!)) i++;
    return i < 9 ? i : i % 2 === 0 ? 7 : 8;
  }
  return 8;
}

const TIME = /^(\d{2})(?:(:?)(\d{2})(?:\2(\d{2})(?:[.,](\d*))?)?)?$/;
const OFFSET = /^(\d{2})(?:(:?)(\d{2})(?:\2(\d{2}))?(?:[.,](\d+))?)?$/;

function timeOk(t: string): boolean {
  const z = t.search(/[Z+-]/);
  const clock = z < 0 ? t : t.slice(0, z);
  const m = TIME.exec(clock);
  if (!m) return false;
  if (Number(m[1]) > 23 || Number(m[3] ?? 0) > 59 || Number(m[4] ?? 0) > 59) return false;
  if (m[5] === '' && z < 0) return false;
  if (z < 0) return true;
  const tz = t.slice(z);
  if (tz === 'Z') return true;
  const o = OFFSET.exec(tz.slice(1));
  return o !== null && Number(o[1]) < 24 && Number(o[3] ?? 0) < 60 && Number(o[4] ?? 0) < 60;
}

/** True when `datetime.fromisoformat(value)` returns a datetime; false when it raises. */
export function pythonParsesIsoDatetime(value: unknown): boolean {
  if (typeof value !== 'string' || value.length < 7) return false;
  const cps = [...value];
  const n = dateLength(cps);
  if (!dateOk(cps.slice(0, n).join(''))) return false;
  if (cps.length === n) return true;
  const time = cps.slice(n + 1).join('');
  return time.length > 0 && timeOk(time);
}
