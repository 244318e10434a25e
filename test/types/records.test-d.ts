/**
 * Type-level tests, checked by `tsc` (`npm run typecheck`, the first step of `npm test`): every
 * `@ts-expect-error` below must be an error, or tsc fails with "Unused '@ts-expect-error'
 * directive". Vitest does not run this file (its name does not end in `.test.ts`).
 *
 * Issue 15, problem 2: the generic `add*<R extends …>(record: R)` signatures switched off excess
 * property checks, so `parentId` and `sumary` compiled and shipped as extra fields.
 */
import { expectTypeOf } from 'vitest';
import type { PackageBuilder, ChunkEventLink, ChunkRecord, EntityRecord, EventEntityLink, EventRecord } from 'octx-export';

declare const b: PackageBuilder;
declare const p: string;
const ev = { id: p, title: 't', content: 'c' } as const;

// ── misspelt known fields do not compile ─────────────────────────────────────────────
// @ts-expect-error -- parentId: the wire name is parent_id
b.addEvent({ ...ev, parentId: p, level: 1 });
// @ts-expect-error -- sumary: misspelt summary
b.addEvent({ ...ev, sumary: 'x' });
// @ts-expect-error -- documentId: the wire name is document_id
b.addChunk({ id: p, documentId: p, ordinal: 0, text: 't' });
// @ts-expect-error -- entityType is not a field (type is)
b.addEntity({ id: p, name: 'n', type: 't', entityType: 'x' });
// @ts-expect-error -- chunkId: the wire name is chunk_id
b.linkChunkEvent({ chunkId: p, event_id: p });
// @ts-expect-error -- weigth: misspelt weight
b.linkEventEntity({ event_id: p, entity_id: p, weigth: 1 });

// ── the known shapes compile ─────────────────────────────────────────────────────────
b.addEvent({ ...ev, summary: 's', category: 'c', parent_id: p, level: 1 });
b.addChunk({ id: p, document_id: p, ordinal: 0, text: 't' });
b.addEntity({ id: p, name: 'n', type: 't', description: 'd' });
b.linkChunkEvent({ chunk_id: p, event_id: p });
b.linkEventEntity({ event_id: p, entity_id: p, weight: 0.5, description: 'd' });

// ── extra fields go through a named type ─────────────────────────────────────────────
interface SourcedEvent extends EventRecord {
  readonly x_source: string;
}
b.addEvent<SourcedEvent>({ ...ev, x_source: 'wiki' });
// @ts-expect-error -- the named type is checked too: sumary is not a field of SourcedEvent
b.addEvent<SourcedEvent>({ ...ev, x_source: 'wiki', sumary: 'x' });
// @ts-expect-error -- the type argument must extend EventRecord
b.addEvent<{ id: string }>({ id: p });
// A value already typed as a subtype needs no type argument.
declare const sourced: SourcedEvent;
b.addEvent(sourced);
b.addChunk<ChunkRecord & { readonly 'x-rag': { readonly doc: string } }>({ id: p, document_id: p, ordinal: 0, text: 't', 'x-rag': { doc: 'd' } });
b.addEntity<EntityRecord & { readonly aliases: readonly string[] }>({ id: p, name: 'n', type: 't', aliases: ['m'] });
b.linkChunkEvent<ChunkEventLink & { readonly confidence: number }>({ chunk_id: p, event_id: p, confidence: 1 });
b.linkEventEntity<EventEntityLink & { readonly role: string }>({ event_id: p, entity_id: p, role: 'agent' });

// ── the methods still chain and take the records' own types ─────────────────────────
expectTypeOf(b.addEvent(ev)).toEqualTypeOf<PackageBuilder>();
expectTypeOf<Parameters<PackageBuilder['addChunk']>[0]>().toEqualTypeOf<ChunkRecord>();
expectTypeOf<Parameters<PackageBuilder['addEvent']>[0]>().toEqualTypeOf<EventRecord>();

// ── the result carries the degradation verdict ───────────────────────────────────────
declare const result: Awaited<ReturnType<PackageBuilder['export']>>;
expectTypeOf(result.degraded).toEqualTypeOf<boolean>();
expectTypeOf(result.degradations[0]!.layer).toEqualTypeOf<'structure' | 'vectors'>();
// @ts-expect-error -- strict is a boolean
void b.export({ output: 'x.octx', strict: 'yes' });
