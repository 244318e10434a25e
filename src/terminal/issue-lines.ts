/**
 * An issue as terminal lines, in the SDK's own wording:
 *
 * ```
 * error[OCTX_RECORD_INVALID]: ordinal must be a non-negative integer
 *   --> data/chunks.jsonl:3
 *   record 019c2222-2222-7222-8222-222222222222
 *   field ordinal
 * ```
 *
 * The first line is `label[CODE]: message` (greppable by code), then one line per known place
 * (file and line, record id, field). {@link terminalProgress} prints warnings with it; the CLI
 * lays its errors out the same way, with message and field put in CLI terms first.
 */
import type { OctxIssue } from '../model/errors.js';

/** How {@link issueLines} lays an issue out. */
export interface IssueLinesOptions {
  /** `error` or `warning` (default: the issue's severity). */
  readonly label?: string;
  /** Prefix of every line (the validate report indents its issues). */
  readonly indent?: string;
  /** Rewrites the message's first line (the CLI puts it in CLI terms); default: as is. */
  readonly message?: (text: string) => string;
  /** Rewrites the field name (the CLI names the option that sets it); default: as is. */
  readonly field?: (name: string) => string;
}

/** The place lines of an issue: `--> path:line`, `record id`, `field name` (those it has). */
export function issuePlaceLines(i: OctxIssue, field: (name: string) => string = (f) => f): string[] {
  const lines: string[] = [];
  if (i.path !== undefined) lines.push(`--> ${i.path}${i.line !== undefined ? `:${i.line}` : ''}`);
  if (i.recordId !== undefined) lines.push(`record ${i.recordId}`);
  if (i.field !== undefined) lines.push(`field ${field(i.field)}`);
  return lines;
}

/** One issue as lines: `label[CODE]: message` and its place lines, indented by two more spaces. */
export function issueLines(i: OctxIssue, options: IssueLinesOptions = {}): string[] {
  const label = options.label ?? (i.severity === 'warning' ? 'warning' : 'error');
  const indent = options.indent ?? '';
  const first = i.message.split('\n')[0]!;
  const message = options.message ? options.message(first) : first;
  return [`${indent}${label}[${i.code}]: ${message}`, ...issuePlaceLines(i, options.field).map((l) => `${indent}  ${l}`)];
}
