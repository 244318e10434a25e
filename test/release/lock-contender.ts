/**
 * A contender for the producer state lock, run as its own process by state-lock-race.test.ts.
 * For each round the parent sends `{ state }` or `{ state, output, text }`:
 * - without `output`: takes the lock, records the next release, releases the lock;
 * - with `output`: runs a whole export of one document (`text`) with that state file.
 * It answers `{ ok: true, version }` once everything is released, or `{ ok: false, code }`.
 */
import { PackageBuilder } from '../../src/builder/package-builder.js';
import { OctxError } from '../../src/model/errors.js';
import { nextVersion, ProducerState } from '../../src/release/producer-state.js';

const DIGEST = `sha256:${'0'.repeat(64)}`;

async function lockAndRecord(path: string): Promise<string> {
  const state = ProducerState.load(path);
  const release = await state.lock();
  try {
    const version = nextVersion(state);
    await state.recordRelease({
      assetId: '019c2222-2222-7222-8222-222222222222',
      assetName: 'race',
      version,
      release: { created_at: '2026-12-01T00:00:00Z', package_digest: DIGEST, content_digest: DIGEST },
      documents: {},
    });
    return version;
  } finally {
    await release();
  }
}

async function exportOnce(state: string, output: string, text: string): Promise<string> {
  const builder = new PackageBuilder({ asset: { name: 'race' }, state });
  const result = await builder.addDocument({ path: 'guide.md', markdown: `# Guide\n\n${text}\n` }).export({ output });
  return result.version;
}

process.on('message', (msg: { state: string; output?: string; text?: string }) => {
  void (async () => {
    try {
      const version = msg.output !== undefined ? await exportOnce(msg.state, msg.output, msg.text ?? '') : await lockAndRecord(msg.state);
      process.send!({ ok: true, version });
    } catch (e) {
      process.send!({ ok: false, code: e instanceof OctxError ? e.code : String(e) });
    }
  })();
});
process.send!({ ready: true });
