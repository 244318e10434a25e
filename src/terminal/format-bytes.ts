/**
 * The one way sizes are shown to people (the progress line, the CLI's `wrote … (size)` and every
 * other size it prints): binary units, so a size reads the same as `ls -lh` and the limits
 * (`1 MiB` of frontmatter) are written.
 */

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/** Bytes as `512 B`, `3.4 KiB`, `12.0 MiB`, `1.20 GiB` (binary units; two decimals from GiB up). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) return `${n} B`;
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // One decimal that would round up to 1024.0 shows as the next unit instead (1023.96 KiB → 1.0 MiB).
  if (unit < UNITS.length - 1 && Number(value.toFixed(unit >= 2 ? 2 : 1)) >= 1024) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit >= 2 ? 2 : 1)} ${UNITS[unit]}`;
}
