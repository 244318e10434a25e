/** The one size formatter of the CLI and the progress line: binary units, B to GiB and up. */
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/terminal/format-bytes.js';

describe('formatBytes', () => {
  it('shows bytes, KiB, MiB (one decimal) and GiB (two decimals) in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(28_365)).toBe('27.7 KiB');
    expect(formatBytes(5 * 1024 ** 2 + 512 * 1024)).toBe('5.5 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.00 GiB');
    expect(formatBytes(2 * 1024 ** 4)).toBe('2.00 TiB');
  });

  it('never shows 1024.0 of a unit: it rounds up into the next one', () => {
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MiB');
    expect(formatBytes(1024 ** 3 - 1)).toBe('1.00 GiB');
  });
});
