import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { OCTX_CODES } from '../../src/model/codes.js';

const SRC = new URL('../../src/read/', import.meta.url);
const TESTS = new URL('./', import.meta.url);

async function codesIn(dir: URL, filter: (name: string) => boolean): Promise<Set<string>> {
  const found = new Set<string>();
  for (const name of await readdir(dir)) {
    if (!filter(name)) continue;
    const text = await readFile(new URL(name, dir), 'utf8');
    for (const m of text.matchAll(/'(OCTX_[A-Z0-9_]+)'/g)) found.add(m[1]!);
  }
  return found;
}

describe('issue codes of the read side', () => {
  it('every code src/read can emit is a known code and is produced by at least one test', async () => {
    const emitted = await codesIn(SRC, (n) => n.endsWith('.ts'));
    const tested = await codesIn(TESTS, (n) => n.endsWith('.test.ts') && n !== 'codes.test.ts');
    for (const code of emitted) expect(Object.hasOwn(OCTX_CODES, code), code).toBe(true);
    const untested = [...emitted].filter((c) => !tested.has(c)).sort();
    expect(untested).toEqual([]);
  });
});
