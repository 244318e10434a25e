/**
 * The one format of every error and warning the CLI prints, in every command:
 *
 * ```
 * error[OCTX_RECORD_INVALID]: ordinal must be a non-negative integer
 *   --> data/chunks.jsonl:3
 *   record 019c2222-2222-7222-8222-222222222222
 *   field ordinal
 * hint: fix the field named above; …
 * ```
 *
 * The first line is `severity[CODE]: message` (greppable by code), then one line per known
 * place (file and line, record id, field), then — once per error — the hint. Messages and hints
 * are put in CLI terms ({@link inCliTerms}).
 */
import type { OctxIssue } from '../model/errors.js';
import { fieldInCliTerms, inCliTerms } from './cli-terms.js';

/** How {@link formatIssue} lays an issue out. */
export interface FormatIssueOptions {
  /** `error` or `warning` (default: the issue's severity). */
  readonly label?: string;
  /** Prefix of every line (the validate report indents its issues). */
  readonly indent?: string;
  /** Put the message in CLI terms (default true; the SDK's `terminalProgress` keeps SDK wording). */
  readonly cliTerms?: boolean;
}

/** The place lines of an issue: `--> path:line`, `record id`, `field name` (those it has). */
export function placeLines(i: OctxIssue, cliTerms = true): string[] {
  const lines: string[] = [];
  if (i.path !== undefined) lines.push(`--> ${i.path}${i.line !== undefined ? `:${i.line}` : ''}`);
  if (i.recordId !== undefined) lines.push(`record ${i.recordId}`);
  if (i.field !== undefined) lines.push(`field ${cliTerms ? fieldInCliTerms(i.field) : i.field}`);
  return lines;
}

/** One issue as lines: `label[CODE]: message` and its place lines, indented by two more spaces. */
export function formatIssue(i: OctxIssue, options: FormatIssueOptions = {}): string[] {
  const label = options.label ?? (i.severity === 'warning' ? 'warning' : 'error');
  const indent = options.indent ?? '';
  const first = i.message.split('\n')[0]!;
  const message = options.cliTerms === false ? first : inCliTerms(first);
  return [`${indent}${label}[${i.code}]: ${message}`, ...placeLines(i, options.cliTerms !== false).map((l) => `${indent}  ${l}`)];
}

/** The `hint:` line. */
export function hintLine(hint: string): string {
  return `hint: ${inCliTerms(hint)}`;
}
