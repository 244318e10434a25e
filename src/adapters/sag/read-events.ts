/**
 * `source_event` → events: the non-deleted events of exported articles at their generation, with
 * `level` recomputed from the kept parent chain, and SAG's datetime columns as ISO 8601.
 */
import { issue } from '../../model/errors.js';
import { ArticleRowSieve, LIST, parseExtra, selectSourceRows, str, text, type Row, type RowTally } from './sag-rows.js';
import type { SagSourceScope } from './source-scope.js';

/**
 * A datetime column as SAG's exporter writes it: naive ISO 8601 to the second
 * (`2026-07-01 10:00:00.123456` → `2026-07-01T10:00:00`; SQLAlchemy stores microseconds, SAG
 * writes seconds). An offset, when a value has one, is kept; a number is read as Unix time (UTC).
 */
export function sagTime(v: unknown): string | undefined {
  if (v === null || v === undefined || v === '') return undefined;
  if (typeof v === 'string') {
    const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:[.,]\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(v.trim());
    if (!m) return v;
    return `${m[1]}T${m[2] ?? '00'}:${m[3] ?? '00'}:${m[4] ?? '00'}${m[5] ?? ''}`;
  }
  if (typeof v === 'number' || typeof v === 'bigint') {
    const n = Number(v);
    return new Date(n > 1e11 ? n : n * 1000).toISOString().slice(0, 19);
  }
  return undefined;
}

/** A kept `source_event` row with its parsed `extra_data`. */
export type EventRow = Row & { extra: unknown };

/** What {@link readEvents} made of the source's events. */
export interface SagEvents extends RowTally {
  /** The non-deleted events of exported articles, by local id. */
  readonly kept: Map<string, EventRow>;
  /** Local event id → OCTX event id. */
  readonly eventOf: Map<string, string>;
  readonly eventRecords: { level: number; localId: string; record: Record<string, unknown> }[];
  readonly softDeleted: number;
  readonly otherArticles: number;
  readonly otherGenerations: number;
  readonly detachedFromParent: string[];
}

/**
 * Maps the source's non-deleted `source_event` rows of exported articles to event records, with
 * `level` recomputed from the kept parent chain (a parent that is not exported detaches the
 * event). Loops, empty titles and empty contents are added to `problems`; no title is copied
 * into content.
 */
export function readEvents(scope: SagSourceScope): SagEvents {
  const { db, dbPath, schema, sourceId, documentOf, generations, exchange, problems } = scope;
  const eventRows = selectSourceRows(
    db,
    schema,
    'source_event',
    { required: ['id', 'article_id', 'title'], optional: ['summary', 'content', 'category', 'status', 'parent_id', 'start_time', 'end_time', 'chunk_id', 'extra_data'] },
    'id',
    sourceId,
  );
  const sieve = new ArticleRowSieve(documentOf, generations);
  let softDeleted = 0;
  const kept = new Map<string, EventRow>();
  for (const e of eventRows) {
    const article = sieve.article(e, false);
    if (article === undefined) continue;
    // SAG's not_deleted(): status IS NULL OR status != 'DELETED' — exactly, case-sensitive.
    if (str(e.status) === 'DELETED') {
      softDeleted++;
      continue;
    }
    sieve.kept(article, e);
    kept.set(String(e.id), { ...e, extra: parseExtra(e.extra_data) });
  }
  const { level, cycles } = eventLevels(kept);
  if (cycles.length > 0)
    problems.push(
      issue({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        field: 'source_event.parent_id',
        message: `the parent chain of event(s) ${cycles.slice(0, LIST).join(', ')} loops`,
      }),
    );

  const eventOf = new Map<string, string>();
  for (const [localId, e] of kept) eventOf.set(localId, exchange('event', localId, e.extra));
  const detachedFromParent: string[] = [];
  const eventRecords: { level: number; localId: string; record: Record<string, unknown> }[] = [];
  for (const [localId, e] of kept) {
    const extraOctx = (e.extra as { octx?: { original_title?: unknown } } | undefined)?.octx;
    const originalTitle = typeof extraOctx?.original_title === 'string' && extraOctx.original_title.trim() !== '' ? extraOctx.original_title : undefined;
    const title = originalTitle ?? text(e.title);
    const content = text(e.content).trim() || text(e.summary).trim();
    if (title.trim() === '')
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          path: dbPath,
          recordId: localId,
          field: 'source_event.title',
          message: `event ${localId} has an empty title; re-extract its article`,
        }),
      );
    if (content === '') {
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          path: dbPath,
          recordId: localId,
          field: 'source_event.content',
          message: `event ${localId} has neither content nor summary (SAG's exporter would copy the title into content; octx-export does not invent text); re-extract its article`,
        }),
      );
    }
    const id = eventOf.get(localId)!;
    const parentLocal = str(e.parent_id);
    const l = level.get(localId)!;
    if (parentLocal !== undefined && !kept.has(parentLocal)) detachedFromParent.push(id);
    const summary = text(e.summary).trim();
    const category = text(e.category).trim();
    const start = sagTime(e.start_time);
    const end = sagTime(e.end_time);
    eventRecords.push({
      level: l,
      localId,
      record: {
        id,
        title,
        content,
        ...(summary !== '' ? { summary } : {}),
        ...(category !== '' ? { category } : {}),
        ...(l > 0 ? { parent_id: eventOf.get(parentLocal!)!, level: l } : {}),
        ...(start !== undefined ? { start_time: start } : {}),
        ...(end !== undefined ? { end_time: end } : {}),
      },
    });
  }
  const { otherArticles, otherGenerations, keptPerArticle, generationsPerArticle } = sieve;
  return { kept, eventOf, eventRecords, softDeleted, otherArticles, otherGenerations, detachedFromParent, keptPerArticle, generationsPerArticle };
}

/**
 * Levels from the kept parent chain: 0 for an event whose parent is absent or not kept, else
 * the parent's level + 1. An event on a loop gets 0 and is listed in `cycles`.
 */
function eventLevels(kept: ReadonlyMap<string, EventRow>): { level: Map<string, number>; cycles: string[] } {
  const level = new Map<string, number>();
  const cycles: string[] = [];
  const levelOf = (id: string, seen: Set<string>): number => {
    const known = level.get(id);
    if (known !== undefined) return known;
    const parent = str(kept.get(id)!.parent_id);
    if (parent === undefined || !kept.has(parent)) {
      level.set(id, 0);
      return 0;
    }
    if (seen.has(parent)) {
      cycles.push(id);
      level.set(id, 0);
      return 0;
    }
    seen.add(id);
    const l = levelOf(parent, seen) + 1;
    level.set(id, l);
    return l;
  };
  for (const id of kept.keys()) levelOf(id, new Set([id]));
  return { level, cycles };
}
