/**
 * The adapters' warnings as data: each warning string of an adapter report becomes an
 * `OCTX_ADAPTER_WARNING` issue, reported to the builder so that the export's `report.warnings`
 * lists it and `strict` refuses it (nothing written), like every other warning.
 */
import { issue, type OctxIssue } from '../model/errors.js';
import type { PackageBuilder } from '../builder/package-builder.js';

/**
 * The warnings of one adapter run as issues (code `OCTX_ADAPTER_WARNING`, severity `warning`),
 * each also reported to `builder`.
 */
export function reportAdapterWarnings(builder: PackageBuilder, adapter: string, warnings: readonly string[]): OctxIssue[] {
  const issues = warnings.map((message) => issue({ code: 'OCTX_ADAPTER_WARNING', severity: 'warning', message: `${adapter}: ${message}` }));
  for (const i of issues) builder.reportWarning(i);
  return issues;
}
