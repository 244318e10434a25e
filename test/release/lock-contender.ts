/**
 * A contender for the producer state lock, run as its own process by state-lock-race.test.ts:
 * for each round the parent sends `{ state }`; this process takes the lock, records the next
 * release and releases the lock, then answers `{ ok: true, version }` or `{ ok: false, code }`.
 */
import { OctxError } from '../../src/model/errors.js';
import { nextVersion, ProducerState } from '../../src/release/producer-state.js';

const DIGEST = `sha256:${'0'.repeat(64)}`;

process.on('message', (msg: { state: string }) => {
  void (async () => {
    try {
      const state = ProducerState.load(msg.state);
      const release = await state.lock();
      let version: string;
      try {
        version = nextVersion(state);
        await state.recordRelease({
          assetId: '019c2222-2222-7222-8222-222222222222',
          assetName: 'race',
          version,
          release: { created_at: '2026-12-01T00:00:00Z', package_digest: DIGEST, content_digest: DIGEST },
          documents: {},
        });
      } finally {
        await release();
      }
      process.send!({ ok: true, version });
    } catch (e) {
      process.send!({ ok: false, code: e instanceof OctxError ? e.code : String(e) });
    }
  })();
});
process.send!({ ready: true });
