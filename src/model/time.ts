/** The OCTX UTC time profile for `release.created_at`: `YYYY-MM-DDTHH:MM:SS[.fraction]Z`. */
export const OCTX_TIME_PATTERN = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?Z$/;

/** True when `value` matches the OCTX time profile and names a real calendar day. */
export function isOctxTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = OCTX_TIME_PATTERN.exec(value);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

/**
 * Normalises a caller's `createdAt` into the profile. A `Date` becomes whole seconds in UTC
 * (`2026-07-12T10:00:00Z`, the form the reference and golden packages use); a string must
 * already be in the profile and is kept exactly, fraction included. Returns `undefined` for
 * anything else.
 */
export function toOctxTime(value: Date | string): string | undefined {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return undefined;
    const s = value.toISOString().replace(/\.\d{3}Z$/, 'Z');
    return isOctxTime(s) ? s : undefined;
  }
  return isOctxTime(value) ? value : undefined;
}
