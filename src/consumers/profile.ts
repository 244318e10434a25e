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
  /** A string field of at most `max` code points (SQL `VARCHAR(n)`, Python `len`). */
  | (RuleBase & { readonly rule: 'max-length'; readonly field: string; readonly max: number })
  /** A number field within [min, max] (absent: the consumer's default applies). */
  | (RuleBase & { readonly rule: 'range'; readonly field: string; readonly min: number; readonly max: number })
  /** A number field the consumer stores rounded to a multiple of `step`. */
  | (RuleBase & { readonly rule: 'step'; readonly field: string; readonly step: number })
  /** A string field with at least one non-white-space character. */
  | (RuleBase & { readonly rule: 'non-blank'; readonly field: string })
  /** A field, when present and not null, that `parses` accepts; `expected` describes it. */
  | (RuleBase & { readonly rule: 'parses'; readonly field: string; readonly parses: (value: unknown) => boolean; readonly expected: string })
  /**
   * No two records with the same `key` (undefined: not keyed). `describe` names the key in
   * messages. Checking it keeps one map of key → id for the subject while the records stream by.
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
