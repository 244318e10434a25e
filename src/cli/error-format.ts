/**
 * The one format of every error and warning the CLI prints, in every command: the SDK's issue
 * lines (`terminal/issue-lines.ts`: `severity[CODE]: message`, then file/line, record and field
 * lines) with message and field in CLI terms ({@link inCliTerms}, {@link fieldInCliTerms}), and —
 * once per error — a `hint:` line:
 *
 * ```
 * error[OCTX_RECORD_INVALID]: ordinal must be a non-negative integer
 *   --> data/chunks.jsonl:3
 *   record 019c2222-2222-7222-8222-222222222222
 *   field ordinal
 * hint: fix the field named above; …
 * ```
 */
import type { OctxIssue } from '../model/errors.js';
import { issueLines, issuePlaceLines } from '../terminal/issue-lines.js';
import { fieldInCliTerms, inCliTerms, withoutCode } from './cli-terms.js';

/** How {@link formatIssue} lays an issue out. */
export interface FormatIssueOptions {
  /** `error` or `warning` (default: the issue's severity). */
  readonly label?: string;
  /** Prefix of every line (the validate report indents its issues). */
  readonly indent?: string;
}

/** The place lines of an issue in CLI terms: `--> path:line`, `record id`, `field name` (those it has). */
export function placeLines(i: OctxIssue): string[] {
  return issuePlaceLines(i, fieldInCliTerms);
}

/** One issue as CLI lines: `label[CODE]: message` and its place lines, indented by two more spaces. */
export function formatIssue(i: OctxIssue, options: FormatIssueOptions = {}): string[] {
  return issueLines(i, { ...options, message: (m) => inCliTerms(withoutCode(m, i.code)), field: fieldInCliTerms });
}

/** The `hint:` line. */
export function hintLine(hint: string): string {
  return `hint: ${inCliTerms(hint)}`;
}
