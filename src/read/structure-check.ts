/**
 * Record and graph checks of `sag-structured/0.1` (OCTX-REFERENCE §10.2–§10.5, SEED §3–§6),
 * fed one record at a time while the JSONL files stream past.
 *
 * What each kind is checked for comes from `RECORD_KINDS` ({@link KIND_CHECKS}, built once at
 * module load): a record registers its id; each reference names a record of its kind (at once,
 * or after the file for a reference to the kind's own records); a relation's pair is unique;
 * and each coverage rule (`COVERAGE_RULES`) is kept by the reference that satisfies it. Two rules
 * across records are written by hand, as in the builder ({@link CROSS_RECORD_RULES}): a chunk's
 * unique `(document_id, ordinal)` and the event hierarchy's cycles and levels.
 *
 * Memory: ids live once, as 128-bit words in the shared {@link IdSpace}; everything else is
 * per-record numbers in typed arrays (lines, levels, parent ids, coverage flags). Uniqueness of
 * `(document, ordinal)` and of relation pairs is checked by collecting packed numeric keys and
 * sorting them once at the end (a few ms for a million keys), instead of a hash set that would
 * allocate a heap number per key. Duplicates are then reported with their lines.
 *
 * Like the reference, a record that breaks its schema is not added to the record set, so
 * references to it are reported as missing and coverage gaps cascade — every problem is
 * reported, none is silently skipped.
 */
import type { OctxCode } from '../model/codes.js';
import { issue, type OctxIssue } from '../model/errors.js';
import { Float64Column, Int32Column } from '../model/columns.js';
import { wordsToUuid } from '../model/uuid-words.js';
import { IdKind, describeIdKind } from '../model/id-kind.js';
import { IdSpace } from './id-space.js';
import { COVERAGE_RULES, COVERAGE_RULE_ORDER, RECORD_KINDS, RECORD_KIND_ORDER, type CoverageRule, type RecordKind, type RecordKindSpec } from '../model/record-kinds.js';
import { recordProblems } from './record-rules.js';
import type { InputDigests } from './input-digests.js';
import { ENTRY_LIMIT, ENTRY_RECORD, KEPT_NUMBER_FIELD, type RecordScan } from './record-scan.js';

/** A Concept Document known to the format layer (by its document index in the id space). */
export interface ConceptDocumentRef {
  readonly path: string;
  readonly documentId: string;
}

/** Keys pack two indices as `a * 2^26 + b`; indices beyond that use the string fallback. */
const PAIR_BASE = 2 ** 26;
/** Ordinal keys pack `document * 2^32 + ordinal`. */
const ORDINAL_BASE = 2 ** 32;
/** The largest level the 32-bit level column holds (larger ones are refused, never narrowed). */
const INT32_MAX = 2 ** 31 - 1;

/** One reference field of a kind, as the streaming check reads it. */
interface ReferenceCheck {
  readonly field: string;
  /** Where its id words are in the record's words (`recordProblems` slots: 0 or 4). */
  readonly at: number;
  readonly idKind: IdKind;
  readonly code: OctxCode;
  /** `a Concept Document`, `a chunk`, … */
  readonly noun: string;
  /**
   * Reported even after a structure file was cut short (a resource limit): true for documents,
   * which are all read by then; a record named by a reference may be in the part left unread.
   */
  readonly always: boolean;
  /** The coverage rule this reference satisfies, if any. */
  readonly rule: CoverageRule | undefined;
}

/** What the check does with a record of one kind, derived from its row of `RECORD_KINDS`. */
interface KindCheck {
  readonly kind: RecordKind;
  readonly path: string;
  /** Records: the kind of id the record defines (its words at 0). Relations: undefined. */
  readonly own: IdKind | undefined;
  /** The field that names the record in issues. */
  readonly idField: string;
  /** References to records already read (documents, earlier files): checked as the record is read. */
  readonly refs: readonly ReferenceCheck[];
  /** A reference to the kind's own records (a parent): resolved once the whole file is read. */
  readonly selfRef: ReferenceCheck | undefined;
  /** Relations: the code of a pair listed twice. */
  readonly duplicateCode: OctxCode | undefined;
  /** The number a cross-record rule keeps per record (see `KEPT_NUMBER_FIELD`). */
  readonly numberField: string | undefined;
  /** Records with a vector target: their input digests may be recomputed in the pass. */
  readonly vectors: boolean;
}

function kindCheck(kind: RecordKind): KindCheck {
  const row: RecordKindSpec = RECORD_KINDS[kind];
  const own = row.defines === undefined ? undefined : IdKind[row.defines];
  const refs: ReferenceCheck[] = [];
  let selfRef: ReferenceCheck | undefined;
  for (const [field, refKind] of Object.entries(row.references)) {
    const rule = COVERAGE_RULE_ORDER.find((r) => COVERAGE_RULES[r].by === kind && COVERAGE_RULES[r].field === field);
    const ref: ReferenceCheck = {
      field,
      at: row.idFields.indexOf(field) * 4,
      idKind: IdKind[refKind],
      code: row.fields[field]!.missingCode!,
      noun: refKind === 'document' ? 'a Concept Document' : describeIdKind(IdKind[refKind]),
      always: refKind === 'document',
      rule,
    };
    if (ref.idKind === own) selfRef = ref;
    else refs.push(ref);
  }
  if (selfRef?.rule !== undefined) throw new Error(`${kind}: a coverage rule kept by a reference to its own kind is not supported`);
  // Flags of rules kept by a record kind are sized before its file: only documents are known then.
  for (const ref of refs) if (ref.rule !== undefined && row.role === 'record' && !ref.always) throw new Error(`${kind}: a coverage rule kept by a record must name documents`);
  if (row.role === 'relation' && refs.length !== 2) throw new Error(`${kind}: a relation links two records of other kinds`);
  if (refs.length > 2) throw new Error(`${kind}: the words of two references at most are kept per record`);
  return {
    kind,
    path: row.path,
    own,
    idField: row.recordIdField,
    refs,
    selfRef,
    duplicateCode: row.duplicateCode,
    numberField: KEPT_NUMBER_FIELD[kind],
    vectors: row.vectorTarget !== undefined,
  };
}

/** Every kind's check, in table order. */
const KIND_CHECKS: Readonly<Record<RecordKind, KindCheck>> = Object.freeze(
  Object.fromEntries(RECORD_KIND_ORDER.map((kind) => [kind, kindCheck(kind)])) as Record<RecordKind, KindCheck>,
);

/** The reference that keeps each coverage rule, and the kind of the records (or documents) it is about. */
const RULE_REFS: Readonly<Record<CoverageRule, ReferenceCheck>> = Object.freeze(
  Object.fromEntries(COVERAGE_RULE_ORDER.map((rule) => [rule, KIND_CHECKS[COVERAGE_RULES[rule].by].refs.find((r) => r.rule === rule)!])) as Record<CoverageRule, ReferenceCheck>,
);

/** The record kind whose records an orphan of a coverage rule is (undefined: documents). */
function orphanKind(rule: CoverageRule): RecordKind | undefined {
  return RECORD_KIND_ORDER.find((k) => KIND_CHECKS[k].own === RULE_REFS[rule].idKind);
}

/** The issue of an orphan of each coverage rule on a record kind (rule 1, on documents, is reported by path). */
const ORPHAN_ISSUES: Readonly<Record<Exclude<CoverageRule, 1>, { readonly code: OctxCode; readonly what: string }>> = {
  2: { code: 'OCTX_SAG_CHUNK_WITHOUT_EVENT', what: 'has no chunk-event relation' },
  3: { code: 'OCTX_EVENT_WITHOUT_CHUNK', what: 'has no chunk-event relation' },
  4: { code: 'OCTX_SAG_EVENT_WITHOUT_ENTITY', what: 'has no event-entity relation' },
  5: { code: 'OCTX_ENTITY_WITHOUT_EVENT', what: 'is referenced by no event' },
};

/** Collects packed keys with their lines; finds repeated keys at the end. */
class KeyCollector {
  private readonly keys = new Float64Column();
  private readonly lines = new Int32Column();
  private readonly wide = new Map<string, number>();
  readonly wideDuplicates: { key: string; line: number }[] = [];

  add(key: number, line: number): void {
    this.keys.push(key);
    this.lines.push(line);
  }

  /** For keys too large to pack: checked at once with a map. */
  addWide(key: string, line: number): void {
    if (this.wide.has(key)) this.wideDuplicates.push({ key, line });
    else this.wide.set(key, line);
  }

  /** Second and later occurrences of every repeated packed key, in file order. */
  duplicates(): { key: number; line: number }[] {
    const n = this.keys.length;
    if (n < 2) return [];
    const sorted = this.keys.view().slice().sort();
    let repeated: Set<number> | undefined;
    for (let i = 1; i < n; i++) if (sorted[i] === sorted[i - 1]) (repeated ??= new Set()).add(sorted[i]!);
    if (!repeated) return [];
    const out: { key: number; line: number }[] = [];
    const seen = new Set<number>();
    for (let i = 0; i < n; i++) {
      const k = this.keys.get(i);
      if (!repeated.has(k)) continue;
      if (seen.has(k)) out.push({ key: k, line: this.lines.get(i) });
      else seen.add(k);
    }
    return out;
  }
}

/** What the checker holds for one kind while its file and the later ones stream. */
interface KindState {
  readonly check: KindCheck;
  /** The kind's rule across records, if it has one. */
  readonly rule: CrossRecordRule | undefined;
  /** Records: the line of each registered record, by its index in the id space. */
  readonly lines: Int32Column;
  /** Relations: their pairs. */
  readonly pairs: KeyCollector | undefined;
  /** Records with a reference to their own kind: 4 words per record (all zero when absent). */
  selfWords: Uint32Array;
  /** The resolved own-kind reference of each record after the file (-1 none, -2 missing). */
  parents: Int32Array;
  /**
   * The input digests of this kind recomputed in the pass: looked up in `inputs` at the kind's
   * first record (`inputs` is filled before the files stream), `null` until then.
   */
  digests: InputDigests | undefined | null;
  /** The coverage flags each reference of `check.refs` sets (undefined: it keeps no rule). */
  readonly flags: (Uint8Array | undefined)[];
}

/**
 * A rule across records of one kind, written by hand: what it keeps of each accepted record, and
 * what it reports once the kind's file is read (`finishKind`) and once every file is (`finish`).
 */
interface CrossRecordRule {
  keep(c: StructureChecker, index: number, refs: Int32Array, value: number, line: number): void;
  finishKind?(c: StructureChecker): void;
  finish?(c: StructureChecker): void;
}

/** Checks the structure layer; issues go to `report`. */
export class StructureChecker {
  private readonly state: Readonly<Record<RecordKind, KindState>>;
  /** Coverage flags per rule, by the index of the record (or document) the rule is about. */
  private readonly covered: Partial<Record<CoverageRule, Uint8Array>> = {};
  /** The chunk's (document, ordinal) keys. */
  readonly ordinals = new KeyCollector();
  /** Each event's level (0 at the top). */
  readonly eventLevels = new Int32Column();
  /** Set when a file could not be read to its end: "missing" and coverage would only repeat that. */
  incomplete = false;
  /**
   * Input digests to recompute in this pass, per record kind with a vector target (see
   * {@link InputDigests}): each registered record of that kind is rendered and hashed.
   */
  inputs: Partial<Record<RecordKind, InputDigests>> = {};
  /** Id words of the current record, filled by `recordProblems` (slot 0 at 0, slot 1 at 4). */
  private readonly w = new Uint32Array(8);
  /** The index each reference of the current record resolved to. */
  private readonly found = new Int32Array(2);

  constructor(
    readonly ids: IdSpace,
    private readonly documents: readonly ConceptDocumentRef[],
    private readonly report: (i: OctxIssue) => void,
  ) {
    this.state = Object.fromEntries(
      RECORD_KIND_ORDER.map((kind) => {
        const check = KIND_CHECKS[kind];
        const state: KindState = {
          check,
          rule: CROSS_RECORD_RULES[kind],
          lines: new Int32Column(),
          pairs: check.duplicateCode === undefined ? undefined : new KeyCollector(),
          selfWords: new Uint32Array(check.selfRef === undefined ? 0 : 4 * 1024),
          parents: new Int32Array(0),
          digests: check.vectors ? null : undefined,
          flags: check.refs.map(() => undefined),
        };
        return [kind, state];
      }),
    ) as Record<RecordKind, KindState>;
    // Documents are all known before the structure files; records only after their file.
    for (const rule of COVERAGE_RULE_ORDER) if (RULE_REFS[rule].idKind === IdKind.document) this.cover(rule, new Uint8Array(documents.length));
  }

  /** Reports one issue. */
  fail(code: OctxCode, path: string, line: number | undefined, message: string, recordId?: string, field?: string): void {
    this.report(
      issue({
        code,
        path,
        message,
        ...(line === undefined ? {} : { line }),
        ...(recordId === undefined ? {} : { recordId }),
        ...(field === undefined ? {} : { field }),
      }),
    );
  }

  /** The line of record `index` of `kind` (its file's line). */
  lineOf(kind: RecordKind, index: number): number {
    return this.state[kind].lines.get(index);
  }

  /** Drops the own-kind reference of record `index` of `kind` (read, not yet resolved): it resolves to none. */
  forgetSelfReference(kind: RecordKind, index: number): void {
    this.state[kind].selfWords.fill(0, index * 4, index * 4 + 4);
  }

  /** The resolved own-kind reference of each record of `kind`, after `finishKind` (-1 none, -2 missing). */
  parentsOf(kind: RecordKind): Int32Array {
    return this.state[kind].parents;
  }

  /** Checks one parsed record of `kind` found at `line` of `path`. */
  record(kind: RecordKind, r: Record<string, unknown>, path: string, line: number): void {
    const problems = recordProblems(kind, r, this.w);
    if (problems) {
      const rid = typeof r.id === 'string' ? r.id : undefined;
      for (const p of problems) this.fail(p.code, path, line, `${kind} record: ${p.message}`, rid, p.field);
      return;
    }
    const state = this.state[kind];
    const field = state.check.numberField;
    const value = field === undefined ? 0 : r[field];
    this.accepted(state, r, typeof value === 'number' ? value : 0, line);
  }

  /**
   * Replays a file scanned elsewhere ({@link RecordScan}, from a worker): the issues of its lines
   * and the checks of its schema-valid records, in file order — the same issues, in the same
   * order, as {@link record} for each line.
   */
  replay(kind: RecordKind, _path: string, scan: RecordScan): void {
    // A replayed record has only its ids and numbers, not the text an input digest renders.
    if (this.inputs[kind] !== undefined) throw new Error(`replay: ${kind} input digests need the in-thread check`);
    const { tags, lines, words, nums, issues } = scan;
    const state = this.state[kind];
    let next = 0;
    for (let e = 0; e < scan.count; e++) {
      const tag = tags[e]!;
      if (tag !== ENTRY_RECORD) {
        this.report(issues[next++]!);
        if (tag === ENTRY_LIMIT) this.incomplete = true;
        continue;
      }
      this.w.set(words.subarray(e * 8, e * 8 + 8));
      this.accepted(state, undefined, nums[e]!, lines[e]!);
    }
  }

  /**
   * The checks of a schema-valid record, from its id words (in `w`; ids are canonical, so their
   * text is rebuilt exactly from the words) and the number its cross-record rule keeps. `r` is
   * the record when it was parsed here (an input digest renders it), not when replayed.
   */
  private accepted(state: KindState, r: Record<string, unknown> | undefined, value: number, line: number): void {
    // The rare paths (a report, an input digest, a parent's words) are calls of their own, so
    // this one stays small enough for the id-space lookups to be inlined into it.
    const w = this.w;
    const check = state.check;
    let index = -1;
    if (check.own !== undefined) {
      index = this.ids.registerWords(w, 0, check.own);
      if (index < 0) return this.duplicateId(check, index, line);
      state.lines.push(line);
      if (state.digests !== undefined && r !== undefined) this.inputDigest(state, r, index, line);
      if (check.selfRef !== undefined) this.keepSelfReference(state, check.selfRef, index);
    }
    const refs = check.refs;
    const found = this.found;
    let missing = false;
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i]!;
      const j = this.ids.indexOfWords(w, ref.at, ref.idKind);
      found[i] = j;
      if (j >= 0) continue;
      missing = true;
      // After a file was cut short (resource limit), "missing" would only repeat that failure.
      if (!this.incomplete || ref.always) this.missingReference(check, ref, line);
    }
    if (missing) return;
    const pairs = state.pairs;
    if (pairs !== undefined) {
      const a = found[0]!;
      const b = found[1]!;
      if (a < PAIR_BASE && b < PAIR_BASE) pairs.add(a * PAIR_BASE + b, line);
      else pairs.addWide(`${a}:${b}`, line);
    }
    const flags = state.flags;
    for (let i = 0; i < flags.length; i++) {
      const f = flags[i];
      if (f !== undefined) f[found[i]!] = 1;
    }
    state.rule?.keep(this, index, found, value, line);
  }

  /** `OCTX_ID_DUPLICATE`: the id in slot 0 is already used (`found` is `-1 - code` of its holder). */
  private duplicateId(check: KindCheck, found: number, line: number): void {
    const id = wordsToUuid(this.w, 0);
    const holder = describeIdKind(IdSpace.kindOf(-1 - found));
    this.fail('OCTX_ID_DUPLICATE', check.path, line, `id ${id} is already used by ${holder}; ids are unique across the asset, documents and records`, id, 'id');
  }

  /** Hands a registered record to the input digests of its kind, when they are recomputed in this pass. */
  private inputDigest(state: KindState, r: Record<string, unknown>, index: number, line: number): void {
    const digests = state.digests === null ? (state.digests = this.inputs[state.check.kind]) : state.digests;
    digests?.add(index, r, r[state.check.idField] as string, line);
  }

  /** Keeps the words of a record's reference to its own kind, resolved by `finishKind`. */
  private keepSelfReference(state: KindState, self: ReferenceCheck, index: number): void {
    if ((index + 1) * 4 > state.selfWords.length) {
      const grown = new Uint32Array(state.selfWords.length * 2);
      grown.set(state.selfWords);
      state.selfWords = grown;
    }
    state.selfWords.set(this.w.subarray(self.at, self.at + 4), index * 4);
  }

  /** A reference (its words at `ref.at`) that names no record of its kind: a relation by its line, a record by its id too. */
  private missingReference(check: KindCheck, ref: ReferenceCheck, line: number): void {
    const named = wordsToUuid(this.w, ref.at);
    if (check.own === undefined) this.fail(ref.code, check.path, line, `${ref.field} ${named} is not ${ref.noun} of this package`, undefined, ref.field);
    else this.fail(ref.code, check.path, line, `${check.kind} ${ref.field} ${named} is not the id of ${ref.noun} in this package`, wordsToUuid(this.w, 0), ref.field);
  }

  /**
   * Once the file of `kind` is read: resolves each record's reference to its own kind (a parent
   * must exist), then runs the kind's cross-record rule (the event hierarchy).
   */
  finishKind(kind: RecordKind): void {
    const check = KIND_CHECKS[kind];
    const self = check.selfRef;
    if (self !== undefined) {
      const state = this.state[kind];
      const n = state.lines.length;
      const words = state.selfWords;
      const parents = new Int32Array(n).fill(-1);
      for (let i = 0; i < n; i++) {
        const o = i * 4;
        if ((words[o]! | words[o + 1]! | words[o + 2]! | words[o + 3]!) === 0) continue;
        const j = this.ids.indexOfWords(words, o, self.idKind);
        if (j >= 0) {
          parents[i] = j;
          continue;
        }
        parents[i] = -2;
        if (this.incomplete) continue;
        const id = this.ids.idOf(check.own!, i);
        this.fail(self.code, check.path, state.lines.get(i), `${self.field} ${wordsToUuid(words, o)} is not ${self.noun} of this package`, id, self.field);
      }
      state.parents = parents;
      state.selfWords = new Uint32Array(0);
    }
    CROSS_RECORD_RULES[kind]?.finishKind?.(this);
  }

  /** Sizes the coverage flags of the rules kept by relations; call after the record files, before the relations. */
  beginRelations(): void {
    for (const rule of COVERAGE_RULE_ORDER) if (this.covered[rule] === undefined) this.cover(rule, new Uint8Array(this.ids.count(RULE_REFS[rule].idKind)));
  }

  /** Gives coverage rule `rule` its flags, set by the reference that keeps it. */
  private cover(rule: CoverageRule, flags: Uint8Array): void {
    this.covered[rule] = flags;
    const { by } = COVERAGE_RULES[rule];
    this.state[by].flags[KIND_CHECKS[by].refs.indexOf(RULE_REFS[rule])] = flags;
  }

  /** Reports the cross-record rules' findings and repeated relation pairs, then the coverage rules of SEED §6. */
  finish(): void {
    for (const kind of RECORD_KIND_ORDER) {
      CROSS_RECORD_RULES[kind]?.finish?.(this);
      const pairs = this.state[kind].pairs;
      if (pairs === undefined) continue;
      const check = KIND_CHECKS[kind];
      const [ra, rb] = check.refs as [ReferenceCheck, ReferenceCheck];
      for (const d of pairs.duplicates()) {
        const a = Math.floor(d.key / PAIR_BASE);
        const b = d.key % PAIR_BASE;
        this.fail(check.duplicateCode!, check.path, d.line, `the relation (${this.ids.idOf(ra.idKind, a)}, ${this.ids.idOf(rb.idKind, b)}) is listed twice`);
      }
      for (const d of pairs.wideDuplicates) this.fail(check.duplicateCode!, check.path, d.line, 'a relation is listed twice');
    }
    if (this.incomplete) return;

    for (const rule of COVERAGE_RULE_ORDER) {
      const flags = this.covered[rule];
      if (flags === undefined) continue;
      const orphan = orphanKind(rule);
      if (orphan === undefined) {
        // A document is named by its path (it has no line).
        for (let d = 0; d < this.documents.length; d++) {
          if (flags[d]) continue;
          const doc = this.documents[d]!;
          this.fail('OCTX_SAG_DOCUMENT_WITHOUT_CHUNK', doc.path, undefined, `Concept Document ${doc.path} has no chunk`, doc.documentId);
        }
        continue;
      }
      const idKind = RULE_REFS[rule].idKind;
      const { code, what } = ORPHAN_ISSUES[rule as Exclude<CoverageRule, 1>];
      for (let i = 0; i < flags.length; i++) {
        if (flags[i]) continue;
        const id = this.ids.idOf(idKind, i);
        this.fail(code, KIND_CHECKS[orphan].path, this.lineOf(orphan, i), `${describeIdKind(idKind)} ${id} ${what}`, id);
      }
    }
  }
}

/**
 * The rules across records that are written by hand (the builder has them too, in
 * `structure/structure-store.ts` and `structure/graph-checks.ts`).
 */
const CROSS_RECORD_RULES: Partial<Record<RecordKind, CrossRecordRule>> = {
  // (document_id, ordinal) is unique: keys collected while streaming, repeats found at the end.
  chunk: {
    keep(c, _index, refs, ordinal, line) {
      const doc = refs[0]!;
      if (ordinal < ORDINAL_BASE && doc < PAIR_BASE) c.ordinals.add(doc * ORDINAL_BASE + ordinal, line);
      else c.ordinals.addWide(`${doc}:${ordinal}`, line);
    },
    finish(c) {
      const path = RECORD_KINDS.chunk.path;
      for (const d of c.ordinals.duplicates()) {
        const doc = Math.floor(d.key / ORDINAL_BASE);
        const ordinal = d.key % ORDINAL_BASE;
        c.fail('OCTX_CHUNK_ORDINAL_DUPLICATE', path, d.line, `ordinal ${ordinal} is used twice in document ${c.ids.idOf(IdKind.document, doc)}`, undefined, 'ordinal');
      }
      for (const d of c.ordinals.wideDuplicates) c.fail('OCTX_CHUNK_ORDINAL_DUPLICATE', path, d.line, `an ordinal is used twice in one document (${d.key})`, undefined, 'ordinal');
    },
  },
  // The hierarchy, once every event and its parent are known: no cycles
  // (`OCTX_EVENT_HIERARCHY_CYCLE`), and `level = parent.level + 1` with top-level events at 0
  // (`OCTX_EVENT_LEVEL_INVALID`).
  event: {
    keep(c, index, _refs, value, line) {
      let level = value;
      if (level > INT32_MAX) {
        // Refused here, never narrowed into the 32-bit column: a level is a depth in the hierarchy,
        // and no hierarchy is that deep. Stored as -1, which the level check skips; its parent is
        // then neither resolved nor walked, as the level says nothing about it.
        const id = c.ids.idOf(IdKind.event, index);
        c.fail(
          'OCTX_EVENT_LEVEL_INVALID',
          RECORD_KINDS.event.path,
          line,
          `level ${level} is deeper than any event hierarchy can be (at most ${INT32_MAX}); it can never be its parent's level + 1`,
          id,
          'level',
        );
        c.forgetSelfReference('event', index);
        level = -1;
      }
      c.eventLevels.push(level);
    },
    finishKind(c) {
      const parent = c.parentsOf('event');
      const n = parent.length;
      const path = RECORD_KINDS.event.path;
      const idOf = (i: number): string => c.ids.idOf(IdKind.event, i);
      // Each event has at most one parent, so following parents from every event finds every
      // cycle in linear time: a walk that meets a node of its own walk closed a loop.
      const state = new Uint8Array(n); // 0 new, 1 on the current walk, 2 finished
      const onCycle = new Uint8Array(n);
      const walk = new Int32Array(n);
      for (let start = 0; start < n; start++) {
        let len = 0;
        let j = start;
        while (j >= 0 && state[j] === 0) {
          state[j] = 1;
          walk[len++] = j;
          j = parent[j]!;
        }
        if (j >= 0 && state[j] === 1) {
          for (let k = len - 1; k >= 0; k--) {
            const m = walk[k]!;
            onCycle[m] = 1;
            if (m === j) break;
          }
        }
        for (let k = 0; k < len; k++) state[walk[k]!] = 2;
      }
      for (let i = 0; i < n; i++) {
        if (onCycle[i]) {
          c.fail('OCTX_EVENT_HIERARCHY_CYCLE', path, c.lineOf('event', i), `event ${idOf(i)} is its own ancestor (the parent_id chain loops)`, idOf(i), 'parent_id');
          continue;
        }
        const p = parent[i]!;
        if (p < 0) continue;
        const expected = c.eventLevels.get(p) + 1;
        const level = c.eventLevels.get(i);
        // -1: a level beyond 32 bits, reported when it was read.
        if (level === -1) continue;
        if (expected === 0) {
          c.fail(
            'OCTX_EVENT_LEVEL_INVALID',
            path,
            c.lineOf('event', i),
            `level ${level} must be the parent's level + 1, and the parent's level is beyond ${INT32_MAX}`,
            idOf(i),
            'level',
          );
          continue;
        }
        if (level !== expected) c.fail('OCTX_EVENT_LEVEL_INVALID', path, c.lineOf('event', i), `level ${level} must be the parent's level + 1 = ${expected}`, idOf(i), 'level');
      }
    },
  },
};
