/** The records read into the builder (parents first), and what the export's coverage gate will find. */
import type { PackageBuilder } from '../../builder/package-builder.js';
import type { SagAdapterReport } from './sag-types.js';
import type { SagChunks } from './read-chunks.js';
import type { SagEntities } from './read-entities.js';
import type { SagEvents } from './read-events.js';
import { str } from './sag-rows.js';

/** What {@link addRecords} linked. */
export interface SagLinks {
  /** OCTX ids of events without an exported chunk. */
  readonly withoutChunk: string[];
  readonly chunksWithEvents: Set<string>;
  readonly chunkEvents: number;
}

/**
 * Adds the records to the builder (the documents are already in): chunks, entities, events by
 * level then local id (parents first), chunk-event links (the event's `chunk_id` plus chunks
 * preserved in `extra_data.octx.chunk_ids`), then event-entity links.
 */
export function addRecords(builder: PackageBuilder, chunks: SagChunks, events: SagEvents, entities: SagEntities): SagLinks {
  const { chunkRecords, chunkOf } = chunks;
  const { kept, eventOf, eventRecords } = events;
  const { entityRecords, linkRecords } = entities;
  for (const c of chunkRecords) builder.addChunk(c as never);
  for (const e of entityRecords) builder.addEntity(e as never);
  eventRecords.sort((a, b) => a.level - b.level || (a.localId < b.localId ? -1 : a.localId > b.localId ? 1 : 0));
  for (const e of eventRecords) builder.addEvent(e.record as never);
  const withoutChunk: string[] = [];
  const chunksWithEvents = new Set<string>();
  let chunkEvents = 0;
  const exportedChunks = new Set(chunkOf.values());
  for (const [localId, e] of kept) {
    const eventId = eventOf.get(localId)!;
    const linked = new Set<string>();
    const primary = str(e.chunk_id);
    const chunkId = primary !== undefined ? chunkOf.get(primary) : undefined;
    if (chunkId !== undefined) linked.add(chunkId);
    // Chunks preserved from an earlier OCTX import (SAG keeps them in extra_data.octx.chunk_ids).
    const more = (e.extra as { octx?: { chunk_ids?: unknown } } | undefined)?.octx?.chunk_ids;
    if (Array.isArray(more)) for (const c of more) if (typeof c === 'string' && exportedChunks.has(c)) linked.add(c);
    if (linked.size === 0) withoutChunk.push(eventId);
    for (const c of [...linked].sort()) {
      builder.linkChunkEvent({ chunk_id: c, event_id: eventId });
      chunksWithEvents.add(c);
      chunkEvents++;
    }
  }
  for (const l of linkRecords) builder.linkEventEntity(l as never);
  return { withoutChunk, chunksWithEvents, chunkEvents };
}

/** Whether the export's coverage gate will find a complete structure, and what is missing if not. */
export function expectedStructure(articles: number, chunks: SagChunks, events: SagEvents, entities: SagEntities, links: SagLinks): SagAdapterReport['structure'] {
  const { chunkRecords } = chunks;
  const { kept } = events;
  const { linkRecords } = entities;
  const { withoutChunk, chunksWithEvents } = links;
  const docsWithChunks = new Set(chunkRecords.map((c) => c.document_id as string));
  const eventsWithEntities = new Set(linkRecords.map((l) => l.event_id as string));
  const gaps = [
    articles - docsWithChunks.size > 0 ? `${articles - docsWithChunks.size} document(s) without chunks` : '',
    chunkRecords.length - chunksWithEvents.size > 0 ? `${chunkRecords.length - chunksWithEvents.size} chunk(s) without events` : '',
    withoutChunk.length > 0 ? `${withoutChunk.length} event(s) without a chunk` : '',
    kept.size - eventsWithEntities.size > 0 ? `${kept.size - eventsWithEntities.size} event(s) without entities` : '',
  ].filter(Boolean);
  const structure: SagAdapterReport['structure'] =
    gaps.length === 0
      ? { expected: 'complete', reason: 'every document has chunks, every chunk an event, every event a chunk and an entity' }
      : { expected: 'documents-only', reason: `coverage is incomplete: ${gaps.join(', ')}; re-extract those articles (no filler records are invented)` };
  return structure;
}
