/**
 * What every adapter report carries besides its own counts: its warnings, as text and as
 * `OCTX_ADAPTER_WARNING` issues reported to the builder (so that the export's `report.warnings`
 * lists them and `strict` refuses them, nothing written, like every other warning), and what the
 * export's coverage gate should be expected to say.
 */
import { issue, type OctxIssue } from '../../model/errors.js';
import type { PackageBuilder } from '../../builder/package-builder.js';

/** The warnings part of an adapter report. */
export interface AdapterWarnings {
  readonly warnings: readonly string[];
  /** The same warnings as data: `OCTX_ADAPTER_WARNING` issues, also reported to the builder (so the export's `report.warnings` lists them and `strict` refuses them). */
  readonly issues: readonly OctxIssue[];
}

/**
 * Whether the records an adapter added form a complete structure (seed 001 §6). The export
 * decides; this says what to expect and why.
 */
export interface ExpectedStructure {
  readonly expected: 'complete' | 'documents-only';
  readonly reason: string;
}

/**
 * The warnings of one adapter run as issues (code `OCTX_ADAPTER_WARNING`, severity `warning`,
 * message `<adapter>: <warning>`), each also reported to `builder`.
 * @param adapter the SDK function's name (`fromRag`); the CLI shows it as its command (`from-rag`)
 */
export function reportAdapterWarnings(builder: PackageBuilder, adapter: string, warnings: readonly string[]): OctxIssue[] {
  const issues = warnings.map((message) => issue({ code: 'OCTX_ADAPTER_WARNING', severity: 'warning', message: `${adapter}: ${message}` }));
  for (const i of issues) builder.reportWarning(i);
  return issues;
}

/**
 * Ends an adapter run: reports its warnings to the builder and returns the report's
 * {@link AdapterWarnings} part, to spread into the report (call it once, last).
 */
export function adapterWarnings(builder: PackageBuilder, adapter: string, warnings: readonly string[]): AdapterWarnings {
  return { warnings, issues: reportAdapterWarnings(builder, adapter, warnings) };
}
