import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyArchive } from '../../src/export/verify-archive.js';
import { openPackage } from '../../src/read/index.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { entriesOf, manifestFor, writeZip, type FileMap } from '../read/helpers.js';
import { octxRejection as rejection } from '../helpers/octx-rejection.js';
import { VERIFY_FILES as FILES, VERIFY_LISTED as LISTED } from '../helpers/verify-fixture.js';

afterEach(() => {
  vi.restoreAllMocks();
});

async function packageFile(files: FileMap = FILES, store = false): Promise<{ path: string; digest: string }> {
  const entries = entriesOf({ files });
  const path = await writeZip(entries, { store });
  return { path, digest: manifestFor({ files }).release.package_digest as string };
}

const fdDir = '/proc/self/fd';
async function fdsSettleTo(expected: number): Promise<number> {
  for (let i = 0; i < 100 && readdirSync(fdDir).length > expected; i++) await sleep(10);
  return readdirSync(fdDir).length;
}

describe("verifyArchive('integrity')", () => {
  it('accepts the written bytes, and reports a different package digest', async () => {
    const { path, digest } = await packageFile();
    await verifyArchive(path, digest, 'integrity');
    const e = await rejection(verifyArchive(path, `sha256:${'0'.repeat(64)}`, 'integrity'));
    expect(e.code).toBe('OCTX_INTEGRITY_ERROR');
    expect(e.issues.map((i) => i.code)).toEqual(['OCTX_PACKAGE_DIGEST_MISMATCH']);
  });

  for (const store of [false, true]) {
    it(`reports every damaged entry once, with its path, in manifest order (${store ? 'stored' : 'deflated'})`, async () => {
      // One listed file is not in the container at all.
      const entries = entriesOf({ files: FILES });
      delete entries['extensions/x/f08.bin'];
      const path = await writeZip(entries, { store });
      const digest = manifestFor({ files: FILES }).release.package_digest as string;
      const bytes = readFileSync(path);
      const damaged = ['extensions/x/f01.bin', 'extensions/x/f03.bin', 'extensions/x/f07.bin', 'knowledge/guide.md'];
      for (const name of damaged) {
        const e = inspectZip(bytes).find((x) => x.name === name)!;
        const at = e.localHeaderOffset + 30 + e.nameBytes.length + Math.floor(e.compressedSize / 2);
        bytes[at] = bytes[at]! ^ 0xff;
      }
      writeFileSync(path, bytes);
      const e = await rejection(verifyArchive(path, digest, 'integrity'));
      expect(e.code).toBe('OCTX_INTEGRITY_ERROR');
      const expected = LISTED.filter((p) => damaged.includes(p) || p === 'extensions/x/f08.bin');
      expect(e.issues.map((i) => i.path)).toEqual(expected);
      expect(e.issues.find((i) => i.path === 'extensions/x/f08.bin')!.code).toBe('OCTX_FILE_MISSING');
      for (const i of e.issues) if (i.path !== 'extensions/x/f08.bin') expect(['OCTX_ARCHIVE_CORRUPT', 'OCTX_FILE_DIGEST_MISMATCH']).toContain(i.code);
    });
  }

  it('rejects with OCTX_ABORTED when the signal is already aborted', async () => {
    const { path, digest } = await packageFile();
    const c = new AbortController();
    c.abort();
    expect((await rejection(verifyArchive(path, digest, 'integrity', undefined, c.signal))).code).toBe('OCTX_ABORTED');
  });

  it('rejects with OCTX_ABORTED when aborted while it reads', async () => {
    const { path, digest } = await packageFile();
    const c = new AbortController();
    const p = verifyArchive(path, digest, 'integrity', undefined, c.signal);
    setImmediate(() => c.abort());
    expect((await rejection(p)).code).toBe('OCTX_ABORTED');
  });

  it.skipIf(!existsSync(fdDir))('on abort opens no further entry, destroys the open ones, and leaves nothing open', async () => {
    const { path, digest } = await packageFile();
    const probe = await openPackage(path);
    const openFile = vi.spyOn(Object.getPrototypeOf(probe) as { openFile: (p: string) => unknown }, 'openFile');
    await probe.close();
    const before = readdirSync(fdDir).length;
    // A signal that turns aborted at its fourth look, i.e. while the first entries are in flight.
    const listeners: (() => void)[] = [];
    let looks = 0;
    let aborted = false;
    const signal = {
      get aborted(): boolean {
        looks += 1;
        if (looks === 4 && !aborted) {
          aborted = true;
          for (const l of listeners) l();
        }
        return aborted;
      },
      addEventListener: (_: string, l: () => void) => listeners.push(l),
      removeEventListener: (_: string, l: () => void) => listeners.splice(listeners.indexOf(l) >>> 0, 1),
    } as unknown as AbortSignal;
    const e = await rejection(verifyArchive(path, digest, 'integrity', undefined, signal));
    expect(e.code).toBe('OCTX_ABORTED');
    expect(openFile.mock.calls.length).toBeGreaterThan(0);
    expect(openFile.mock.calls.length).toBeLessThanOrEqual(4);
    // The two largest entries were opened first.
    expect(openFile.mock.calls.slice(0, 2).map((c) => c[0])).toEqual(['extensions/x/f01.bin', 'extensions/x/f05.bin']);
    expect(listeners).toEqual([]);
    expect(await fdsSettleTo(before)).toBe(before);
  });
});
