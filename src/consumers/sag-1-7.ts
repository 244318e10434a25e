/**
 * SAG v1.7.0 as it imports a package (facts: docs/consumers.md, from reading and running its
 * importer). Every rule here is data that passes the seed and every validator but fails SAG's
 * import job after its preflight accepted the package, or that SAG silently changes.
 */
import { casefold, nfcCasefold } from '../model/casefold.js';
import type { ConsumerProfile, ConsumerRule } from './profile.js';
import { sagDatetime } from './python/fromisoformat.js';
import { sagWeight } from './python/decimal-quantize.js';
import { pythonStrip } from './python/strip.js';

/**
 * SAG's import-plan entity identity (`sag/octx_plan_store.py`): `type` as written, `name` as
 * `unicodedata.normalize("NFC", name).casefold()`.
 */
export function sagEntityIdentity(type: string, name: string): string {
  return JSON.stringify([type, nfcCasefold(name)]);
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

const ID_MAX = 100;
const column = (n: number): string => `SAG stores it in a column of ${n} characters and the import job fails on a longer value`;

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
    stored: sagStoredType,
    storedAs: 'strip + casefold',
    severity: 'error',
    why: `SAG stores type.strip().casefold(); ${column(50)}`,
  },
  { rule: 'max-length', subject: 'event', field: 'category', max: 50, severity: 'error', why: column(50) },
  { rule: 'max-length', subject: 'document', field: 'title', max: 500, stored: pythonStrip, storedAs: 'strip', severity: 'error', why: `SAG strips the title; ${column(500)}` },
  { rule: 'max-length', subject: 'chunk', field: 'heading', max: 500, severity: 'error', why: column(500) },
  { rule: 'max-length', subject: 'entity', field: 'name', max: 500, severity: 'error', why: column(500) },
  { rule: 'max-length', subject: 'document', field: 'id', max: ID_MAX, severity: 'error', why: column(ID_MAX) },
  { rule: 'max-length', subject: 'chunk', field: 'id', max: ID_MAX, severity: 'error', why: column(ID_MAX) },
  { rule: 'max-length', subject: 'event', field: 'id', max: ID_MAX, severity: 'error', why: column(ID_MAX) },
  { rule: 'max-length', subject: 'entity', field: 'id', max: ID_MAX, severity: 'error', why: column(ID_MAX) },
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
  vectors: {
    policy: 'omit',
    reason:
      'vectors are left out for sag-1.7: SAG v1.7 never reads vectors/config.json or vectors/<target>.arrow, re-embeds every record with its own model, and the validator it pins may refuse a package carrying them',
  },
};
