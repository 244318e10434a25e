/**
 * `vectors/config.json` (SEED §7, reference §10.6): validation, the fingerprint recipe, the
 * reference validator's forbidden-key heuristic, and the exact bytes a producer writes.
 */
import type { OctxCode } from '../model/codes.js';
import type { OctxIssue } from '../model/errors.js';
import { OctxError, issue } from '../model/errors.js';
import type { JsonObject, JsonValue } from '../model/json.js';
import { findJsonProblem, jcsDigest } from '../model/json.js';
import { VECTOR_CONFIG_PATH } from '../model/paths.js';

/** Largest vector width the reference validator accepts (`ArchiveLimits.max_arrow_dimension`). */
export const MAX_VECTOR_DIMENSIONS = 65_536;

/** Shape of a `fingerprint` value: `sha256:` and 64 lower-case hex digits. */
export const VECTOR_FINGERPRINT_PATTERN = /^sha256:[0-9a-f]{64}$/;

/**
 * A vector configuration as a producer supplies it. `model`, `dimensions` and `normalized` are
 * required by the SEED; `fingerprint` is optional here because {@link prepareVectorConfig}
 * computes it (a given one must equal the computed one). Every other key is a pipeline setting
 * that takes part in the fingerprint: see {@link RECOMMENDED_VECTOR_CONFIG_KEYS}. Top-level
 * `undefined` values are treated as absent, exactly as JSON/JCS would drop them.
 */
export interface VectorConfigInput {
  model: string;
  revision?: string;
  dimensions: number;
  normalized: boolean;
  fingerprint?: string;
  [key: string]: JsonValue | undefined;
}

/**
 * The result of {@link prepareVectorConfig}: the frozen config with its fingerprint, the values a
 * vector writer needs, and `bytes`, the exact content of `vectors/config.json`.
 */
export interface PreparedVectorConfig {
  /** Deep-frozen config, keys in file order, `fingerprint` last. */
  readonly config: JsonObject;
  /** `sha256:<hex>` of the JCS form of the config without `fingerprint`. */
  readonly fingerprint: string;
  /** Vector width every target Arrow file must use. */
  readonly dimensions: number;
  /** Whether the packaged vectors are declared L2-normalised. */
  readonly normalized: boolean;
  /** UTF-8, no BOM, 2-space pretty JSON with a final `\n` (see {@link prepareVectorConfig}). */
  readonly bytes: Buffer;
}

/** One place where a config holds something the format forbids, and why. */
export interface ForbiddenVectorConfigEntry {
  /** Dotted path of the offending key or value (`a.b`, `list[2]`); `''` for the root. */
  readonly at: string;
  /** A sentence for a person; never echoes a refused value (it may be a secret). */
  readonly reason: string;
}

/**
 * A recommended, fixed vocabulary for pipeline settings. The SEED requires every setting that
 * affects vector output or query compatibility to be in the config (and so in the fingerprint)
 * but names none beyond `model`, `revision`, `dimensions` and `normalized`; two producers with
 * the same pipeline only compute the same fingerprint when they also use the same key names.
 * All of these pass the reference validator's forbidden-key heuristic (checked by the tests).
 *
 * | key | meaning |
 * | --- | --- |
 * | `input_template` | text fed to the model per record: a `{field}` template string for all targets, or an object keyed by target (`chunks`, `events`, `entities`) |
 * | `pooling` | how token states become one vector: `mean`, `cls`, `last`, `max`, … |
 * | `truncation` | what happens to over-long input, e.g. `{ "max_tokens": 512, "side": "right" }` |
 * | `max_tokens` | input length limit in model tokens, when no other truncation detail matters |
 * | `prompt` | instruction text the model receives with every packaged input |
 * | `query_prefix` | prefix a consumer must add to its queries (e.g. `"query: "`) |
 * | `document_prefix` | prefix added to every packaged input (e.g. `"passage: "`) |
 * | `tokenizer` | tokenizer identity when model + revision do not already imply it |
 * | `precision` | numeric precision of the model run (`float32`, `float16`, `int8`, …); packaged vectors are always float32 |
 *
 * Normalisation is declared only by the required boolean `normalized` (keys such as
 * `normalize` or `normalization` are refused); retrieval distance metrics, endpoints and keys
 * are never stored.
 */
export const RECOMMENDED_VECTOR_CONFIG_KEYS: Readonly<Record<RecommendedVectorConfigKey, string>> = Object.freeze({
  input_template: 'text fed to the model per record: a {field} template string, or an object keyed by target (chunks, events, entities)',
  pooling: 'how token states become one vector: mean, cls, last, max, ...',
  truncation: 'what happens to over-long input, e.g. {"max_tokens": 512, "side": "right"}',
  max_tokens: 'input length limit in model tokens',
  prompt: 'instruction text the model receives with every packaged input',
  query_prefix: 'prefix a consumer must add to its queries, e.g. "query: "',
  document_prefix: 'prefix added to every packaged input, e.g. "passage: "',
  tokenizer: 'tokenizer identity when model + revision do not already imply it',
  precision: 'numeric precision of the model run (float32, float16, int8, ...); packaged vectors are float32',
});

/** A key of {@link RECOMMENDED_VECTOR_CONFIG_KEYS}. */
export type RecommendedVectorConfigKey = 'input_template' | 'pooling' | 'truncation' | 'max_tokens' | 'prompt' | 'query_prefix' | 'document_prefix' | 'tokenizer' | 'precision';

// ── fingerprint ──────────────────────────────────────────────────────────────────────────

/**
 * The SEED §7 fingerprint: copy the config, remove `fingerprint`, RFC 8785 JCS, SHA-256,
 * `sha256:<hex>`. Top-level `undefined` members are dropped (JCS drops them too).
 * @throws OctxError `OCTX_VECTOR_CONFIG_INVALID` when `config` is not a plain object or holds a
 *   value JSON cannot carry (NaN, a lone surrogate, a class instance, …).
 */
export function computeVectorFingerprint(config: object): string {
  if (!isPlainObject(config)) {
    throw OctxError.of({ code: 'OCTX_VECTOR_CONFIG_INVALID', path: VECTOR_CONFIG_PATH, message: 'vector config must be a plain JSON object' });
  }
  const copy = withoutUndefined(config);
  delete copy.fingerprint;
  const problem = findJsonProblem(copy);
  if (problem) {
    throw OctxError.of({
      code: 'OCTX_VECTOR_CONFIG_INVALID',
      path: VECTOR_CONFIG_PATH,
      ...(problem.at !== '' ? { field: problem.at } : {}),
      message: `vector config is not strict JSON: ${problem.reason}`,
    });
  }
  return jcsDigest(copy);
}

// ── forbidden keys (reference validator heuristic) ──────────────────────────────────────────

const FORBIDDEN_TOKENS: ReadonlySet<string> = new Set([
  'api',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'distance',
  'endpoint',
  'header',
  'headers',
  'host',
  'key',
  'metric',
  'normalization',
  'normalize',
  'password',
  'secret',
  'token',
  'url',
]);
const FORBIDDEN_COMPACT: ReadonlySet<string> = new Set(['accesskey', 'accesstoken', 'apikey', 'apiurl', 'baseurl', 'serviceurl']);
/**
 * Words the SEED's rule ("API addresses, keys, service endpoints, and retrieval distance metrics
 * are not stored") forbids beyond the reference's exact tokens: matched in singular or plural
 * (`endpoints`, `secrets`, `urls`), with synonyms (`passwd`, `pwd`, `uri`, `hostname`) and the
 * retrieval settings the reference misses (`similarity`, `similarity_threshold`). A stricter
 * consumer that refuses these would otherwise drop the whole vectors layer. `token` is left to
 * the reference's exact match: `max_tokens` and `tokenizer` are pipeline settings.
 */
const FORBIDDEN_WORDS: ReadonlySet<string> = new Set([
  'api',
  'apikey',
  'accesskey',
  'auth',
  'authorization',
  'bearer',
  'credential',
  'distance',
  'endpoint',
  'header',
  'host',
  'hostname',
  'key',
  'metric',
  'passphrase',
  'passwd',
  'password',
  'pwd',
  'secret',
  'similarity',
  'uri',
  'url',
  'baseurl',
  'serviceurl',
]);
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const CAMEL_BOUNDARY = /(?<=[a-z0-9])(?=[A-Z])/g;
const NON_ALNUM = /[^A-Za-z0-9]+/;
// The reference lower-cases with Python's str.casefold(). Only ASCII letters and digits survive
// its tokeniser, so the one difference from toLowerCase() that matters is the handful of
// non-ASCII characters whose case folding contains ASCII letters (full list, checked against
// Python's casefold over every code point): ß ẞ ŉ ſ ǰ ẖ ẗ ẘ ẙ ẚ and the Latin ligatures.
// (İ and the Kelvin sign fold to ASCII under both.)
const CASEFOLD_EXTRA: Readonly<Record<string, string>> = {
  ß: 'ss',
  ŉ: 'ʼn',
  ſ: 's',
  ǰ: 'ǰ',
  ẖ: 'ẖ',
  ẗ: 'ẗ',
  ẘ: 'ẘ',
  ẙ: 'ẙ',
  ẚ: 'aʾ',
  ﬀ: 'ff',
  ﬁ: 'fi',
  ﬂ: 'fl',
  ﬃ: 'ffi',
  ﬄ: 'ffl',
  ﬅ: 'st',
  ﬆ: 'st',
};
const CASEFOLD_EXTRA_RE = /[ßŉſǰẖẗẘẙẚ\uFB00-\uFB06]/g;
/** Deeper than any config could legitimately be; also stops a cyclic producer object. */
const MAX_SCAN_DEPTH = 100;

/**
 * Lower-case ASCII tokens of a key as the reference validator sees them: `_` inserted at
 * lower/digit→upper boundaries (camelCase), case-folded, split on every run of characters that
 * are not ASCII letters or digits.
 */
function keyTokens(key: string): string[] {
  const folded = key
    .replace(CAMEL_BOUNDARY, '_')
    .toLowerCase()
    .replace(CASEFOLD_EXTRA_RE, (c) => CASEFOLD_EXTRA[c] ?? c);
  return folded.split(NON_ALNUM).filter((t) => t !== '');
}

/** Why `key` is refused, or `undefined` when it passes. */
function forbiddenKeyReason(key: string): string | undefined {
  const tokens = keyTokens(key);
  for (const t of tokens) {
    if (FORBIDDEN_TOKENS.has(t)) {
      return `key "${key}" contains the forbidden token "${t}": connection, secret and retrieval settings are never stored`;
    }
  }
  // Concatenated in key order. (The reference joins a Python set, whose order varies between
  // runs; in-order concatenation is the deterministic reading and equal for every real key.)
  const compact = tokens.join('');
  if (FORBIDDEN_COMPACT.has(compact)) {
    return `key "${key}" reads as "${compact}": connection, secret and retrieval settings are never stored`;
  }
  // The SEED's rule, stricter than the reference's: plurals and synonyms of the same words.
  for (const t of [...tokens, compact]) {
    const word = singulars(t).find((w) => FORBIDDEN_WORDS.has(w));
    if (word !== undefined) {
      return `key "${key}" contains "${t}" (${word}): API addresses, keys, service endpoints and retrieval settings are never stored`;
    }
  }
  return undefined;
}

/** `token` and the singular forms it may be the plural of (`urls` → `url`, `similarities` → `similarity`). */
function singulars(token: string): string[] {
  const out = [token];
  if (token.length > 3 && token.endsWith('s')) out.push(token.slice(0, -1));
  if (token.length > 4 && token.endsWith('es')) out.push(token.slice(0, -2));
  if (token.length > 4 && token.endsWith('ies')) out.push(`${token.slice(0, -3)}y`);
  return out;
}

/**
 * Every place where `value` breaks the reference validator's forbidden-config heuristic
 * (reference §10.6, `OCTX_VECTOR_CONFIG_FORBIDDEN`), depth-first in key order:
 *
 * - a key (at any depth, inside arrays too) is refused when, after splitting camelCase and
 *   non-alphanumerics into lower-case tokens, a token is one of `api, auth, authorization,
 *   credential, credentials, distance, endpoint, header, headers, host, key, metric,
 *   normalization, normalize, password, secret, token, url`, or the tokens joined equal
 *   `accesskey, accesstoken, apikey, apiurl, baseurl, serviceurl` (so `max_tokens`,
 *   `tokenizer` and `normalized` pass; `api_key`, `l2Normalize`, `input_key` fail);
 * - stricter than the reference, as the SEED words it: a token (or the joined tokens) that is, in
 *   singular or plural, one of the forbidden words — `endpoints`, `secrets`, `urls`, `keys`,
 *   `passwd`, `pwd`, `model_uri`, `hostname`, `similarity`, `similarity_threshold` fail; `tokens`
 *   alone is not refused (`max_tokens` is a pipeline setting);
 * - any string value (at any depth) that starts with a URI scheme (`^[A-Za-z][A-Za-z0-9+.-]*://`)
 *   is refused, e.g. `https://…`, `hf://…`.
 *
 * A refused key is reported once; its value is not searched further. The reference stops at
 * the first hit; this lists them all so a producer can fix everything in one go.
 */
export function forbiddenVectorConfigEntries(value: unknown): ForbiddenVectorConfigEntry[] {
  const out: ForbiddenVectorConfigEntry[] = [];
  scanForbidden(value, '', 0, out);
  return out;
}

function scanForbidden(value: unknown, at: string, depth: number, out: ForbiddenVectorConfigEntry[]): void {
  if (depth > MAX_SCAN_DEPTH) return;
  if (typeof value === 'string') {
    const m = URI_SCHEME.exec(value);
    if (m) out.push({ at, reason: `value starts with the URI scheme "${m[0]}": addresses and endpoints are never stored` });
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) scanForbidden(value[i], `${at}[${i}]`, depth + 1, out);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      const here = at === '' ? key : `${at}.${key}`;
      const reason = forbiddenKeyReason(key);
      if (reason !== undefined) out.push({ at: here, reason });
      else scanForbidden(child, here, depth + 1, out);
    }
  }
}

// ── validation ───────────────────────────────────────────────────────────────────────────

interface FieldProblem {
  readonly code: OctxCode;
  readonly message: string;
  readonly field?: string;
}

/**
 * Problems of the named fields (SEED §7 + the seed-aligned schema). `fingerprintRequired` is
 * false for producer input, where the fingerprint is computed.
 */
function fieldProblems(config: Record<string, unknown>, fingerprintRequired: boolean): FieldProblem[] {
  const out: FieldProblem[] = [];
  const bad = (field: string, message: string, code: OctxCode = 'OCTX_VECTOR_CONFIG_INVALID'): void => {
    out.push({ code, field, message });
  };

  const model = config.model;
  if (model === undefined) bad('model', 'model is required');
  else if (typeof model !== 'string') bad('model', 'model must be a string');
  else if (model === '') bad('model', 'model must not be empty');

  const revision = config.revision;
  if (revision !== undefined) {
    if (typeof revision !== 'string') bad('revision', 'revision must be a string when present');
    else if (revision === '') bad('revision', 'revision must not be empty when present (omit it instead)');
  }

  const dimensions = config.dimensions;
  if (dimensions === undefined) bad('dimensions', 'dimensions is required');
  else if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1) {
    bad('dimensions', `dimensions must be a positive integer, got ${describe(dimensions)}`);
  } else if (dimensions > MAX_VECTOR_DIMENSIONS) {
    bad('dimensions', `dimensions ${dimensions} is above the limit of ${MAX_VECTOR_DIMENSIONS}`, 'OCTX_VECTOR_DIMENSION_INVALID');
  }

  const normalized = config.normalized;
  if (normalized === undefined) bad('normalized', 'normalized is required');
  else if (typeof normalized !== 'boolean') bad('normalized', `normalized must be a boolean, got ${describe(normalized)}`);

  const fingerprint = config.fingerprint;
  if (fingerprint === undefined) {
    if (fingerprintRequired) bad('fingerprint', 'fingerprint is required');
  } else if (typeof fingerprint !== 'string' || !VECTOR_FINGERPRINT_PATTERN.test(fingerprint)) {
    bad('fingerprint', 'fingerprint must be "sha256:" followed by 64 lower-case hex digits');
  }
  return out;
}

/**
 * Everything a validator must say about a parsed `vectors/config.json` value, as issues located
 * at `path`: not an object; non-JSON values; `model`, `revision`, `dimensions`, `normalized`,
 * `fingerprint` shape (`OCTX_VECTOR_CONFIG_INVALID` with `field`; a width above 65 536 is
 * `OCTX_VECTOR_DIMENSION_INVALID`); a fingerprint that differs from the computed one
 * (`OCTX_VECTOR_FINGERPRINT_MISMATCH`); one `OCTX_VECTOR_CONFIG_FORBIDDEN` per forbidden entry.
 * An empty array means the config is valid.
 */
export function vectorConfigIssues(value: unknown, path: string = VECTOR_CONFIG_PATH): OctxIssue[] {
  if (!isPlainObject(value)) {
    return [issue({ code: 'OCTX_VECTOR_CONFIG_INVALID', path, message: `vector config must be a JSON object, got ${describe(value)}` })];
  }
  return collectProblems(value, true).map((p) => issue({ ...p, path }));
}

function collectProblems(config: Record<string, unknown>, fingerprintRequired: boolean): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const jsonProblem = findJsonProblem(config);
  if (jsonProblem) {
    problems.push({
      code: 'OCTX_VECTOR_CONFIG_INVALID',
      message: `not strict JSON: ${jsonProblem.reason}`,
      ...(jsonProblem.at !== '' ? { field: jsonProblem.at } : {}),
    });
  }
  const fields = fieldProblems(config, fingerprintRequired);
  problems.push(...fields);
  for (const f of forbiddenVectorConfigEntries(config)) {
    problems.push({ code: 'OCTX_VECTOR_CONFIG_FORBIDDEN', message: f.reason, ...(f.at !== '' ? { field: f.at } : {}) });
  }
  // The fingerprint can only be compared when it is well-formed and the rest can be hashed.
  const declared = config.fingerprint;
  if (!jsonProblem && typeof declared === 'string' && VECTOR_FINGERPRINT_PATTERN.test(declared)) {
    const computed = computeVectorFingerprint(config);
    if (declared !== computed) {
      problems.push({
        code: 'OCTX_VECTOR_FINGERPRINT_MISMATCH',
        field: 'fingerprint',
        message: `fingerprint ${declared} differs from the computed ${computed}`,
      });
    }
  }
  return problems;
}

// ── producer side ────────────────────────────────────────────────────────────────────────

/** Top-level keys that come first in `vectors/config.json`, in this order; `fingerprint` is last. */
const LEADING_KEYS = ['model', 'revision', 'dimensions', 'normalized'] as const;

/**
 * Validates a producer's vector config, computes its fingerprint and renders the file.
 *
 * Same rules as {@link vectorConfigIssues}, except that `fingerprint` may be omitted (a given
 * one must equal the computed one, else `OCTX_VECTOR_FINGERPRINT_MISMATCH`).
 *
 * `bytes` is the exact `vectors/config.json`: UTF-8 without BOM, `JSON.stringify`-style
 * pretty printing with a 2-space indent and a final `\n`; top-level keys `model`, `revision`
 * (when present), `dimensions`, `normalized`, then every other key sorted by UTF-16 code unit,
 * then `fingerprint`; keys of nested objects sorted by code unit too; arrays keep their order.
 * The bytes therefore do not depend on the order in which the caller built the object.
 * (The fingerprint never depends on order: it is computed over JCS.)
 *
 * @throws OctxError with the field named: `OctxError.of` for one problem, an aggregate (code of
 *   the problems when they share one, else `OCTX_VECTOR_CONFIG_INVALID`) for several.
 */
export function prepareVectorConfig(input: VectorConfigInput): PreparedVectorConfig {
  if (!isPlainObject(input)) {
    throw OctxError.of({ code: 'OCTX_VECTOR_CONFIG_INVALID', path: VECTOR_CONFIG_PATH, message: `vector config must be a plain object, got ${describe(input)}` });
  }
  const clean = withoutUndefined(input);
  const problems = collectProblems(clean, false);
  let fingerprint: string | undefined;
  if (problems.length === 0) {
    fingerprint = computeVectorFingerprint(clean);
    if (typeof clean.fingerprint === 'string' && clean.fingerprint !== fingerprint) {
      problems.push({
        code: 'OCTX_VECTOR_FINGERPRINT_MISMATCH',
        field: 'fingerprint',
        message: `given fingerprint ${clean.fingerprint} differs from the computed ${fingerprint}`,
      });
    }
  }
  if (problems.length > 0 || fingerprint === undefined) throw problemsError(problems);

  const restKeys = Object.keys(clean)
    .filter((k) => k !== 'fingerprint' && !(LEADING_KEYS as readonly string[]).includes(k))
    .sort();
  const order = [...LEADING_KEYS.filter((k) => clean[k] !== undefined), ...restKeys, 'fingerprint'];
  const withFingerprint: Record<string, unknown> = { ...clean, fingerprint };
  const config: JsonObject = {};
  for (const k of order) config[k] = sortedCopy(withFingerprint[k] as JsonValue);

  const text = `${prettyJson(config, '', order)}\n`;
  deepFreeze(config);
  return Object.freeze({
    config,
    fingerprint,
    dimensions: clean.dimensions as number,
    normalized: clean.normalized as boolean,
    bytes: Buffer.from(text, 'utf8'),
  });
}

function problemsError(problems: readonly FieldProblem[]): OctxError {
  const issues = problems.map((p) => issue({ ...p, path: VECTOR_CONFIG_PATH }));
  const first = issues[0];
  if (issues.length === 1 && first) return OctxError.of(first);
  const codes = new Set(issues.map((i) => i.code));
  const [only] = codes;
  const code: OctxCode = codes.size === 1 && only !== undefined ? only : 'OCTX_VECTOR_CONFIG_INVALID';
  return OctxError.aggregate(code, `vector config has ${issues.length} problems`, issues);
}

// ── helpers ──────────────────────────────────────────────────────────────────────────────

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function withoutUndefined(value: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return String(value);
  return typeof value;
}

/** Deep copy with object keys inserted in code-unit order (arrays keep their order). */
function sortedCopy(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (typeof value === 'object' && value !== null) {
    const out: JsonObject = {};
    for (const k of Object.keys(value).sort()) out[k] = sortedCopy(value[k] as JsonValue);
    return out;
  }
  return value;
}

/**
 * `JSON.stringify(value, null, 2)` with an explicit key order: `keys` for this object, code-unit
 * order below it. Written by hand because JS objects enumerate integer-like keys ("1", "10")
 * first whatever the insertion order, which would break "sorted by code unit" in the bytes.
 */
function prettyJson(value: JsonValue, indent: string, keys?: readonly string[]): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => inner + prettyJson(v, inner)).join(',\n')}\n${indent}]`;
  }
  const order = keys ?? Object.keys(value).sort();
  if (order.length === 0) return '{}';
  const parts = order.map((k) => `${inner}${JSON.stringify(k)}: ${prettyJson(value[k] as JsonValue, inner)}`);
  return `{\n${parts.join(',\n')}\n${indent}}`;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}
