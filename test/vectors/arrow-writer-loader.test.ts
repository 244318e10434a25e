/**
 * The Arrow writer (and apache-arrow) is loaded once per process, and a builder starts loading it
 * when its first vector arrives, so the export does not pay the load (issue 23).
 */
import { describe, expect, it } from 'vitest';
import { loadArrowWriter, preloadArrowWriter } from '../../src/vectors/arrow-writer-loader.js';

describe('loadArrowWriter', () => {
  it('loads the writer once: every call gets the same module', async () => {
    preloadArrowWriter();
    const first = loadArrowWriter();
    expect(loadArrowWriter()).toBe(first);
    const module = await first;
    expect(typeof module.writeArrowTarget).toBe('function');
    expect(await loadArrowWriter()).toBe(module);
  });
});
