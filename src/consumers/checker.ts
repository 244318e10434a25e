import { codePointLength } from '../model/casefold.js';
import { issue, type OctxIssue } from '../model/errors.js';
import { RECORD_KINDS } from '../model/record-kinds.js';
import { DigestIndex, RecordIds } from './digest-index.js';
import { digest128 } from './digest128.js';
import type { ConsumerProfile, ConsumerRule, ConsumerSubject } from './profile.js';

/** Where a record was found, for the issue. */
export interface RecordLocation {
  readonly path?: string;
  readonly line?: number;
}

function show(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return [...s].length > 60 ? `${[...s].slice(0, 57).join('')}…` : s;
}

/** The id that names a record in issues: its `id`, or for a relation its first end. */
function recordIdOf(subject: ConsumerSubject, record: Readonly<Record<string, unknown>>): string | undefined {
  const field = subject === 'document' ? 'id' : RECORD_KINDS[subject].recordIdField;
  const v = record[field];
  return typeof v === 'string' ? v : undefined;
}

function label(subject: ConsumerSubject, record: Readonly<Record<string, unknown>>): string {
  if (subject === 'event-entity') return `event-entity link ${String(record.event_id)} → ${String(record.entity_id)}`;
  if (subject === 'chunk-event') return `chunk-event link ${String(record.chunk_id)} → ${String(record.event_id)}`;
  return `${subject} ${String(record.id)}`;
}

/**
 * Applies one profile's rules to records as they stream by (in any order), collecting every
 * finding: errors (the consumer refuses the package) and warnings (it changes a value). Memory:
 * per `unique` rule, a table of 128-bit key digests → first record (`digest-index.ts`), and the
 * first records' ids once; no key is kept.
 */
export class ConsumerChecker {
  readonly profile: ConsumerProfile;
  readonly #bySubject = new Map<ConsumerSubject, ConsumerRule[]>();
  readonly #seen = new Map<ConsumerRule, DigestIndex>();
  /** The ids of records that were first with some key (one copy, shared by every `unique` rule). */
  readonly #firstIds = new RecordIds();
  readonly #digest = new Uint32Array(4);
  /** The number of the record being checked, once a `unique` rule stored its id. */
  #current: number | undefined;
  readonly #issues: OctxIssue[] = [];
  #errors = 0;

  constructor(profile: ConsumerProfile) {
    this.profile = profile;
    for (const r of profile.rules) {
      const list = this.#bySubject.get(r.subject) ?? [];
      list.push(r);
      this.#bySubject.set(r.subject, list);
      if (r.rule === 'unique') this.#seen.set(r, new DigestIndex());
    }
  }

  /** True when some rule looks at this subject (the others need not be read at all). */
  checks(subject: ConsumerSubject): boolean {
    return this.#bySubject.has(subject);
  }

  /** Every finding so far, in the order found. */
  get issues(): readonly OctxIssue[] {
    return this.#issues;
  }

  /** Number of error findings. */
  get errors(): number {
    return this.#errors;
  }

  /** Checks one record (or document) against the rules for its subject. */
  record(subject: ConsumerSubject, record: Readonly<Record<string, unknown>>, at: RecordLocation = {}): void {
    const rules = this.#bySubject.get(subject);
    if (!rules) return;
    // Two identities can both join this record to the same earlier one: one issue says it.
    const joined = new Set<string>();
    this.#current = undefined;
    for (const rule of rules) {
      const problem = this.#check(rule, record, joined);
      if (problem === undefined) continue;
      const recordId = recordIdOf(subject, record);
      if (rule.severity === 'error') this.#errors++;
      this.#issues.push(
        issue({
          code: rule.severity === 'error' ? 'OCTX_CONSUMER_INCOMPATIBLE' : 'OCTX_CONSUMER_ADJUSTED',
          severity: rule.severity,
          ...(at.path !== undefined ? { path: at.path } : {}),
          ...(at.line !== undefined ? { line: at.line } : {}),
          ...(recordId !== undefined ? { recordId } : {}),
          field: rule.field,
          message: `${this.profile.name}: ${label(subject, record)}: ${problem} (${rule.why})`,
        }),
      );
    }
  }

  #check(rule: ConsumerRule, record: Readonly<Record<string, unknown>>, joined: Set<string>): string | undefined {
    if (rule.rule === 'unique') {
      const key = rule.key(record);
      const id = recordIdOf(rule.subject, record);
      if (key === undefined || id === undefined) return undefined;
      const seen = this.#seen.get(rule)!;
      // The record's number: the one it got from an earlier rule of this call, else the next free one.
      const firstNumber = seen.firstOrAdd(digest128(key, this.#digest), this.#current ?? this.#firstIds.next);
      if (firstNumber === undefined) {
        this.#current ??= this.#firstIds.add(id);
        return undefined;
      }
      const first = this.#firstIds.get(firstNumber);
      if (joined.has(first)) return undefined;
      joined.add(first);
      return `has the same ${rule.describe} as ${rule.subject} ${first} (type ${show(record.type)}, name ${show(record.name)}): ${first} and ${id} would be one ${rule.subject}`;
    }
    const value = record[rule.field];
    switch (rule.rule) {
      case 'max-length': {
        const text = rule.text ? rule.text(value, record) : typeof value === 'string' ? value : undefined;
        if (text === undefined) return undefined;
        const n = codePointLength(rule.stored ? rule.stored(text) : text);
        const as = rule.storedAs !== undefined ? ` as stored (${rule.storedAs})` : '';
        return n > rule.max ? `${rule.field} ${show(value)} is ${n} characters${as}; the limit is ${rule.max}` : undefined;
      }
      case 'range':
        if (typeof value !== 'number') return undefined;
        return value < rule.min || value > rule.max ? `${rule.field} is ${show(value)}; the limit is [${rule.min}, ${rule.max}]` : undefined;
      case 'adjusts': {
        const stored = rule.adjust(value);
        return stored === undefined ? undefined : `${rule.field} ${show(value)} will be stored as ${stored}`;
      }
      case 'non-blank':
        return typeof value === 'string' && rule.strip(value) === '' ? `${rule.field} ${show(value)} is blank; it must have a visible character` : undefined;
      case 'parses':
        if (value === undefined || value === null) return undefined;
        return rule.parses(value) ? undefined : `${rule.field} ${show(value)} cannot be parsed; expected ${rule.expected}`;
    }
  }
}
