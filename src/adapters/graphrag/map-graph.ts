/**
 * GraphRAG entities and relationships → OCTX entities and events. GraphRAG names entities by
 * `title` in its relationships, so entities are read first and looked up by title. A
 * relationship becomes one event: its description is the content (an empty one — GraphRAG's
 * "fast"/NLP indexing — gets the stated fallback `<source> is related to <target>.`), its title
 * is `<source> → <target>`, it is linked to the chunks of its `text_unit_ids` and to its typed
 * endpoints (the link says which end). An entity becomes a record only once an event links it.
 */
import { basename } from 'node:path';
import type { EventRecord } from '../../model/records.js';
import type { JsonValue } from '../../model/json.js';
import { forEachRow, IntColumn, digestOf, KeyOccurrences, rowLabel, rowProblem, Sampler, text, textList, type MapContext, type Row } from './map-context.js';
import { presentColumns, TABLE_COLUMNS } from './layout.js';
import type { IdRegistry } from './id-registry.js';
import type { ParquetTable } from './parquet/parquet-table.js';
import type { TextUnits } from './map-documents.js';

/** An event this adapter writes: GraphRAG data without a place in the format sits under `x-graphrag`. */
export interface GraphRagEvent extends EventRecord {
  readonly 'x-graphrag'?: Readonly<Record<string, JsonValue>>;
}

/** The entities, by dense index (their row order). */
export interface Entities {
  /** Title → dense index. */
  readonly byTitle: Map<string, number>;
  /** GraphRAG id → dense index. */
  readonly byId: Map<string, number>;
  readonly titles: string[];
  /** Empty: untyped (never exported). */
  readonly types: string[];
  readonly descriptions: (string | undefined)[];
  /** Row of each entity in its table. */
  readonly rows: IntColumn;
  /** The OCTX id, minted when an event first links the entity. */
  readonly octxIds: (string | undefined)[];
  readonly file: ParquetTable;
}

/** What the structure steps share: the text units, the entities and which text units an event covers. */
export interface Graph {
  readonly units: TextUnits;
  readonly entities: Entities;
  /** Per text unit: 1 once a relationship event covers it, 2 once any other event does. */
  readonly covered: Uint8Array;
  counts: { events: number; chunkEvents: number; eventEntities: number };
}

/** Reads the entities (titles must be unique: relationships name entities by title). Untyped ones are counted, never exported. */
export async function readEntities(ctx: MapContext, table: ParquetTable, ids: IdRegistry, untyped: Sampler): Promise<Entities> {
  const entities: Entities = { byTitle: new Map(), byId: new Map(), titles: [], types: [], descriptions: [], rows: new IntColumn(), octxIds: [], file: table };
  ids.own('entities', entities.byId, table.path);
  const columns = presentColumns(table, TABLE_COLUMNS.entities).filter((c) => c !== 'text_unit_ids');
  await forEachRow(ctx, table, columns, 'entities', (row) => {
    const id = text(row, 'id');
    const title = text(row, 'title');
    if (id === undefined || id === '') return void ctx.problems.push(rowProblem(table, row, 'id', 'an entity without an id'));
    if (!ids.claim('entities', id, table, row)) return;
    if (title === undefined || title.trim() === '')
      return void ctx.problems.push(rowProblem(table, row, 'title', 'an entity without a title (relationships name entities by title)'));
    const first = entities.byTitle.get(title);
    if (first !== undefined) {
      return void ctx.problems.push(
        rowProblem(
          table,
          row,
          'title',
          `the title ${JSON.stringify(title)} is already the title of row ${entities.rows.get(first)}; relationships name entities by title, so titles must be unique`,
        ),
      );
    }
    const type = (text(row, 'type') ?? '').trim();
    const description = text(row, 'description');
    const e = entities.titles.length;
    entities.byTitle.set(title, e);
    entities.byId.set(id, e);
    entities.titles.push(title);
    entities.types.push(type);
    entities.descriptions.push(description !== undefined && description.trim() !== '' ? description : undefined);
    entities.rows.push(row.index);
    entities.octxIds.push(undefined);
    if (type === '') untyped.add(rowLabel(table, row, title));
  });
  return entities;
}

/** The OCTX id of an entity, minted (keyed by title and type) when first linked. */
export function entityId(ctx: MapContext, entities: Entities, e: number): string {
  let id = entities.octxIds[e];
  if (id === undefined) {
    id = ctx.builder.ids.entity(`graphrag:entity:${JSON.stringify([entities.titles[e], entities.types[e]])}`);
    entities.octxIds[e] = id;
  }
  return id;
}

/** Adds an event with its chunk links and its entity links (each with its role), and checks them for the consumer. */
export function addEvent(
  ctx: MapContext,
  graph: Graph,
  event: GraphRagEvent,
  units: readonly number[],
  linked: readonly { readonly entity: number; readonly role: string; readonly weight?: number }[],
  source: { readonly file: ParquetTable; readonly row: number; readonly label: string },
): void {
  const { builder } = ctx;
  builder.addEvent<GraphRagEvent>(event);
  ctx.consumer?.check('event', event as unknown as Readonly<Record<string, unknown>>, source.file.path, source.row, source.label);
  for (const u of units) {
    builder.linkChunkEvent({ chunk_id: graph.units.chunkIds.get(u), event_id: event.id });
    if (graph.covered[u] === 0) graph.covered[u] = 2;
  }
  for (const l of linked) {
    const link = { event_id: event.id, entity_id: entityId(ctx, graph.entities, l.entity), ...(l.weight !== undefined ? { weight: l.weight } : {}), description: l.role };
    builder.linkEventEntity(link);
    ctx.consumer?.check('event-entity', link, source.file.path, source.row, source.label);
  }
  graph.counts.events++;
  graph.counts.chunkEvents += units.length;
  graph.counts.eventEntities += linked.length;
}

/** The dense indexes of the text units a row names (known ones, each once, in the row's order); `unknown` counts the others. */
export function unitsOf(units: TextUnits, named: readonly string[]): { known: number[]; unknown: number } {
  const known: number[] = [];
  let unknown = 0;
  for (const id of named) {
    const u = units.index.get(id);
    if (u === undefined) unknown++;
    else if (!known.includes(u)) known.push(u);
  }
  return { known, unknown };
}

/** What the relationship step left out. */
export interface RelationshipOutcome {
  readonly fromRelationships: number;
  readonly emptyDescriptions: number;
  readonly unknownEndpoint: Sampler;
  readonly withoutTypedEntity: Sampler;
  readonly withoutTextUnit: Sampler;
  /** Text unit ids named by relationships that are not in the text units table. */
  readonly unknownTextUnits: number;
}

/** Maps every relationship to an event (see the module comment). */
export async function mapRelationships(ctx: MapContext, table: ParquetTable, ids: IdRegistry, graph: Graph, weightOnLinks: boolean): Promise<RelationshipOutcome> {
  const { entities, units } = graph;
  const out = {
    fromRelationships: 0,
    emptyDescriptions: 0,
    unknownEndpoint: new Sampler(),
    withoutTypedEntity: new Sampler(),
    withoutTextUnit: new Sampler(),
    unknownTextUnits: 0,
  };
  const occurrences = new KeyOccurrences();
  const columns = presentColumns(table, TABLE_COLUMNS.relationships);
  await forEachRow(ctx, table, columns, 'relationships', (row: Row) => {
    const id = text(row, 'id');
    if (id !== undefined && !ids.claim('relationships', id, table, row)) return;
    const source = text(row, 'source') ?? '';
    const target = text(row, 'target') ?? '';
    const label = rowLabel(table, row, `${source} → ${target}`);
    const s = entities.byTitle.get(source);
    const t = entities.byTitle.get(target);
    if (s === undefined || t === undefined) {
      const missing = [s === undefined ? source : undefined, t === undefined && target !== source ? target : undefined].filter((x) => x !== undefined);
      return out.unknownEndpoint.add(`${label} names ${missing.map((m) => JSON.stringify(m)).join(' and ')}, which ${missing.length > 1 ? 'are' : 'is'} no entity title`);
    }
    const ends = (
      s === t
        ? [{ entity: s, role: 'source and target' }]
        : [
            { entity: s, role: 'source' },
            { entity: t, role: 'target' },
          ]
    ).filter((l) => entities.types[l.entity] !== '');
    if (ends.length === 0) return out.withoutTypedEntity.add(label);
    const { known, unknown } = unitsOf(units, textList(row, 'text_unit_ids'));
    out.unknownTextUnits += unknown;
    if (known.length === 0) return out.withoutTextUnit.add(label);
    const description = text(row, 'description') ?? '';
    const empty = description.trim() === '';
    if (empty) out.emptyDescriptions++;
    const weight = row.get('weight');
    const w = typeof weight === 'number' && Number.isFinite(weight) ? weight : undefined;
    const event: GraphRagEvent = {
      id: ctx.builder.ids.event(occurrences.next(`graphrag:relationship:${digestOf([source, target, description])}`)),
      title: `${source} → ${target}`,
      content: empty ? `${source} is related to ${target}.` : description,
      category: 'relationship',
      ...(w !== undefined ? { 'x-graphrag': { weight: w } } : {}),
    };
    const linked = ends.map((l) => (weightOnLinks && w !== undefined ? { ...l, weight: w } : l));
    addEvent(ctx, graph, event, known, linked, { file: table, row: row.index, label });
    for (const u of known) graph.covered[u] = 1;
    out.fromRelationships++;
  });
  if (out.unknownTextUnits > 0)
    ctx.warnings.push(`${basename(table.path)}: ${out.unknownTextUnits} text unit id(s) named by relationships are not in the text units table; those links were left out`);
  return out;
}
