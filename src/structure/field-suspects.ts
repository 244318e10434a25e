import { issue, type OctxIssue } from '../model/errors.js';
import { editDistance, snakeCase } from '../model/edit-distance.js';
import { RECORD_KINDS, knownFields, type RecordKind } from '../model/record-kinds.js';

/**
 * How far a spelling may be from a known field name and still count as a typo of it: a short
 * name tolerates less (`ts` is two edits from `id`, and `test` one from `text`, without being typos).
 */
function tolerance(known: string): number {
  return known.length <= 3 ? 0 : known.length <= 5 ? 1 : 2;
}

/**
 * The known field an unknown field name most likely misspells: the same name in snake case
 * (`parentId`, `parent-id`, `Parent_ID` → `parent_id`), or a known name within a small
 * Damerau-Levenshtein distance (`sumary` → `summary`; up to 2 edits, fewer for short names).
 * Only known fields the record lacks are candidates: `names` beside `name` is not a typo.
 */
export function likelyField(kind: RecordKind, field: string, present: (known: string) => boolean): string | undefined {
  const spelled = snakeCase(field);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const known of knownFields(kind)) {
    if (present(known)) continue;
    if (spelled === known) return known;
    const max = tolerance(known);
    const d = editDistance(spelled, known, max);
    if (d <= max && d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * `OCTX_RECORD_FIELD_SUSPECT` warnings for the unknown fields of one record that look like a
 * misspelt known field (each names the record, the field and the likely one). Runs only on
 * records that carry unknown fields, so the usual record costs nothing.
 */
export function suspectFieldIssues(kind: RecordKind, record: Readonly<Record<string, unknown>>, unknownFields: readonly string[]): OctxIssue[] {
  const out: OctxIssue[] = [];
  const idField = RECORD_KINDS[kind].recordIdField;
  const id = record[idField];
  const recordId = typeof id === 'string' ? id : undefined;
  for (const field of unknownFields) {
    const likely = likelyField(kind, field, (known) => record[known] !== undefined);
    if (likely === undefined) continue;
    out.push(
      issue({
        code: 'OCTX_RECORD_FIELD_SUSPECT',
        severity: 'warning',
        path: RECORD_KINDS[kind].path,
        ...(recordId !== undefined ? { recordId } : {}),
        field,
        message: `${kind} field "${field}" is not a known field; did you mean "${likely}"? It is kept as an extra field and "${likely}" stays unset`,
      }),
    );
  }
  return out;
}
