/**
 * One shard of a folder build (`loadWorkdir({ shard })`, `build --shard i/n`): which documents,
 * records and vectors of the folder belong to shard `i` of `n`.
 *
 * Documents are cut by a stable hash of their package path (the reserved `index.md`/`log.md`
 * pages go to the lowest shard holding a concept document: the folder loader decides that); everything else follows the
 * documents, so each shard is a complete package (coverage holds in it when it holds in the
 * whole) and a record two shards need is in both, byte for byte as the folder holds it:
 * - a chunk is in the shard of its document;
 * - an event is in every shard holding one of its chunks (chunk-event links), with its parent
 *   events; an event no chunk names is in shard 0;
 * - an entity is in every shard holding an event that names it (event-entity links); an entity no
 *   event names is in shard 0;
 * - a relation is in the shard of its chunk (chunk-event) or of its event (event-entity);
 * - a vector is in every shard holding its record; extension files are in every shard.
 *
 * An event whose parent is linked only to chunks of other shards cannot be cut so (the parent,
 * without a chunk in the shard, breaks coverage): that shard is refused, naming both events.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import { RECORD_KINDS, type RecordKind } from '../../model/record-kinds.js';
import { jsonlRecords } from './records.js';

/** Shard `index` of `count` (`0 ≤ index < count`). */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

/**
 * Checks a shard given to the SDK (`{ index, count }`, integers, `0 ≤ index < count`).
 * @param field the option's name in messages (`shard`, or the CLI's `--shard`)
 * @throws OctxError `OCTX_OPTIONS_INVALID` naming `field`
 */
export function checkShard(shard: unknown, field = 'shard'): ShardSpec {
  const s = shard as Partial<ShardSpec> | null;
  const bad = (why: string): OctxError => OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field, message: `${field}: ${why}` });
  if (typeof s !== 'object' || s === null) throw bad('a shard is { index, count }, e.g. { index: 0, count: 4 }');
  const { index, count } = s;
  if (!Number.isSafeInteger(count) || count! < 1) throw bad(`the shard count must be an integer ≥ 1 (got ${String(count)})`);
  if (!Number.isSafeInteger(index) || index! < 0 || index! >= count!) throw bad(`the shard index must be an integer from 0 to ${count! - 1} (got ${String(index)})`);
  return { index: index!, count: count! };
}

/**
 * The shard of a document: the first 8 bytes of the SHA-256 of its package path's UTF-8 bytes
 * (`knowledge/…`, NFC, as it is written in the package's manifest), read as a big-endian unsigned
 * integer, modulo `count`. A document keeps its shard whatever else the folder holds.
 */
export function shardOfPath(packagePath: string, count: number): number {
  const digest = createHash('sha256').update(packagePath.normalize('NFC'), 'utf8').digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(count));
}

/** The records of the folder one shard keeps, decided before any record is added. */
export interface ShardRecords {
  /** Keeps a record line of `kind` (its value as read). */
  readonly keep: (kind: RecordKind, value: Record<string, unknown>) => boolean;
  /** Keeps the vector of a record id. */
  readonly keepVector: (recordId: string) => boolean;
}

/** A string field of a record line, if it is one. */
function idField(value: Record<string, unknown>, field: string): string | undefined {
  const v = value[field];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Reads a link file: every id its `to` field names (`linked`), and those linked from a kept id of
 * its `from` field (`reached`, which the shard keeps).
 */
async function linkTargets(
  links: AsyncIterable<Record<string, unknown>>,
  from: string,
  to: string,
  kept: ReadonlySet<string>,
): Promise<{ linked: Set<string>; reached: Set<string> }> {
  const linked = new Set<string>();
  const reached = new Set<string>();
  for await (const r of links) {
    const target = idField(r, to);
    if (target === undefined) continue;
    linked.add(target);
    if (kept.has(idField(r, from) ?? '')) reached.add(target);
  }
  return { linked, reached };
}

/**
 * Reads the folder's record files once (ids and links only) to decide which records the shard
 * keeps. Lines that are not valid are kept (the builder names them when the records are read).
 * @param chunkInShard whether a chunk line belongs to the shard (by its document)
 */
export async function shardRecords(dir: string, fileSet: ReadonlySet<string>, shard: ShardSpec, chunkInShard: (value: Record<string, unknown>) => boolean): Promise<ShardRecords> {
  const lines = async function* (kind: RecordKind): AsyncGenerator<Record<string, unknown>> {
    const { path } = RECORD_KINDS[kind];
    if (!fileSet.has(path)) return;
    for await (const { value } of jsonlRecords(join(dir, path), path)) yield value;
  };
  const chunks = new Set<string>();
  for await (const c of lines('chunk')) {
    const id = idField(c, 'id');
    if (id !== undefined && chunkInShard(c)) chunks.add(id);
  }
  const { linked: linkedEvents, reached: events } = await linkTargets(lines('chunk-event'), 'chunk_id', 'event_id', chunks);
  const parents = new Map<string, string>();
  const allEvents: string[] = [];
  for await (const e of lines('event')) {
    const id = idField(e, 'id');
    if (id === undefined) continue;
    allEvents.push(id);
    const parent = idField(e, 'parent_id');
    if (parent !== undefined) parents.set(id, parent);
  }
  if (shard.index === 0) for (const id of allEvents) if (!linkedEvents.has(id)) events.add(id);
  // A kept event needs its parent in the same package (a reference), and so on up the chain; but
  // a parent no chunk of this shard names would break coverage (every event in a chunk-event
  // link) in a shard that cannot hold that chunk's document: such a cut is refused.
  const uncovered: OctxIssue[] = [];
  for (const id of [...events]) {
    let child = id;
    let at = parents.get(id);
    while (at !== undefined && !events.has(at)) {
      if (linkedEvents.has(at)) {
        uncovered.push(
          issue({
            code: 'OCTX_SHARD_CUT_INVALID',
            path: RECORD_KINDS.event.path,
            recordId: child,
            field: 'parent_id',
            message: `shard ${shard.index}/${shard.count} holds event ${child}, whose parent ${at} is linked to no chunk of this shard's documents`,
          }),
        );
        break;
      }
      events.add(at);
      child = at;
      at = parents.get(at);
    }
  }
  if (uncovered.length > 0) {
    throw OctxError.aggregate(
      'OCTX_SHARD_CUT_INVALID',
      `shard ${shard.index}/${shard.count} cannot be a complete package: an event's parent must be in a chunk-event link with a chunk of every shard that holds the event (link the parent to those chunks too, or build fewer shards):`,
      uncovered,
    );
  }
  const { linked: linkedEntities, reached: entities } = await linkTargets(lines('event-entity'), 'event_id', 'entity_id', events);
  const keptRecord = (id: string): boolean => chunks.has(id) || events.has(id) || entities.has(id);
  return {
    keep: (kind, value) => {
      const id = idField(value, 'id');
      switch (kind) {
        case 'chunk':
          return id === undefined ? chunkInShard(value) : chunks.has(id);
        case 'event':
          return id === undefined || events.has(id);
        case 'entity':
          return id === undefined || entities.has(id) || (shard.index === 0 && !linkedEntities.has(id));
        case 'chunk-event':
          return chunks.has(idField(value, 'chunk_id') ?? '') || (shard.index === 0 && idField(value, 'chunk_id') === undefined);
        case 'event-entity':
          return events.has(idField(value, 'event_id') ?? '') || (shard.index === 0 && idField(value, 'event_id') === undefined);
      }
    },
    keepVector: keptRecord,
  };
}
