/**
 * SAG v1.7.0 as it imports a package (facts: docs/consumers.md, from reading and running its
 * importer). Every rule here is data that passes the seed and every validator but fails SAG's
 * import job after its preflight accepted the package, or that SAG silently changes.
 */
import { casefold, codePointLength, nfcCasefold } from '../model/casefold.js';
import { PYTHON_LATER_UNICODE_VERSION } from '../model/python-unicode.js';
import type { ConsumerProfile, ConsumerRule } from './profile.js';
import { pythonStr, pythonTruthy, sagExtraProblem } from './python/builtins.js';
import { pythonIsoformat, sagDatetime } from './python/fromisoformat.js';
import { sagWeight } from './python/decimal-quantize.js';
import { pythonStrip } from './python/strip.js';

/**
 * SAG's import-plan entity identity (`sag/octx_plan_store.py`): `type` as written, `name` as
 * `unicodedata.normalize("NFC", name).casefold()`, under Python 3.11's Unicode (14.0) or, with
 * `unicode` 15.0.0, 3.12's: SAG's server image runs 3.12, its desktop build 3.11.
 */
export function sagEntityIdentity(type: string, name: string, unicode?: typeof PYTHON_LATER_UNICODE_VERSION): string {
  return JSON.stringify([type, nfcCasefold(name, unicode)]);
}

/**
 * SAG's database entity identity (the unique index the entity insert of `sag/octx_importer.py`
 * hits): `type.strip().casefold()` and `name.casefold()`, without NFC.
 */
export function sagDatabaseIdentity(type: string, name: string): string {
  return JSON.stringify([sagStoredType(type), casefold(name)]);
}

/** An entity `type` as SAG stores it: `type.strip().casefold()` (a fold can lengthen it: `ß` → `ss`). */
export function sagStoredType(type: string): string {
  return casefold(pythonStrip(type));
}

/** SAG bounds the type twice: as written (`_validate_sag_compatibility`) and as stored (strip + casefold: a fold can lengthen it). */
function longerOfWrittenAndStoredType(type: string): string {
  const stored = sagStoredType(type);
  return codePointLength(stored) >= codePointLength(type) ? stored : type;
}

const ID_MAX = 100;
const column = (n: number): string => `SAG stores it in a column of ${n} characters and the import job fails on a longer value`;
/** PostgreSQL's and MySQL's INTEGER (SAG's rank, level and order columns); SQLite takes 64 bits. */
const INT32_MAX = 2 ** 31 - 1;
const EXTRA_DATA_SUBJECTS = ['chunk', 'event', 'entity', 'event-entity'] as const;

/** The naive time SAG stores for a time with an offset (`.replace(tzinfo=None)`), or undefined when nothing is dropped. */
function droppedOffset(value: unknown): string | undefined {
  const dt = sagDatetime(value);
  // A UTC time (Z, +00:00) is stored as the same wall-clock time: nothing is lost.
  if (!dt || dt.offsetMicroseconds === undefined || dt.offsetMicroseconds === 0) return undefined;
  const { offsetMicroseconds: _, ...naive } = dt;
  return `${pythonIsoformat(naive)} (the offset is dropped, not converted)`;
}

const rules: ConsumerRule[] = [
  {
    rule: 'unique',
    subject: 'entity',
    field: 'name',
    key: (r) => (typeof r.type === 'string' && typeof r.name === 'string' ? sagEntityIdentity(r.type, r.name) : undefined),
    describe: 'import-plan identity (type as written, NFC + casefold of name)',
    severity: 'error',
    why: 'SAG\'s import plan keeps one entity per (type, NFC + casefold of name): "duplicate entity identity"',
  },
  {
    rule: 'unique',
    subject: 'entity',
    field: 'name',
    key: (r) => (typeof r.type === 'string' && typeof r.name === 'string' ? sagDatabaseIdentity(r.type, r.name) : undefined),
    describe: 'database identity (strip + casefold of type, casefold of name)',
    severity: 'error',
    why: "SAG's database has a unique index on (type.strip().casefold(), name.casefold()): the import job fails with an IntegrityError",
  },
  {
    rule: 'unique',
    subject: 'entity',
    field: 'name',
    key: (r) => (typeof r.type === 'string' && typeof r.name === 'string' ? sagEntityIdentity(r.type, r.name, PYTHON_LATER_UNICODE_VERSION) : undefined),
    describe: 'import-plan identity under Python 3.12 (Unicode 15.0: NFC reorders marks 3.11 does not know)',
    severity: 'error',
    why: 'SAG\'s server image runs Python 3.12, whose Unicode 15.0 normalizes these names alike: "duplicate entity identity"',
  },
  {
    rule: 'non-blank',
    subject: 'entity',
    field: 'type',
    strip: sagStoredType,
    severity: 'error',
    why: 'SAG\'s plan keeps type.strip().casefold() (Python\'s white space, e.g. "\\x1c", "\\x85"): "entity type must not be empty"',
  },
  {
    rule: 'max-length',
    subject: 'entity',
    field: 'name',
    max: 500,
    stored: casefold,
    storedAs: 'casefold: normalized_name',
    severity: 'warning',
    why: 'SAG stores name.casefold() in normalized_name, VARCHAR(500): PostgreSQL and MySQL deployments refuse a longer value (SQLite, the desktop build, does not)',
  },
  ...EXTRA_DATA_SUBJECTS.map((subject): ConsumerRule => ({
    rule: 'parses',
    subject,
    field: 'extra_data',
    parses: (v) => sagExtraProblem(v) === undefined,
    expected: 'an object (or nothing) whose octx member, if any, is an object: SAG merges its own octx keys into it',
    severity: 'error',
    why: 'SAG\'s insert builds dict(extra_data or {}) and dict(extra_data["octx"] or {}): anything else raises in the import job',
  })),
  ...(
    [
      ['chunk', 'ordinal', 'rank and order_index'],
      ['event', 'level', 'level'],
    ] as const
  ).map(([subject, field, columns]): ConsumerRule => ({
    rule: 'range',
    subject,
    field,
    min: Number.MIN_SAFE_INTEGER,
    max: INT32_MAX,
    severity: 'warning',
    why: `SAG stores int(${field}) in INTEGER columns (${columns}): PostgreSQL and MySQL deployments refuse a value above ${INT32_MAX} (SQLite, the desktop build, does not)`,
  })),
  ...(['start_time', 'end_time'] as const).map((field): ConsumerRule => ({
    rule: 'adjusts',
    subject: 'event',
    field,
    adjust: droppedOffset,
    severity: 'warning',
    why: 'SAG stores datetime.fromisoformat(v).replace(tzinfo=None): the wall-clock time as written, without its offset',
  })),
  {
    rule: 'range',
    subject: 'event-entity',
    field: 'weight',
    min: 0,
    max: 9.99,
    severity: 'error',
    why: 'SAG stores weight as Numeric(3,2): "event-entity weight exceeds SAG Numeric(3,2)" (a missing weight means 1)',
  },
  {
    rule: 'adjusts',
    subject: 'event-entity',
    field: 'weight',
    adjust: (v) => {
      const w = sagWeight(v);
      return w?.ok && w.changed && v !== undefined && v !== null ? w.stored : undefined;
    },
    severity: 'warning',
    why: 'SAG stores Decimal(str(weight)).quantize(Decimal("0.01")), rounding half to even',
  },
  {
    rule: 'max-length',
    subject: 'entity',
    field: 'type',
    max: 50,
    stored: longerOfWrittenAndStoredType,
    storedAs: 'the longer of as written and strip + casefold',
    severity: 'error',
    why: `SAG checks len(type) as written, then stores type.strip().casefold(); ${column(50)}`,
  },
  { rule: 'max-length', subject: 'event', field: 'category', max: 50, severity: 'error', why: column(50) },
  {
    rule: 'max-length',
    subject: 'document',
    field: 'title',
    max: 500,
    text: (v, r) => (typeof v === 'string' && pythonStrip(v) !== '' ? v : typeof r.titleFallback === 'string' ? r.titleFallback : undefined),
    stored: pythonStrip,
    storedAs: 'strip; a title that is not a non-blank string is replaced by the body\'s first "# " line, else the file stem',
    severity: 'error',
    why: `SAG takes the stripped frontmatter title when it is a non-blank str, else the first "# " line of the body, else the file stem; ${column(500)}`,
  },
  {
    rule: 'max-length',
    subject: 'chunk',
    field: 'heading',
    max: 500,
    text: (v) => (v === undefined ? undefined : pythonTruthy(v) ? pythonStr(v) : ''),
    severity: 'error',
    why: `SAG stores str(heading or ""); ${column(500)}`,
  },
  { rule: 'max-length', subject: 'entity', field: 'name', max: 500, severity: 'error', why: column(500) },
  { rule: 'max-length', subject: 'document', field: 'id', max: ID_MAX, severity: 'error', why: column(ID_MAX) },
  {
    rule: 'max-length',
    subject: 'chunk',
    field: 'id',
    max: ID_MAX,
    severity: 'error',
    why: `SAG's compatibility check refuses a chunk id over ${ID_MAX} characters: "chunk id exceeds SAG column bound"`,
  },
  // SAG bounds no event id: its limit table lists one for events but the check never applies it,
  // and the id is kept only in extra_data (JSON). Imported as written, so a warning: a later SAG
  // that applies its own table would refuse it. An entity id has no bound at all: no rule.
  {
    rule: 'max-length',
    subject: 'event',
    field: 'id',
    max: ID_MAX,
    severity: 'warning',
    why: `SAG v1.7 imports it (kept in extra_data only), but its own limit table declares ${ID_MAX} characters for event ids without checking them`,
  },
  {
    rule: 'non-blank',
    subject: 'event',
    field: 'title',
    strip: pythonStrip,
    severity: 'error',
    why: 'SAG requires title.strip() (Python\'s white space) to be non-empty: "event has empty title"',
  },
  {
    rule: 'max-length',
    subject: 'event',
    field: 'title',
    max: 255,
    severity: 'warning',
    why: 'SAG truncates an event title to 255 characters (the full title is kept aside)',
  },
  ...(['start_time', 'end_time'] as const).map((field): ConsumerRule => ({
    rule: 'parses',
    subject: 'event',
    field,
    parses: (v) => sagDatetime(v) !== undefined,
    expected: "a date-time Python 3.11's datetime.fromisoformat reads once SAG has replaced each Z by +00:00, e.g. 2026-07-12T10:00:00Z",
    severity: 'error',
    why: 'SAG parses a non-empty string with datetime.fromisoformat(v.replace("Z", "+00:00")): "invalid OCTX datetime"',
  })),
];

/** SAG v1.7.0 (import job of `apps/api/sag_api/sag/octx_importer.py`). */
export const SAG_1_7_PROFILE: ConsumerProfile = {
  name: 'sag-1.7',
  title: 'SAG v1.7 (its importer job and database columns)',
  rules,
  // SAG's only blank checks are its own rules above (Python's strip() of an event title and an
  // entity type); a name or text of white space is imported as written.
  acceptsWhiteSpaceText: true,
  vectors: {
    policy: 'omit',
    reason:
      'vectors are left out for sag-1.7: SAG v1.7 never reads vectors/config.json or vectors/<target>.arrow, re-embeds every record with its own model, and the validator it pins may refuse a package carrying them',
  },
};
