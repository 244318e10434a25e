import { join } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind, type RecordKindSpec } from '../model/record-kinds.js';
import { Int32Column } from '../model/record-columns.js';
import { editDistance } from '../model/edit-distance.js';
import { IdKind } from '../model/id-kind.js';
import type { IdRegistry } from './id-registry.js';
import { explainInvalid, fieldPosition, readRecord, recordObject, whiteSpaceFields, whiteSpaceTextWarning, type RecordRead } from './record-check.js';
import { RecordSpill } from './record-spill.js';
import { PairIndex } from './pair-index.js';
import { suspectFieldIssues } from './field-suspects.js';
import type { BackgroundDeflate } from '../package/background-deflate.js';
import { COLUMN_NAMES, RECORD_COLUMNS, type ColumnName, type StructureColumns, type SpillSnapshot, type StructureSnapshot } from './structure-snapshot.js';

/**
 * Most links of one kind (16M). The pair tables would still work beyond it, but 16 million links
 * of one kind is far beyond what consumers accept, and it bounds each table at 128 MiB.
 */
const MAX_LINKS = 16_000_000;

function assertRoom(links: Int32Column, kind: string): void {
  if (links.length >= MAX_LINKS) throw new OctxError('OCTX_RESOURCE_LIMIT', `more than ${MAX_LINKS.toLocaleString('en')} ${kind} links in one package are not supported`);
}

/**
 * `kind` is one of `RECORD_KIND_ORDER`, as a primitive string: `addRecord` is called with names
 * from data (a working folder, an adapter), and `'__proto__'` or `'Chunk'` must not reach the
 * tables indexed by kind.
 * @throws OctxError `OCTX_RECORD_KIND_UNKNOWN`, with the closest kind when one is close
 */
function assertRecordKind(kind: unknown): asserts kind is RecordKind {
  if (typeof kind === 'string' && (RECORD_KIND_ORDER as readonly string[]).includes(kind)) return;
  const shown = typeof kind === 'string' ? JSON.stringify(kind) : `a value of type ${kind === null ? 'null' : typeof kind}`;
  let near: string | undefined;
  if (typeof kind === 'string') {
    const lower = kind.toLowerCase().replace(/_/g, '-');
    near = RECORD_KIND_ORDER.find((k) => k === lower || k === `${lower.replace(/s$/, '')}`) ?? RECORD_KIND_ORDER.find((k) => editDistance(lower, k, 2) <= 2);
  }
  throw OctxError.of({
    code: 'OCTX_RECORD_KIND_UNKNOWN',
    field: 'kind',
    message: `addRecord: unknown record kind ${shown}; the kinds are ${RECORD_KIND_ORDER.join(', ')}${near !== undefined ? ` (did you mean "${near}"?)` : ''}`,
  });
}

/** The largest value of an Int32 column (`record-columns.ts`). */
const INT32_MAX = 2 ** 31 - 1;

/** Ordinals up to this fit the Int32 ordinal column; larger ones (legal, never seen) use a side set. */
const MAX_COLUMN_ORDINAL = 2 ** 31 - 1;

/** Suspect-field warnings kept as issues; beyond this many only counted. */
export const MAX_LISTED_SUSPECTS = 100;

const NO_ISSUES: readonly OctxIssue[] = Object.freeze([]);

/** Options of a {@link StructureStore}. */
export interface StructureStoreOptions {
  /** Compresses the JSONL files while records are still being added. */
  readonly background?: BackgroundDeflate;
  /**
   * A field that looks like a misspelt known field (`parentId`) refuses the record with
   * `OCTX_RECORD_FIELD_SUSPECT` instead of being kept with a warning (the builder's `strict`).
   */
  readonly strictFields?: boolean;
  /**
   * The consumer the builder is made for, when it imports a required text field that is only
   * white space: such text is then taken with an `OCTX_RECORD_TEXT_BLANK` warning naming it,
   * instead of refused.
   */
  readonly whiteSpaceTextFor?: string;
}

/** How one field of a kind is stored: its position in a {@link RecordRead} and its column. */
interface StoredField {
  readonly at: number;
  readonly column: Int32Column;
  /** `id`: the record's identity; `ref`: a reference (-1 when absent); `int`: the value (0 when absent). */
  readonly as: 'id' | 'ref' | 'int';
}

/** How {@link StructureStore.add} stores a kind, derived from its `RECORD_KINDS` row and `RECORD_COLUMNS`. */
interface KindPlan {
  readonly row: RecordKindSpec;
  readonly fields: readonly StoredField[];
  /** The column whose length is the kind's record count (its first). */
  readonly first: Int32Column;
  /** Relations: the set of linked pairs, over the columns of the two references. */
  readonly pairs: PairIndex | undefined;
  /** Relations: positions of the two references. */
  readonly ends: readonly [number, number] | undefined;
  /** Relations: names of the two references. */
  readonly endNames: readonly [string, string] | undefined;
}

/**
 * The structure layer as it is collected: record payloads go straight to their JSONL spill files
 * (written once, hashed while written), and only the reference graph stays in memory, as dense
 * integers in typed columns. Records may arrive in any order; references are resolved at export.
 *
 * Duplicate `(document, ordinal)` pairs and duplicate links are refused at the call. The sets
 * that detect them are {@link PairIndex} tables over the columns already kept here, not V8 Sets
 * of packed keys (a heap number each), since this state sets the builder's peak memory.
 */
export class StructureStore {
  readonly #ids: IdRegistry;
  readonly #dir: string;
  readonly #spills = new Map<RecordKind, RecordSpill>();

  /**
   * The reference graph: one column per entry of `RECORD_COLUMNS` (see {@link StructureColumns}).
   * Rows below a column's length are never rewritten, so {@link StructureStore.freeze} views them.
   */
  readonly columns: Readonly<Record<ColumnName, Int32Column>> = Object.fromEntries(COLUMN_NAMES.map((name) => [name, new Int32Column()])) as Record<ColumnName, Int32Column>;

  /** Ordinal of each chunk (-1 when above {@link MAX_COLUMN_ORDINAL}, then in `#wideOrdinals`). */
  readonly #chunkOrdinal = new Int32Column();
  readonly #ordinals = new PairIndex(this.columns.chunkDocument, this.#chunkOrdinal);
  readonly #wideOrdinals = new Set<string>();
  readonly #ordinalAt = fieldPosition('chunk', 'ordinal');
  readonly #documentAt = fieldPosition('chunk', 'document_id');

  readonly #plans: Readonly<Record<RecordKind, KindPlan>> = Object.fromEntries(RECORD_KIND_ORDER.map((kind) => [kind, this.#plan(kind)])) as Record<RecordKind, KindPlan>;
  /** Dense ids of the record being added, by field position (one reused array: add is synchronous). */
  readonly #dense = new Int32Array(Math.max(...RECORD_KIND_ORDER.map((kind) => Object.keys(RECORD_KINDS[kind].fields).length)));

  readonly #background: BackgroundDeflate | undefined;
  readonly #strictFields: boolean;
  readonly #whiteSpaceText: boolean;
  readonly #whiteSpaceFor: string;
  readonly #suspects: OctxIssue[] = [];
  #suspectCount = 0;
  readonly #blank: OctxIssue[] = [];
  #blankCount = 0;
  #pending: readonly OctxIssue[] = NO_ISSUES;
  #pendingBlank: readonly OctxIssue[] = NO_ISSUES;
  #source: { readonly path: string; readonly line: number } | undefined;

  constructor(ids: IdRegistry, dir: string, options: StructureStoreOptions = {}) {
    this.#ids = ids;
    this.#dir = dir;
    this.#background = options.background;
    this.#strictFields = options.strictFields === true;
    this.#whiteSpaceText = options.whiteSpaceTextFor !== undefined;
    this.#whiteSpaceFor = options.whiteSpaceTextFor ?? '';
  }

  /**
   * Where the records added next come from (a working folder's file and line), so their
   * warnings name it like their errors do; `undefined` again once the file is read.
   */
  setRecordSource(source: { readonly path: string; readonly line: number } | undefined): void {
    this.#source = source;
  }

  /**
   * `OCTX_RECORD_FIELD_SUSPECT` warnings of the records added so far (the first
   * {@link MAX_LISTED_SUSPECTS}, then one warning counting the rest).
   */
  get fieldWarnings(): readonly OctxIssue[] {
    if (this.#suspectCount <= this.#suspects.length) return this.#suspects;
    const more = this.#suspectCount - this.#suspects.length;
    return [
      ...this.#suspects,
      issue({ code: 'OCTX_RECORD_FIELD_SUSPECT', severity: 'warning', message: `${more} more suspect field(s) are not listed (the first ${this.#suspects.length} are)` }),
    ];
  }

  /** `OCTX_RECORD_TEXT_BLANK` warnings of the records added so far (listed as {@link fieldWarnings} are). */
  get whiteSpaceTextWarnings(): readonly OctxIssue[] {
    if (this.#blankCount <= this.#blank.length) return this.#blank;
    const more = this.#blankCount - this.#blank.length;
    return [
      ...this.#blank,
      issue({ code: 'OCTX_RECORD_TEXT_BLANK', severity: 'warning', message: `${more} more white-space-only text field(s) are not listed (the first ${this.#blank.length} are)` }),
    ];
  }

  #plan(kind: RecordKind): KindPlan {
    const row: RecordKindSpec = RECORD_KINDS[kind];
    const columns: Readonly<Record<string, ColumnName>> = RECORD_COLUMNS[kind];
    const fields = Object.entries(columns).map(([field, name]): StoredField => {
      const spec = row.fields[field]!;
      return { at: fieldPosition(kind, field), column: this.columns[name], as: spec.type !== 'uuidv7' ? 'int' : spec.ref === undefined ? 'id' : 'ref' };
    });
    const refs = fields.filter((f) => f.as === 'ref');
    const names = Object.keys(row.fields);
    const relation = row.role === 'relation';
    return {
      row,
      fields,
      first: fields[0]!.column,
      pairs: relation ? new PairIndex(refs[0]!.column, refs[1]!.column) : undefined,
      ends: relation ? [refs[0]!.at, refs[1]!.at] : undefined,
      endNames: relation ? [names[refs[0]!.at]!, names[refs[1]!.at]!] : undefined,
    };
  }

  /**
   * Reads the caller's record once, checks its own fields and writes its line (one pass,
   * `readRecord`); unknown fields that look like a misspelt known one are reported (or refused
   * under `strictFields`).
   * @throws OctxError
   */
  #take(kind: RecordKind, input: unknown): RecordRead {
    const read = readRecord(kind, input, this.#whiteSpaceText);
    // The usual record has no unknown field and is valid: no object is built for it.
    const record = read.extraKeys !== undefined || !read.valid ? recordObject(kind, read) : undefined;
    const suspects = read.extraKeys !== undefined ? suspectFieldIssues(kind, record!, read.extraKeys) : NO_ISSUES;
    if (!read.valid) {
      try {
        explainInvalid(kind, record!, this.#whiteSpaceText ? this.#whiteSpaceFor : undefined);
      } catch (e) {
        // `level` without `parent_id` because it was spelt `parentId`: say so beside the error.
        if (suspects.length === 0 || !(e instanceof OctxError)) throw e;
        throw new OctxError(e.code, `${e.message}\n${suspects.map((i) => `  - ${i.message}`).join('\n')}`, { issues: [...e.issues, ...suspects] });
      }
    }
    if (suspects.length > 0) {
      if (this.#strictFields) {
        const errors = suspects.map((i) => ({ ...i, severity: 'error' as const }));
        if (errors.length === 1) throw OctxError.of(errors[0]!);
        throw OctxError.aggregate('OCTX_RECORD_FIELD_SUSPECT', `${kind} record has misspelt-looking fields (strict):`, errors);
      }
    }
    this.#pending = suspects;
    this.#pendingBlank = this.#whiteSpaceText ? whiteSpaceIssues(kind, read, this.#whiteSpaceFor) : NO_ISSUES;
    return read;
  }

  /** Keeps the warnings of the record just stored (a refused record leaves none behind). */
  #stored(): void {
    const source = this.#source;
    for (const b of this.#pendingBlank) {
      this.#blankCount++;
      if (this.#blank.length < MAX_LISTED_SUSPECTS) this.#blank.push(source ? { ...b, path: source.path, line: source.line } : b);
    }
    this.#pendingBlank = NO_ISSUES;
    if (this.#pending.length === 0) return;
    for (const s of this.#pending) {
      this.#suspectCount++;
      if (this.#suspects.length < MAX_LISTED_SUSPECTS) this.#suspects.push(source ? { ...s, path: source.path, line: source.line } : s);
    }
    this.#pending = NO_ISSUES;
  }

  /** True when no structure record or link was added. */
  get isEmpty(): boolean {
    return RECORD_KIND_ORDER.every((kind) => this.count(kind) === 0);
  }

  #spill(kind: RecordKind): RecordSpill {
    let s = this.#spills.get(kind);
    if (!s) {
      s = new RecordSpill(join(this.#dir, RECORD_KINDS[kind].spillName), this.#background);
      this.#spills.set(kind, s);
    }
    return s;
  }

  /** Number of records of `kind` added so far. */
  count(kind: RecordKind): number {
    return this.#plans[kind].first.length;
  }

  /**
   * Validates and stores one record of `kind`: reads, checks and serialises it in one pass, then
   * resolves its identity and references to dense ids in its columns and appends its line to the
   * kind's spill. A record's id must be free; a relation's pair must be new; a chunk's
   * `(document_id, ordinal)` must be new. Nothing is stored when anything is refused.
   * @throws OctxError
   */
  add(kind: RecordKind, input: unknown): void {
    assertRecordKind(kind);
    const read = this.#take(kind, input);
    const plan = this.#plans[kind];
    const { row, fields } = plan;
    const values = read.values;
    const dense = this.#dense;
    const defines = row.defines === undefined ? undefined : IdKind[row.defines];
    for (let f = 0; f < fields.length; f++) {
      const field = fields[f]!;
      if (field.as === 'id') this.#ids.assertFree(values[field.at] as string, defines!);
      else if (field.as === 'ref') dense[field.at] = values[field.at] === undefined ? -1 : this.#ids.ref(values[field.at] as string);
      else if ((values[field.at] as number | undefined) !== undefined && (values[field.at] as number) > INT32_MAX) {
        // The one integer column (an event's level) holds 32 bits: a larger value is refused, never
        // narrowed. A level is a depth in the hierarchy, and no hierarchy is that deep.
        throw OctxError.of({
          code: 'OCTX_EVENT_LEVEL_INVALID',
          recordId: typeof values[0] === 'string' ? values[0] : undefined,
          field: 'level',
          message: `${kind} ${String(values[0])}: level ${String(values[field.at])} is deeper than any event hierarchy can be (at most ${INT32_MAX}); it can never be its parent's level + 1`,
        });
      }
    }
    if (plan.ends !== undefined) {
      const [a, b] = plan.ends;
      if (plan.pairs!.has(dense[a]!, dense[b]!)) {
        const [firstName, secondName] = plan.endNames!;
        throw OctxError.of({
          code: row.duplicateCode!,
          recordId: values[a] as string,
          field: secondName,
          message: `${row.references[firstName]!} ${values[a] as string} is already linked to ${row.references[secondName]!} ${values[b] as string}`,
        });
      }
      assertRoom(plan.first, kind);
    }
    const wide = kind === 'chunk' ? this.#chunkOrdinalCheck(values, dense[this.#documentAt]!) : undefined;
    const row0 = plan.first.length;
    for (let f = 0; f < fields.length; f++) {
      const field = fields[f]!;
      const v = values[field.at];
      if (field.as === 'id') field.column.push(this.#ids.define(v as string, defines!, row0));
      else if (field.as === 'ref') field.column.push(dense[field.at]!);
      else field.column.push(v === undefined ? 0 : (v as number));
    }
    if (plan.pairs !== undefined) plan.pairs.add(row0);
    if (kind === 'chunk') this.#storeChunkOrdinal(values[this.#ordinalAt] as number, row0, wide);
    this.#spill(kind).append(read.line);
    this.#stored();
  }

  /**
   * Refuses a chunk whose document already has its ordinal; returns the side-set key of an
   * ordinal too large for the column.
   * @throws OctxError `OCTX_CHUNK_ORDINAL_DUPLICATE`
   */
  #chunkOrdinalCheck(values: readonly unknown[], doc: number): string | undefined {
    const ordinal = values[this.#ordinalAt] as number;
    const wide = ordinal > MAX_COLUMN_ORDINAL ? `${doc}:${ordinal}` : undefined;
    if (wide === undefined ? this.#ordinals.has(doc, ordinal) : this.#wideOrdinals.has(wide)) {
      throw OctxError.of({
        code: 'OCTX_CHUNK_ORDINAL_DUPLICATE',
        recordId: values[fieldPosition('chunk', 'id')] as string,
        field: 'ordinal',
        message: `document ${values[this.#documentAt] as string} already has a chunk with ordinal ${ordinal}`,
      });
    }
    return wide;
  }

  #storeChunkOrdinal(ordinal: number, row: number, wide: string | undefined): void {
    this.#chunkOrdinal.push(wide === undefined ? ordinal : -1);
    if (wide === undefined) this.#ordinals.add(row);
    else this.#wideOrdinals.add(wide);
  }

  /**
   * Freezes the structure layer as it stands: flushes every spill and returns each JSONL file with
   * its size, SHA-256, line count and longest line (a kind without records gets an empty file, a
   * valid JSONL file with zero records), the reference columns up to the records added so far, and
   * their field warnings. Nothing is copied but the warnings: the columns and files only grow, so
   * views that end here keep describing exactly these records while more are added. The spills
   * stay open: a refused export leaves the builder usable.
   */
  freeze(): StructureSnapshot {
    const files = {} as Record<RecordKind, SpillSnapshot>;
    for (const kind of RECORD_KIND_ORDER) {
      const spill = this.#spill(kind);
      const entry = spill.snapshot();
      const { size, sha256 } = entry;
      files[kind] = { file: spill.file, size, sha256, lines: spill.lines, maxLineBytes: spill.maxLineBytes, entry };
    }
    // view(): rows below a column's length are never rewritten, and a later push that grows the
    // column moves it to a new array, so these subarrays stay exactly as they are now.
    const columns = Object.fromEntries(COLUMN_NAMES.map((name) => [name, this.columns[name].view()])) as unknown as StructureColumns;
    return Object.freeze({
      ...columns,
      files: Object.freeze(files),
      fieldWarnings: Object.freeze([...this.fieldWarnings]),
      whiteSpaceText: Object.freeze([...this.whiteSpaceTextWarnings]),
      isEmpty: this.isEmpty,
    });
  }

  /** Closes spill descriptors after a failure. */
  close(): void {
    for (const s of this.#spills.values()) s.close();
  }

  /** Path of the spill file of a kind (for readers such as the embedding hook). */
  spillFile(kind: RecordKind): string {
    this.#spill(kind).flush();
    return join(this.#dir, RECORD_KINDS[kind].spillName);
  }
}

/** The `OCTX_RECORD_TEXT_BLANK` warnings of a record read with white space taken (usually none). */
function whiteSpaceIssues(kind: RecordKind, read: RecordRead, consumer: string): readonly OctxIssue[] {
  const fields = whiteSpaceFields(kind, read);
  if (fields.length === 0) return NO_ISSUES;
  const id = read.values[fieldPosition(kind, RECORD_KINDS[kind].recordIdField)];
  const recordId = typeof id === 'string' ? id : undefined;
  return fields.map(([field, value]) => whiteSpaceTextWarning(kind, field, value, recordId, consumer));
}
