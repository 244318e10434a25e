import type { ConsumerProfile } from './profile.js';

/** The default: the format's own rules and nothing more (packages are byte-identical to an export without a profile). */
export const SEED_PROFILE: ConsumerProfile = {
  name: 'seed',
  title: 'any OCTX 0.1 consumer (the seed and reference rules only)',
  rules: [],
  vectors: { policy: 'keep', reason: 'the seed carries vectors for any consumer that reuses them' },
};
