/**
 * A consumer profile: what one application that imports `.octx` packages accepts beyond the
 * format, as data (limits, an identity function, a vector policy). The planner and the validator
 * run a profile's rules with {@link ConsumerChecker}; a new consumer is one more file like
 * `sag-1-7.ts`, registered in `index.ts`. See docs/consumers.md.
 */
import type { IssueSeverity } from '../model/errors.js';
import type { RecordKind } from '../model/record-kinds.js';

/** What a rule looks at: a record kind of the structure layer, or a knowledge document. */
export type ConsumerSubject = RecordKind | 'document';

/**
 * A document as the rules see it: `id` is its `octx.document_id`, `title` its frontmatter title.
 */
export interface ConsumerDocument {
  readonly id?: string;
  readonly title?: unknown;
  /** When `title` is not a string Python's `strip()` leaves non-empty: the body's first `# ` line (stripped), else the file stem. */
  readonly titleFallback?: string;
}

interface RuleBase {
  readonly subject: ConsumerSubject;
  /** `error`: the consumer refuses the package (export refused, validate exits 1); `warning`: it changes the value. */
  readonly severity: IssueSeverity;
  /** One line: what the consumer does, for messages and docs/consumers.md. */
  readonly why: string;
}

/** One rule of a profile. Each names the field it checks; an absent optional field passes. */
export type ConsumerRule =
  /**
   * A string field of at most `max` code points (SQL `VARCHAR(n)`, Python `len`), measured on
   * `stored(value)` when given: the value as the consumer stores it (`storedAs` names that, e.g.
   * `strip + casefold`), which can be longer or shorter than the value written.
   */
  | (RuleBase & {
      readonly rule: 'max-length';
      readonly field: string;
      readonly max: number;
      readonly stored?: (value: string) => string;
      readonly storedAs?: string;
      /**
       * The text the consumer stores for the value (SAG: `str(v or "")` for a heading, a fallback
       * for a title that is not one); without it, only strings are measured, as written.
       */
      readonly text?: (value: unknown, record: Readonly<Record<string, unknown>>) => string | undefined;
    })
  /** A number field within [min, max] (absent: the consumer's default applies). */
  | (RuleBase & { readonly rule: 'range'; readonly field: string; readonly min: number; readonly max: number })
  /**
   * A field the consumer stores changed: `adjust` returns the text of the value it will store
   * when that differs from the value written (undefined: stored as written, or not checked here).
   */
  | (RuleBase & { readonly rule: 'adjusts'; readonly field: string; readonly adjust: (value: unknown) => string | undefined })
  /** A string field that is not empty once `strip` (the consumer's meaning of white space) removed its ends. */
  | (RuleBase & { readonly rule: 'non-blank'; readonly field: string; readonly strip: (value: string) => string })
  /** A field, when present and not null, that `parses` accepts; `expected` describes it. */
  | (RuleBase & { readonly rule: 'parses'; readonly field: string; readonly parses: (value: unknown) => boolean; readonly expected: string })
  /**
   * No two records with the same `key` (undefined: not keyed). `describe` names the key in
   * messages. Checking it keeps a 128-bit digest of each key → the first record (its id once),
   * while the records stream by: a fixed size per record, however long the keys are.
   */
  | (RuleBase & {
      readonly rule: 'unique';
      /** The field issues name (the one a producer would change). */
      readonly field: string;
      readonly key: (record: Readonly<Record<string, unknown>>) => string | undefined;
      readonly describe: string;
    });

/** What a consumer does with a package's vectors. */
export interface VectorPolicy {
  /** `omit`: an export for this consumer leaves vectors out unless told `vectors: 'keep'`. */
  readonly policy: 'keep' | 'omit';
  /** One sentence naming the consumer: why (shown in the report when vectors are left out). */
  readonly reason: string;
}

/** One consumer. */
export interface ConsumerProfile {
  /** The name callers pass (`consumer: 'sag-1.7'`). */
  readonly name: string;
  /** A line for help texts and reports. */
  readonly title: string;
  readonly rules: readonly ConsumerRule[];
  readonly vectors: VectorPolicy;
}
