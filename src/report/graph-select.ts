/**
 * Which part of the entity graph the page draws, and what it says about each drawn node. Events
 * and entities are the nodes, event-entity links the edges. Past the node budget, the entities of
 * highest degree and the events most linked to them are drawn (see {@link chooseNodes}; ties in
 * file order, so the choice is the same every time); past the edge budget, the first links in
 * file order among them. Then one more pass per file
 * reads only what the drawn nodes need: event titles, entity names, the first chunks of each
 * drawn event.
 */
import { IdKind } from '../model/id-kind.js';
import type { OctxPackage } from '../read/open-package.js';
import type { IdSpace } from '../read/id-space.js';
import type { DocumentTable } from './collect-documents.js';
import { eachRecord, refField, text, type StructureTables } from './collect-structure.js';

/** Chunks listed per drawn event. */
const CHUNKS_PER_EVENT = 10;
/** Longest label kept. */
const MAX_LABEL = 200;

/** Budgets of the graph. */
export interface GraphBudgets {
  readonly maxNodes: number;
  readonly maxEdges: number;
  /** Entities listed in the top-by-degree table. */
  readonly topEntities: number;
}

/** The drawn part of the graph, before layout. */
export interface SelectedGraph {
  /** Node i: kind and index of its record. */
  readonly kinds: ('event' | 'entity')[];
  readonly records: number[];
  readonly ids: string[];
  readonly labels: string[];
  readonly degrees: number[];
  /** Entity type index (-1 for events and types past the budget). */
  readonly typeOf: number[];
  readonly edges: [number, number][];
  readonly edgesAmongNodes: number;
  /** Per node of an event: `[document row, ordinal]` of its first chunks, and its chunk links in all. */
  readonly chunks: Map<number, [number, number][]>;
  /** The top entities by degree (`[name, type index, degree]`). */
  readonly topEntities: [string, number, number][];
}

const clip = (s: string): string => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL)}…` : s);

/** The indices of the `n` largest of `keys` (descending; ties by `tie`, descending, then index), among `keep`. */
function topIndices(keys: ArrayLike<number>, n: number, tie: ArrayLike<number> = keys, keep: (i: number) => boolean = () => true): number[] {
  const all: number[] = [];
  for (let i = 0; i < keys.length; i++) if (keep(i)) all.push(i);
  all.sort((a, b) => keys[b]! - keys[a]! || tie[b]! - tie[a]! || a - b);
  return all.slice(0, n);
}

/** Share of the node budget given first to entities, when the graph is larger than the budget. */
const ENTITY_SHARE = 0.4;

/**
 * The drawn nodes, as candidates (entity i is i, event j is `entityCount + j`), ascending. All of
 * them within the budget. Past it, the graph is bipartite — a node's neighbours are all of the
 * other kind — so the top nodes by degree alone could all be entities with no edge among them
 * (a 1M-chunk corpus: every entity has more links than any event). So: the entities of highest
 * degree take up to {@link ENTITY_SHARE} of the budget, then the events most linked to them (one
 * more pass over the links), then more entities, then more events, by degree, while room is left.
 */
async function chooseNodes(pkg: OctxPackage, ids: IdSpace, t: StructureTables, max: number): Promise<number[]> {
  const eventCount = t.entitiesPerEvent.length;
  const entityCount = t.eventsPerEntity.length;
  if (eventCount + entityCount <= max) return Array.from({ length: eventCount + entityCount }, (_, i) => i);
  const entities = topIndices(t.eventsPerEntity, eventCount === 0 ? max : Math.min(entityCount, Math.ceil(max * ENTITY_SHARE)));
  const chosenEntity = new Uint8Array(entityCount);
  for (const n of entities) chosenEntity[n] = 1;
  const linksIn = new Uint32Array(eventCount);
  const eeEvent = refField('event-entity', 'event');
  const eeEntity = refField('event-entity', 'entity');
  await eachRecord(pkg, 'event-entity', [], (r) => {
    const n = ids.indexOf(text(r, eeEntity) ?? '', IdKind.entity);
    if (n < 0 || chosenEntity[n] === 0) return;
    const e = ids.indexOf(text(r, eeEvent) ?? '', IdKind.event);
    if (e >= 0) linksIn[e]!++;
  });
  const events = topIndices(linksIn, max - entities.length, t.entitiesPerEvent, (e) => linksIn[e]! > 0);
  const chosenEvent = new Uint8Array(eventCount);
  for (const e of events) chosenEvent[e] = 1;
  let room = max - entities.length - events.length;
  if (room > 0) {
    const more = topIndices(t.eventsPerEntity, room, t.eventsPerEntity, (n) => chosenEntity[n] === 0);
    entities.push(...more);
    room -= more.length;
  }
  if (room > 0) events.push(...topIndices(t.entitiesPerEvent, room, t.entitiesPerEvent, (e) => chosenEvent[e] === 0));
  return [...entities, ...events.map((e) => entityCount + e)].sort((a, b) => a - b);
}

/** Chooses the drawn nodes and edges and reads their labels and chunks. */
export async function selectGraph(pkg: OctxPackage, ids: IdSpace, t: StructureTables, budgets: GraphBudgets): Promise<SelectedGraph> {
  const eventCount = t.entitiesPerEvent.length;
  const entityCount = t.eventsPerEntity.length;
  const degree = (c: number): number => (c < entityCount ? t.eventsPerEntity[c]! : t.entitiesPerEvent[c - entityCount]!);
  const chosen = await chooseNodes(pkg, ids, t, budgets.maxNodes);
  const nodeOfEvent = new Int32Array(eventCount).fill(-1);
  const nodeOfEntity = new Int32Array(entityCount).fill(-1);
  const g: SelectedGraph = { kinds: [], records: [], ids: [], labels: [], degrees: [], typeOf: [], edges: [], edgesAmongNodes: 0, chunks: new Map(), topEntities: [] };
  for (const c of chosen) {
    const node = g.kinds.length;
    const isEntity = c < entityCount;
    const index = isEntity ? c : c - entityCount;
    g.kinds.push(isEntity ? 'entity' : 'event');
    g.records.push(index);
    g.ids.push(ids.idOf(isEntity ? IdKind.entity : IdKind.event, index));
    g.labels.push('');
    g.degrees.push(degree(c));
    g.typeOf.push(isEntity ? t.entityType[index]! : -1);
    (isEntity ? nodeOfEntity : nodeOfEvent)[index] = node;
  }
  const top = topIndices(t.eventsPerEntity, budgets.topEntities);
  const topName = new Map<number, string>(top.map((i) => [i, '']));

  const unreadable: string[] = [];
  // Labels: event titles, entity names (only of drawn or listed records).
  {
    let i = 0;
    await eachRecord(pkg, 'event', unreadable, (r) => {
      const e = ids.indexOf(text(r, 'id') ?? '', IdKind.event);
      // A repeated id belongs to its first record (the one registered).
      if (e !== i || e < 0) return;
      i++;
      const node = nodeOfEvent[e]!;
      if (node >= 0) g.labels[node] = clip(text(r, 'title') ?? '');
    });
    i = 0;
    await eachRecord(pkg, 'entity', unreadable, (r) => {
      const n = ids.indexOf(text(r, 'id') ?? '', IdKind.entity);
      if (n !== i || n < 0) return;
      i++;
      const node = nodeOfEntity[n]!;
      const name = node >= 0 || topName.has(n) ? clip(text(r, 'name') ?? '') : undefined;
      if (node >= 0) g.labels[node] = name!;
      if (topName.has(n)) topName.set(n, name!);
    });
  }
  for (const n of top) g.topEntities.push([topName.get(n)!, t.entityType[n]!, t.eventsPerEntity[n]!]);

  // Edges among the drawn nodes.
  const eeEvent = refField('event-entity', 'event');
  const eeEntity = refField('event-entity', 'entity');
  let among = 0;
  await eachRecord(pkg, 'event-entity', unreadable, (r) => {
    const a = nodeOfEvent[ids.indexOf(text(r, eeEvent) ?? '', IdKind.event)] ?? -1;
    if (a < 0) return;
    const b = nodeOfEntity[ids.indexOf(text(r, eeEntity) ?? '', IdKind.entity)] ?? -1;
    if (b < 0) return;
    among++;
    if (g.edges.length < budgets.maxEdges) g.edges.push([a, b]);
  });
  (g as { edgesAmongNodes: number }).edgesAmongNodes = among;

  // The first chunks of each drawn event.
  const ceChunk = refField('chunk-event', 'chunk');
  const ceEvent = refField('chunk-event', 'event');
  await eachRecord(pkg, 'chunk-event', unreadable, (r) => {
    const node = nodeOfEvent[ids.indexOf(text(r, ceEvent) ?? '', IdKind.event)] ?? -1;
    if (node < 0) return;
    const c = ids.indexOf(text(r, ceChunk) ?? '', IdKind.chunk);
    if (c < 0) return;
    let list = g.chunks.get(node);
    if (!list) g.chunks.set(node, (list = []));
    if (list.length < CHUNKS_PER_EVENT) list.push([t.chunkRow[c]!, t.chunkOrdinal[c]!]);
  });
  return g;
}

/** Documents rows in use by the chunks of `g`, and each row's index among them. */
export function graphDocuments(g: SelectedGraph, docs: DocumentTable): { paths: string[]; indexOfRow: Map<number, number> } {
  const indexOfRow = new Map<number, number>();
  const paths: string[] = [];
  for (const list of g.chunks.values()) {
    for (const [row] of list) {
      if (row < 0 || indexOfRow.has(row)) continue;
      indexOfRow.set(row, paths.length);
      paths.push(docs.paths[row]!);
    }
  }
  return { paths, indexOfRow };
}
