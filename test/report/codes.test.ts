/** Every code src/report can emit is a known code, and a test under test/report produces it. */
import { readdir, readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { OCTX_CODES } from '../../src/model/codes.js';

async function codesIn(dir: URL, filter: (name: string) => boolean): Promise<Set<string>> {
  const found = new Set<string>();
  for (const entry of await readdir(dir, { recursive: true })) {
    if (!filter(entry)) continue;
    for (const m of (await readFile(new URL(entry, dir), 'utf8')).matchAll(/'(OCTX_[A-Z0-9_]+)'/g)) found.add(m[1]!);
  }
  return found;
}

it('the codes of the report are known and each is produced by a test', async () => {
  const emitted = await codesIn(new URL('../../src/report/', import.meta.url), (n) => n.endsWith('.ts'));
  const tested = await codesIn(new URL('./', import.meta.url), (n) => n.endsWith('.test.ts') && n !== 'codes.test.ts');
  expect(emitted.size).toBeGreaterThan(0);
  for (const code of emitted) expect(Object.hasOwn(OCTX_CODES, code), code).toBe(true);
  expect([...emitted].filter((c) => !tested.has(c)).sort()).toEqual([]);
});
