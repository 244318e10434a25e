/**
 * The export records the release in the producer state before it publishes the package (under
 * the state's lock); when publishing then fails, the state is put back as it was: the same bytes
 * when it had a file, no file when it had none, and the lock released.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PackageBuilder, isOctxError } from '../../src/index.js';
import { AtomicOutput } from '../../src/package/atomic-output.js';
import { ProducerState } from '../../src/release/producer-state.js';
import { tempDir } from '../helpers/temp.js';

afterEach(() => vi.restoreAllMocks());

function handbook(state: string, text: string, version?: string): PackageBuilder {
  return new PackageBuilder({ asset: { name: 'Handbook' }, state, ...(version ? { release: { version, createdAt: '2026-07-12T10:00:00Z' } } : {}) }).addDocument({
    path: 'guide.md',
    markdown: `# Guide\n\n${text}\n`,
  });
}

/** Publishing fails once the package is verified; records whether the state held the release then. */
function failPublish(state: string, version: string): { recorded: () => boolean } {
  let recorded = false;
  vi.spyOn(AtomicOutput.prototype, 'commit').mockImplementation(async function (this: AtomicOutput) {
    recorded = ProducerState.load(state).releases[version] !== undefined;
    await this.discard();
    throw Object.assign(new Error('input/output error'), { code: 'EIO' });
  });
  return { recorded: () => recorded };
}

async function refusal(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the export to fail');
}

describe('a publish that fails after the release was recorded', () => {
  it('puts the state file back byte for byte, releases the lock, and publishes nothing', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    await handbook(state, 'First.').export({ output: join(dir, 'v1.octx') });
    const before = readFileSync(state);
    const listing = readdirSync(dir).sort();
    const publish = failPublish(state, '1.0.1');
    const e = await refusal(handbook(state, 'Second.').export({ output: join(dir, 'v2.octx') }));
    expect(String((e as Error).message)).toContain('input/output error');
    expect(publish.recorded()).toBe(true);
    expect(readFileSync(state).equals(before)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(listing);
    expect(existsSync(join(dir, 'v2.octx'))).toBe(false);
    vi.restoreAllMocks();
    // The lock is free and the release was not taken: the next export gets the same version.
    const next = await handbook(state, 'Second.').export({ output: join(dir, 'v2.octx') });
    expect(next.version).toBe('1.0.1');
    expect(Object.keys(ProducerState.load(state).releases)).toEqual(['1.0.0', '1.0.1']);
  });

  it('removes a state file the failed export created', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const publish = failPublish(state, '1.0.0');
    const e = await refusal(handbook(state, 'First.', '1.0.0').export({ output: join(dir, 'v1.octx') }));
    expect(isOctxError(e) ? e.code : (e as Error).message).toMatch(/input\/output error|OCTX_IO_ERROR/);
    expect(publish.recorded()).toBe(true);
    expect(existsSync(state)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
