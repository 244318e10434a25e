import { describe, expect, it } from 'vitest';
import { DEFAULT_ARCHIVE_LIMITS, openPackage, resolveLimits } from '../../src/read/index.js';

describe('ArchiveLimits', () => {
  it('has the reference defaults', () => {
    expect(DEFAULT_ARCHIVE_LIMITS).toEqual({
      maxEntries: 10_000,
      maxFileSize: 512 * 1024 * 1024,
      maxTotalUncompressed: 4 * 1024 * 1024 * 1024,
      maxCompressionRatio: 200,
      maxJsonlLineSize: 16 * 1024 * 1024,
      maxJsonlRecords: 1_000_000,
      maxJsonDepth: 100,
      maxYamlDepth: 100,
      maxFrontmatterBytes: 1024 * 1024,
      maxFrontmatterNodes: 50_000,
      maxRenderedInputBytes: 4 * 1024 * 1024,
      maxArrowDimension: 65_536,
      maxArrowBatches: 100_000,
      maxArrowRows: 10_000_000,
      maxArrowValues: 100_000_000,
      maxIssues: 1_000,
    });
    expect(Object.isFrozen(DEFAULT_ARCHIVE_LIMITS)).toBe(true);
  });

  it('fills partial limits and accepts a fractional ratio', () => {
    const l = resolveLimits({ maxEntries: 5, maxCompressionRatio: 12.5, maxIssues: undefined });
    expect(l).toMatchObject({ maxEntries: 5, maxCompressionRatio: 12.5, maxIssues: 1000, maxFileSize: DEFAULT_ARCHIVE_LIMITS.maxFileSize });
    expect(resolveLimits()).toEqual(DEFAULT_ARCHIVE_LIMITS);
  });

  it('refuses non-positive, fractional, non-finite and unknown limits with OCTX_OPTIONS_INVALID', () => {
    for (const bad of [
      { maxEntries: 0 },
      { maxEntries: -1 },
      { maxEntries: 1.5 },
      { maxFileSize: Infinity },
      { maxCompressionRatio: 0 },
      { maxCompressionRatio: NaN },
      { maxIssues: '10' },
      { maxEntry: 5 },
    ]) {
      expect(() => resolveLimits(bad as never), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'OCTX_OPTIONS_INVALID' }));
    }
  });

  it('openPackage refuses bad limits before touching the file', async () => {
    await expect(openPackage('/does/not/matter', { limits: { maxEntries: 0 } })).rejects.toMatchObject({ code: 'OCTX_OPTIONS_INVALID' });
  });
});
