/**
 * A consumer's import rules (SAG v1.7: folded entity identities, column lengths, link weights…)
 * applied while GraphRAG rows become records, so a finding names the GraphRAG file and row that
 * the record came from. The rules and their messages are the consumer profile's own (the same
 * checker the export runs); errors refuse the export as they would for any producer, warnings
 * become adapter warnings.
 */
import { ConsumerChecker, consumerProfile, type ConsumerName, type ConsumerSubject } from '../../consumers/index.js';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';

/** Checks records against one consumer profile, relabelling each finding with its GraphRAG row. */
export class RowChecker {
  readonly consumer: ConsumerName;
  readonly #checker: ConsumerChecker;
  /** Findings on documents (they count in every export). */
  readonly #documents: OctxIssue[] = [];
  /** Findings on structure records (they count only when the structure is exported). */
  readonly #structure: OctxIssue[] = [];

  private constructor(consumer: ConsumerName, checker: ConsumerChecker) {
    this.consumer = consumer;
    this.#checker = checker;
  }

  /** A checker for `consumer`, or `undefined` when its profile has no rules (the seed). */
  static for(consumer: ConsumerName | undefined): RowChecker | undefined {
    if (consumer === undefined) return undefined;
    const profile = consumerProfile(consumer);
    return profile.rules.length > 0 ? new RowChecker(consumer, new ConsumerChecker(profile)) : undefined;
  }

  /**
   * Checks one record made from a GraphRAG row.
   * @param file the GraphRAG file, `row` its 0-based row, `label` how the row is named
   */
  check(subject: ConsumerSubject, record: Readonly<Record<string, unknown>>, file: string, row: number, label: string): void {
    if (!this.#checker.checks(subject)) return;
    const before = this.#checker.issues.length;
    this.#checker.record(subject, record, { path: file, line: row + 1 });
    const found = this.#checker.issues;
    for (let i = before; i < found.length; i++) {
      const f = found[i]!;
      (subject === 'document' ? this.#documents : this.#structure).push(issue({ ...f, message: `${label}: ${f.message}` }));
    }
  }

  /**
   * Ends the check: error findings (on documents always, on records only when the structure is
   * exported) are thrown as `OCTX_CONSUMER_INCOMPATIBLE`; warnings are returned as warning lines.
   * @throws OctxError `OCTX_CONSUMER_INCOMPATIBLE`
   */
  finish(structureExported: boolean): string[] {
    const findings = [...this.#documents, ...(structureExported ? this.#structure : [])];
    const errors = findings.filter((f) => f.severity === 'error');
    if (errors.length > 0)
      throw OctxError.aggregate(
        'OCTX_CONSUMER_INCOMPATIBLE',
        `the GraphRAG index does not fit ${this.consumer}: ${errors.length} row(s) would fail its import (each names its GraphRAG file and row):`,
        errors,
      );
    return findings.filter((f) => f.severity === 'warning').map((f) => f.message);
  }
}
