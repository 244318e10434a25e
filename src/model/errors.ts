import type { OctxCode } from './codes.js';

/** Severity of an issue: errors make something invalid or stop an export; warnings do not. */
export type IssueSeverity = 'error' | 'warning';

/**
 * One problem, as data (zod-style): a stable code, where it is, and a sentence for a person.
 * `path` is a package-relative file path (`knowledge/guide.md`, `data/chunks.jsonl`) when the
 * problem belongs to a file; `recordId` and `field` locate it inside a record.
 */
export interface OctxIssue {
  readonly code: OctxCode;
  readonly severity: IssueSeverity;
  readonly message: string;
  readonly path?: string;
  readonly line?: number;
  readonly recordId?: string;
  readonly field?: string;
}

/** Input for {@link issue}: severity defaults to `error`. */
export type IssueInput = Omit<OctxIssue, 'severity'> & { severity?: IssueSeverity };

/** Builds an {@link OctxIssue}, dropping undefined locators so issues compare and print cleanly. */
export function issue(input: IssueInput): OctxIssue {
  const out: Record<string, unknown> = { code: input.code, severity: input.severity ?? 'error', message: input.message };
  if (input.path !== undefined) out.path = input.path;
  if (input.line !== undefined) out.line = input.line;
  if (input.recordId !== undefined) out.recordId = input.recordId;
  if (input.field !== undefined) out.field = input.field;
  return out as unknown as OctxIssue;
}

/**
 * The one error class of the SDK. `code` is the stable code of the failure as a whole; `issues`
 * lists every individual problem (one for fail-fast errors, many for aggregated ones). Some
 * failures carry a `report` (for example the export report of an incomplete structure).
 */
export class OctxError extends Error {
  /** Stable machine-readable code. */
  readonly code: OctxCode;
  /** Every problem behind this error; never empty. */
  readonly issues: readonly OctxIssue[];
  /** Extra data for the caller, such as an export or validation report. */
  readonly report?: unknown;

  constructor(code: OctxCode, message: string, options: { issues?: readonly OctxIssue[]; report?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OctxError';
    this.code = code;
    this.issues = options.issues && options.issues.length > 0 ? options.issues : [issue({ code, message })];
    if (options.report !== undefined) this.report = options.report;
  }

  /** A fail-fast error about one input, with its locators. */
  static of(input: IssueInput): OctxError {
    const one = issue(input);
    return new OctxError(one.code, formatIssue(one), { issues: [one] });
  }

  /** An aggregated error: `code` for the whole, every issue listed in the message (first 20). */
  static aggregate(code: OctxCode, headline: string, issues: readonly OctxIssue[], report?: unknown): OctxError {
    const shown = issues.slice(0, 20).map((i) => `  - ${formatIssue(i)}`);
    if (issues.length > 20) shown.push(`  … and ${issues.length - 20} more`);
    return new OctxError(code, `${headline}\n${shown.join('\n')}`, { issues, report });
  }
}

/** One line for a person: `CODE at path line N record R field F: message`. */
export function formatIssue(i: OctxIssue): string {
  const where: string[] = [];
  if (i.path !== undefined) where.push(i.path + (i.line !== undefined ? `:${i.line}` : ''));
  if (i.recordId !== undefined) where.push(`record ${i.recordId}`);
  if (i.field !== undefined) where.push(`field ${i.field}`);
  return `${i.code}${where.length > 0 ? ` (${where.join(', ')})` : ''}: ${i.message}`;
}

/** True when `e` is an {@link OctxError}, optionally with the given code. */
export function isOctxError(e: unknown, code?: OctxCode): e is OctxError {
  return e instanceof OctxError && (code === undefined || e.code === code);
}
