/**
 * The rest of the structure: claims (GraphRAG's covariates) → events, text units that are in no
 * relationship → one event recording the entities they mention, and the entities that some event
 * links → entity records. A claim's event takes `start_time`/`end_time` from `start_date`/
 * `end_date` when they are dates (GraphRAG writes `NONE` otherwise), and links its text unit and
 * the typed entities it names (its subject and object, by title) — or, when it names none, the
 * typed entities of its text unit. Nothing is invented: a text unit with no typed entity gets no
 * event, and a claim with no entity at all is left out.
 */
import { basename } from 'node:path';
import type { JsonValue } from '../../model/json.js';
import { addEvent, unitsOf, type Graph, type GraphRagEvent } from './map-graph.js';
import { digestOf, forEachRow, KeyOccurrences, rowLabel, Sampler, text, textList, type MapContext } from './map-context.js';
import { presentColumns, TABLE_COLUMNS } from './layout.js';
import type { IdRegistry } from './id-registry.js';
import type { ParquetTable } from './parquet/parquet-table.js';
import type { DocumentEntry } from './map-documents.js';

/** A claim event waiting for its text unit's entities. */
interface PendingClaim {
  readonly event: GraphRagEvent;
  readonly unit: number;
  readonly file: ParquetTable;
  readonly row: number;
  readonly label: string;
}

/** What the claims step did and left for the mention step. */
export interface ClaimOutcome {
  fromClaims: number;
  readonly withoutTextUnit: Sampler;
  readonly withoutEntity: Sampler;
  readonly pending: PendingClaim[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(?:\d{3}|\d{6}))?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * `value` when it is an ISO 8601 date or date-time that names a real day and time (what Python's
 * `datetime.fromisoformat`, and so SAG, reads); otherwise `undefined` (`NONE`, free text).
 */
export function claimDate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const m = DATE.exec(value.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  const real = y >= 1 && t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d && h < 24 && mi < 60 && s < 60;
  return real ? value.trim() : undefined;
}

/** Maps every claim to an event (see the module comment); claims naming no typed entity wait for the mention step. */
export async function mapClaims(ctx: MapContext, table: ParquetTable, ids: IdRegistry, graph: Graph): Promise<ClaimOutcome> {
  const { entities, units } = graph;
  const out: ClaimOutcome = { fromClaims: 0, withoutTextUnit: new Sampler(), withoutEntity: new Sampler(), pending: [] };
  const occurrences = new KeyOccurrences();
  const columns = [...presentColumns(table, TABLE_COLUMNS.covariates)];
  await forEachRow(ctx, table, columns, 'claims', (row) => {
    const id = text(row, 'id');
    if (id !== undefined && !ids.claim('covariates', id, table, row)) return;
    const type = (text(row, 'type') ?? '').trim() || 'CLAIM';
    const subject = (text(row, 'subject_id') ?? '').trim();
    const object = (text(row, 'object_id') ?? '').trim();
    const named = [subject, object].filter((n) => n !== '' && n.toUpperCase() !== 'NONE');
    const title = `${type}: ${named.join(' → ') || 'unnamed subject'}`;
    const label = rowLabel(table, row, title);
    const unitId = text(row, 'text_unit_id');
    const { known } = unitsOf(units, unitId !== undefined ? [unitId] : []);
    if (known.length === 0) return out.withoutTextUnit.add(label);
    const status = (text(row, 'status') ?? '').trim();
    const description = (text(row, 'description') ?? '').trim();
    const start = claimDate(text(row, 'start_date'));
    const end = claimDate(text(row, 'end_date'));
    const raw: Record<string, JsonValue> = {};
    if (status !== '') raw.status = status;
    for (const [field, value, parsed] of [
      ['start_date', text(row, 'start_date'), start],
      ['end_date', text(row, 'end_date'), end],
    ] as const) {
      if (parsed === undefined && value !== undefined && value.trim() !== '' && value.trim().toUpperCase() !== 'NONE') raw[field] = value;
    }
    const sourceText = text(row, 'source_text');
    if (sourceText !== undefined && sourceText.trim() !== '') raw.source_text = sourceText;
    const event: GraphRagEvent & { start_time?: string; end_time?: string } = {
      id: ctx.builder.ids.event(occurrences.next(`graphrag:claim:${digestOf([type, subject, object, description, units.chunkIds.get(known[0]!)])}`)),
      title,
      content: description !== '' ? description : `${type} claim about ${named.join(' and ') || 'an unnamed subject'}${status !== '' ? ` (status ${status})` : ''}.`,
      category: 'claim',
      ...(start !== undefined ? { start_time: start } : {}),
      ...(end !== undefined ? { end_time: end } : {}),
      ...(Object.keys(raw).length > 0 ? { 'x-graphrag': raw } : {}),
    };
    const linked = named
      .map((n, i) => ({ entity: entities.byTitle.get(n), role: i === 0 && subject !== '' && subject.toUpperCase() !== 'NONE' ? 'subject' : 'object' }))
      .filter((l): l is { entity: number; role: string } => l.entity !== undefined && entities.types[l.entity] !== '');
    const unique = linked.filter((l, i) => linked.findIndex((o) => o.entity === l.entity) === i);
    if (unique.length === 0) return void out.pending.push({ event, unit: known[0]!, file: table, row: row.index, label });
    addEvent(ctx, graph, event, known, unique, { file: table, row: row.index, label });
    out.fromClaims++;
  });
  return out;
}

/**
 * The typed entities of the text units that need them (no relationship event, or a claim waiting
 * for its text unit's entities), from the entities' `text_unit_ids` (read again, that column only).
 */
async function entitiesOfUnits(ctx: MapContext, graph: Graph, need: Uint8Array): Promise<Map<number, number[]>> {
  const { entities, units } = graph;
  const perUnit = new Map<number, number[]>();
  await forEachRow(ctx, entities.file, ['id', 'text_unit_ids'], 'entity mentions', (row) => {
    const id = text(row, 'id');
    const e = id !== undefined ? entities.byId.get(id) : undefined;
    if (e === undefined || entities.types[e] === '' || entities.rows.get(e) !== row.index) return;
    for (const unitId of textList(row, 'text_unit_ids')) {
      const u = units.index.get(unitId);
      if (u === undefined || need[u] === 0) continue;
      const list = perUnit.get(u);
      if (list === undefined) perUnit.set(u, [e]);
      else if (!list.includes(e)) list.push(e);
    }
  });
  return perUnit;
}

/** What the mention step did. */
export interface MentionOutcome {
  readonly mentions: number;
  /** Text units that no event covers (no typed entity at all). */
  readonly textUnitsWithoutEntity: Sampler;
}

/**
 * One event per text unit that is in no relationship but mentions typed entities; the waiting
 * claims get their text unit's entities. Then every text unit no event covers is listed.
 */
export async function mapMentions(ctx: MapContext, graph: Graph, claims: ClaimOutcome, documents: readonly DocumentEntry[], unitsFile: ParquetTable): Promise<MentionOutcome> {
  const { units } = graph;
  const need = new Uint8Array(units.ids.length);
  for (let u = 0; u < need.length; u++) if (graph.covered[u] !== 1) need[u] = 1;
  for (const p of claims.pending) need[p.unit] = 1;
  const perUnit = await entitiesOfUnits(ctx, graph, need);
  for (const p of claims.pending) {
    const found = perUnit.get(p.unit) ?? [];
    if (found.length === 0) {
      claims.withoutEntity.add(p.label);
      continue;
    }
    addEvent(
      ctx,
      graph,
      p.event,
      [p.unit],
      found.map((entity) => ({ entity, role: 'mentioned with the claim' })),
      { file: p.file, row: p.row, label: p.label },
    );
    claims.fromClaims++;
  }
  let mentions = 0;
  for (let u = 0; u < units.ids.length; u++) {
    if (graph.covered[u] === 1) continue;
    const found = perUnit.get(u);
    if (found === undefined || found.length === 0) continue;
    const document = documents[units.documentOf.get(u)]!;
    const part = units.ordinal.get(u) + 1;
    const where = document.title !== '' ? document.title : document.path;
    const names = found.map((e) => graph.entities.titles[e]!);
    const event: GraphRagEvent = {
      id: ctx.builder.ids.event(`graphrag:mention:${units.chunkIds.get(u)}`),
      title: `Entities mentioned in ${where}, part ${part}`,
      content: `Part ${part} of ${where} mentions ${names.join(', ')}.`,
      category: 'mention',
    };
    addEvent(
      ctx,
      graph,
      event,
      [u],
      found.map((entity) => ({ entity, role: 'mentioned' })),
      { file: unitsFile, row: u, label: `${basename(unitsFile.path)} id ${units.ids[u]}` },
    );
    mentions++;
  }
  const textUnitsWithoutEntity = new Sampler();
  for (let u = 0; u < units.ids.length; u++) if (graph.covered[u] === 0) textUnitsWithoutEntity.add(`${basename(unitsFile.path)} id ${units.ids[u]}`);
  return { mentions, textUnitsWithoutEntity };
}

/** Adds every entity some event links, and counts the typed ones none does. */
export function addEntities(ctx: MapContext, graph: Graph, withoutEvent: Sampler): number {
  const { entities } = graph;
  let count = 0;
  for (let e = 0; e < entities.titles.length; e++) {
    const id = entities.octxIds[e];
    if (id === undefined) {
      if (entities.types[e] !== '') withoutEvent.add(`${basename(entities.file.path)} row ${entities.rows.get(e)} ("${entities.titles[e]}")`);
      continue;
    }
    const description = entities.descriptions[e];
    const record = { id, name: entities.titles[e]!, type: entities.types[e]!, ...(description !== undefined ? { description } : {}) };
    ctx.builder.addEntity(record);
    ctx.consumer?.check('entity', record, entities.file.path, entities.rows.get(e), `${basename(entities.file.path)} row ${entities.rows.get(e)} ("${entities.titles[e]}")`);
    count++;
  }
  return count;
}
