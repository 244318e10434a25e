/**
 * The vectors of a package for the report: the declared configuration, and per target the row
 * count and a histogram of the vectors' norms (a normalized set sits at 1; a spread or a zero
 * bin says something went wrong upstream). Rows stream batch by batch through the reader; the
 * norms kept for the histogram are a seeded reservoir sample past {@link NORM_SAMPLE} rows, so
 * memory stays fixed and the picture stays the same for the same package.
 */
import { OctxError } from '../model/errors.js';
import { VECTOR_TARGET_PATHS } from '../model/paths.js';
import type { OctxPackage } from '../read/open-package.js';
import { VECTOR_TARGETS } from '../vectors/targets.js';
import { valueHistogram } from './histogram.js';
import { seededRandom } from './layout.js';
import type { ReportVectorConfig, ReportVectors } from './report-data.js';

/** Norms kept for a histogram. */
export const NORM_SAMPLE = 100_000;

/** The declared config's four facts (`null` where absent or of another type). */
export async function collectVectorConfig(pkg: OctxPackage): Promise<ReportVectorConfig | null> {
  let config: Record<string, unknown> | undefined;
  try {
    config = await pkg.vectorConfig();
  } catch (e) {
    if (!(e instanceof OctxError)) throw e;
    return { model: null, dimensions: null, normalized: null, fingerprint: null };
  }
  if (config === undefined) return null;
  const s = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return {
    model: s(config.model),
    dimensions: typeof config.dimensions === 'number' ? config.dimensions : null,
    normalized: typeof config.normalized === 'boolean' ? config.normalized : null,
    fingerprint: s(config.fingerprint),
  };
}

/** Every listed vector target of `pkg`, read once. */
export async function collectVectors(pkg: OctxPackage): Promise<ReportVectors[]> {
  const listed = new Set(pkg.listedFiles().map((f) => f.path));
  const out: ReportVectors[] = [];
  for (const target of VECTOR_TARGETS) {
    const path = VECTOR_TARGET_PATHS[target];
    if (!listed.has(path)) continue;
    const sample = new Float64Array(NORM_SAMPLE);
    const random = seededRandom(0x6e6f726d); // "norm"
    let rows = 0;
    let finite = 0;
    let min = Infinity;
    let max = -Infinity;
    let error: string | null = null;
    try {
      for await (const row of pkg.vectors(target)) {
        const v = row.vector;
        let sum = 0;
        for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
        const norm = Math.sqrt(sum);
        rows++;
        // A NaN or infinite value (the validator reports it) has no place in the histogram.
        if (!Number.isFinite(norm)) continue;
        if (norm < min) min = norm;
        if (norm > max) max = norm;
        // Reservoir sampling (Algorithm R): the k-th norm replaces a kept one with probability NORM_SAMPLE / k.
        if (finite < NORM_SAMPLE) sample[finite] = norm;
        else {
          const j = Math.floor(random() * (finite + 1));
          if (j < NORM_SAMPLE) sample[j] = norm;
        }
        finite++;
      }
    } catch (e) {
      if (!(e instanceof OctxError)) throw e;
      error = e.code;
    }
    const kept = Math.min(finite, NORM_SAMPLE);
    out.push({
      target,
      path,
      rows,
      normsSampled: kept,
      norms: valueHistogram(sample, kept, min, max),
      minNorm: finite > 0 ? min : null,
      maxNorm: finite > 0 ? max : null,
      error,
    });
  }
  return out;
}
