/**
 * The consumer profiles (docs/consumers.md). To add a consumer: write its profile next to
 * `sag-1-7-profile.ts` and add it to {@link CONSUMER_PROFILES}; the builder, the planner, the validator
 * and the CLI take it by name.
 */
import { OctxError } from '../model/errors.js';
import type { ConsumerProfile } from './profile.js';
import { SAG_1_7_PROFILE } from './sag-1-7-profile.js';
import { SEED_PROFILE } from './seed-profile.js';

export { ConsumerChecker, type RecordLocation } from './checker.js';
export type { ConsumerDocument, ConsumerProfile, ConsumerRule, ConsumerSubject, VectorPolicy } from './profile.js';
export { sagDatabaseIdentity, sagEntityIdentity, sagStoredType, SAG_1_7_PROFILE } from './sag-1-7-profile.js';
export { SEED_PROFILE } from './seed-profile.js';

/** Every known consumer, by name. */
export const CONSUMER_PROFILES = {
  seed: SEED_PROFILE,
  'sag-1.7': SAG_1_7_PROFILE,
} as const satisfies Readonly<Record<string, ConsumerProfile>>;

/** The name of a known consumer profile. */
export type ConsumerName = keyof typeof CONSUMER_PROFILES;

/** The names, for option schemas and help texts. */
export const CONSUMER_NAMES = Object.keys(CONSUMER_PROFILES) as ConsumerName[];

/**
 * The profile of a consumer name: exactly one of the primitive strings {@link CONSUMER_NAMES}.
 * @throws OctxError `OCTX_OPTIONS_INVALID` for an unknown name or anything but a primitive string
 */
export function consumerProfile(name: string, field = 'consumer'): ConsumerProfile {
  // Object.hasOwn converts its key with String(): ['sag-1.7'], new String('sag-1.7') and
  // { toString } would all be found, so anything but a primitive string is refused first.
  if (typeof name !== 'string') {
    const got = Array.isArray(name)
      ? 'an array'
      : name === null
        ? 'null'
        : `a value of type ${typeof name}${typeof name === 'object' ? ` (${Object.prototype.toString.call(name)})` : ''}`;
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field, message: `${field} must be one of the strings ${CONSUMER_NAMES.join(', ')} (got ${got})` });
  }
  if (!Object.hasOwn(CONSUMER_PROFILES, name)) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field, message: `${field} must be one of ${CONSUMER_NAMES.join(', ')} (got ${JSON.stringify(name)})` });
  }
  return CONSUMER_PROFILES[name as ConsumerName];
}
