/** SemVer 2.0.0, exactly the regex the OCTX schema and the reference use (no `v` prefix). */
export const SEMVER_PATTERN =
  /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** A parsed SemVer 2.0.0 version. Numbers are kept as bigint so `99999999999999999999.0.0` compares right. */
export interface SemVer {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly prerelease: readonly string[];
  readonly build: readonly string[];
  readonly raw: string;
}

/** True when `value` is a SemVer 2.0.0 string. */
export function isSemVer(value: unknown): value is string {
  return typeof value === 'string' && SEMVER_PATTERN.test(value);
}

/** Parses a SemVer 2.0.0 string; returns `undefined` when it is not one. */
export function parseSemVer(value: string): SemVer | undefined {
  const m = SEMVER_PATTERN.exec(value);
  if (!m) return undefined;
  return {
    major: BigInt(m[1]!),
    minor: BigInt(m[2]!),
    patch: BigInt(m[3]!),
    prerelease: m[4] === undefined ? [] : m[4].split('.'),
    build: m[5] === undefined ? [] : m[5].split('.'),
    raw: value,
  };
}

function comparePrereleaseId(a: string, b: string): number {
  const an = /^[0-9]+$/.test(a);
  const bn = /^[0-9]+$/.test(b);
  if (an && bn) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (an) return -1; // numeric identifiers have lower precedence than alphanumeric ones
  if (bn) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * SemVer 2.0.0 precedence: negative when `a < b`, 0 when equal precedence, positive when `a > b`.
 * Build metadata is ignored; a release sorts after its pre-releases.
 * @throws TypeError when either string is not SemVer.
 */
export function compareSemVer(a: string | SemVer, b: string | SemVer): number {
  const x = typeof a === 'string' ? parseSemVer(a) : a;
  const y = typeof b === 'string' ? parseSemVer(b) : b;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- only a string that failed to parse gets here (a SemVer object is truthy); String() also names undefined/null from untyped JS callers
  if (!x || !y) throw new TypeError(`not a SemVer 2.0.0 version: ${String(!x ? a : b)}`);
  for (const k of ['major', 'minor', 'patch'] as const) {
    if (x[k] !== y[k]) return x[k] < y[k] ? -1 : 1;
  }
  if (x.prerelease.length === 0 || y.prerelease.length === 0) {
    return x.prerelease.length === y.prerelease.length ? 0 : x.prerelease.length === 0 ? 1 : -1;
  }
  const n = Math.min(x.prerelease.length, y.prerelease.length);
  for (let i = 0; i < n; i++) {
    const c = comparePrereleaseId(x.prerelease[i]!, y.prerelease[i]!);
    if (c !== 0) return c;
  }
  return x.prerelease.length - y.prerelease.length;
}

/**
 * The next version after `version`: `patch` (default) bumps the patch and drops pre-release and
 * build parts; a pre-release `1.2.3-rc.1` becomes `1.2.3` for `patch` (its release).
 */
export function bumpSemVer(version: string, part: 'major' | 'minor' | 'patch' = 'patch'): string {
  const v = parseSemVer(version);
  if (!v) throw new TypeError(`not a SemVer 2.0.0 version: ${version}`);
  if (part === 'major') return `${v.major + 1n}.0.0`;
  if (part === 'minor') return `${v.major}.${v.minor + 1n}.0`;
  if (v.prerelease.length > 0) return `${v.major}.${v.minor}.${v.patch}`;
  return `${v.major}.${v.minor}.${v.patch + 1n}`;
}
