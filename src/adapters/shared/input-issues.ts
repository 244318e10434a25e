/**
 * How an adapter reports bad input: every problem is an `OCTX_ADAPTER_INPUT_INVALID` issue with
 * the file and line the object came from (when the caller can say: the CLI's file readers can),
 * the source record's id and the field; all of them are collected and thrown at once, so one run
 * lists everything to fix.
 */
import type { z } from 'zod';
import { OctxError, issue, type IssueInput, type OctxIssue } from '../../model/errors.js';

/** Where an input object came from: the file as given and, for JSONL or a JSON array, its line. */
export interface InputLocation {
  readonly path: string;
  readonly line?: number;
}

/** The issue locators of an input object: its file and line, or none when nothing locates it. */
export function issueLocation(at: InputLocation | undefined): { path?: string; line?: number } {
  return at ? { path: at.path, ...(at.line !== undefined ? { line: at.line } : {}) } : {};
}

/** One `OCTX_ADAPTER_INPUT_INVALID` issue (severity error). */
export function inputIssue(input: Omit<IssueInput, 'code' | 'severity'>): OctxIssue {
  return issue({ code: 'OCTX_ADAPTER_INPUT_INVALID', ...input });
}

/**
 * Throws the collected problems as one `OCTX_ADAPTER_INPUT_INVALID` error under `headline`
 * (`seed 002 Chunk objects are invalid:`); does nothing when there are none.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID`, every problem listed
 */
export function throwInputProblems(headline: string, problems: readonly OctxIssue[]): void {
  if (problems.length > 0) throw OctxError.aggregate('OCTX_ADAPTER_INPUT_INVALID', headline, problems);
}

/** A zod failure as field (dotted path, empty for the value itself) and message pairs. */
export function zodProblems(error: z.ZodError): { field: string; message: string }[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join('.'), message: i.message }));
}
