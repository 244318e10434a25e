/**
 * Python's `Decimal(str(x)).quantize(Decimal("0.01"))` (default context: ROUND_HALF_EVEN) for a
 * JSON number, and SAG v1.7's `_weight` built on it.
 *
 * `str(x)` of a Python float is its shortest round-trip repr, and so is JavaScript's
 * `String(x)` (both pick the closest of the shortest digit strings), so the Decimal SAG builds has
 * the digits of `String(x)`: 0.125 is exactly 0.125 there, not the binary double
 * `Decimal(0.125)` would see, and 0.125 → 0.12 (half to even) while 0.135 → 0.14. A JSON integer
 * is a Python int: the same value. `-0` (JSON `-0.0`) is taken as 0: JavaScript's number cannot
 * tell `-0` from `-0.0`, and either stores zero.
 */

/** A decimal as coefficient × 10^exponent. */
interface Dec {
  readonly negative: boolean;
  readonly coefficient: bigint;
  readonly exponent: number;
}

/** `Decimal(str(x))` for a finite JavaScript number. */
function decimalOf(x: number): Dec {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x));
  if (!m) throw new RangeError(`not a finite number: ${x}`);
  const fraction = m[3] ?? '';
  return { negative: m[1] === '-', coefficient: BigInt(m[2]! + fraction), exponent: Number(m[4] ?? 0) - fraction.length };
}

/** Rounds to `exponent` (≥ the decimal's own exponent needs no rounding), half to even. */
function quantize(d: Dec, exponent: number): Dec {
  if (d.exponent >= exponent) return { ...d, coefficient: d.coefficient * 10n ** BigInt(d.exponent - exponent), exponent };
  const div = 10n ** BigInt(exponent - d.exponent);
  let q = d.coefficient / div;
  const r = d.coefficient % div;
  if (r * 2n > div || (r * 2n === div && q % 2n === 1n)) q += 1n;
  return { negative: d.negative, coefficient: q, exponent };
}

/** `str()` of a decimal with exponent ≤ 0 (plain notation, as Python writes one this small). */
function plain(d: Dec): string {
  const digits = d.coefficient.toString().padStart(-d.exponent + 1, '0');
  const point = digits.length + d.exponent;
  const body = d.exponent === 0 ? digits : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return `${d.negative ? '-' : ''}${body}`;
}

/**
 * `str(Decimal(str(x)).quantize(Decimal("0.01")))`, e.g. `0.125` → `"0.12"`, `1` → `"1.00"`
 * (for |x| below 10^26, where Python's default 28-digit context holds the result).
 */
export function pythonQuantize2(x: number): string {
  return plain(quantize(decimalOf(Object.is(x, -0) ? 0 : x), -2));
}

/** What SAG v1.7 does with an event-entity `weight`. */
export type SagWeight =
  /** stored as `stored`; `changed`: that is not the value written (a warning). */
  | { readonly ok: true; readonly stored: string; readonly changed: boolean }
  /** refused: "event-entity weight exceeds SAG Numeric(3,2)". */
  | { readonly ok: false };

/**
 * SAG's `_weight(v)`: `Decimal(str(1 if v is None else v))`, refused outside [0, 9.99], else
 * quantised to 0.01. `undefined` for a value that is not a number (the format refuses it first).
 */
export function sagWeight(value: unknown): SagWeight | undefined {
  const v = value === undefined || value === null ? 1 : value;
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  // Exact: the decimal of String(v) compares with 0 and 9.99 as the double v does with them.
  if (v < 0 || v > 9.99) return { ok: false };
  const stored = pythonQuantize2(v);
  return { ok: true, stored, changed: Number(stored) !== v };
}
