/**
 * SAG v1.7.0 as it imports a package (facts: docs/consumers.md, from reading and running its
 * importer). Every rule here is data that passes the seed and every validator but fails SAG's
 * import job after its preflight accepted the package, or that SAG silently changes.
 */
import { nfcCasefold } from '../model/casefold.js';
import type { ConsumerProfile, ConsumerRule } from './profile.js';
import { pythonParsesIsoDatetime } from './python-isoformat.js';

/** SAG's entity identity: `type` as given, `name` NFC-normalised and case-folded (Python `casefold`). */
export function sagEntityIdentity(type: string, name: string): string {
  return `${type}\u0000${nfcCasefold(name)}`;
}

const ID_MAX = 100;
const column = (n: number): string => `SAG stores it in a column of ${n} characters and the import job fails on a longer value`;

const rules: ConsumerRule[] = [
  {
    rule: 'unique',
    subject: 'entity',
    field: 'name',
    key: (r) => (typeof r.type === 'string' && typeof r.name === 'string' ? sagEntityIdentity(r.type, r.name) : undefined),
    describe: 'entity identity (type, NFC + casefold of name)',
    severity: 'error',
    why: 'SAG keeps one entity per (type, NFC + casefold of name) in a unique index: "duplicate entity identity"',
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
  { rule: 'step', subject: 'event-entity', field: 'weight', step: 0.01, severity: 'warning', why: 'SAG quantises weight to 0.01' },
  { rule: 'max-length', subject: 'entity', field: 'type', max: 50, severity: 'error', why: column(50) },
  { rule: 'max-length', subject: 'event', field: 'category', max: 50, severity: 'error', why: column(50) },
  { rule: 'max-length', subject: 'document', field: 'title', max: 500, severity: 'error', why: column(500) },
  { rule: 'max-length', subject: 'chunk', field: 'heading', max: 500, severity: 'error', why: column(500) },
  { rule: 'max-length', subject: 'entity', field: 'name', max: 500, severity: 'error', why: column(500) },
  { rule: 'max-length', subject: 'document', field: 'id', max: ID_MAX, severity: 'error', why: column(ID_MAX) },
  { rule: 'max-length', subject: 'chunk', field: 'id', max: ID_MAX, severity: 'error', why: column(ID_MAX) },
  { rule: 'max-length', subject: 'event', field: 'id', max: ID_MAX, severity: 'error', why: column(ID_MAX) },
  { rule: 'max-length', subject: 'entity', field: 'id', max: ID_MAX, severity: 'error', why: column(ID_MAX) },
  { rule: 'non-blank', subject: 'event', field: 'title', severity: 'error', why: 'SAG requires a non-blank event title and the import job fails on a blank one' },
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
    parses: pythonParsesIsoDatetime,
    expected: "an ISO 8601 date-time Python's datetime.fromisoformat reads, e.g. 2026-07-12T10:00:00+00:00",
    severity: 'error',
    why: 'SAG parses it with Python datetime.fromisoformat and the import job fails on a value it cannot parse',
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
