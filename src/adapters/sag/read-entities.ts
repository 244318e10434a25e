/** `event_entity` joined with `entity` → entities and weighted event-entity links. */
import { issue, type OctxIssue } from '../../model/errors.js';
import type { IdExchange } from './id-exchange.js';
import { LIST, parseExtra, text, type Row } from './sag-rows.js';
import type { SagSchema } from './sag-schema.js';
import type { ReadOnlyDatabase } from './sqlite.js';

/** What {@link readEntities} made of the event-entity rows. */
export interface SagEntities {
  readonly entityRecords: Record<string, unknown>[];
  readonly linkRecords: Record<string, unknown>[];
}

/**
 * Maps the `event_entity` rows of kept events (joined with `entity`) to entities and weighted
 * event-entity links, one link per pair. Entities that are missing or of another source, empty
 * names or types and non-finite weights are added to `problems`.
 */
export function readEntities(
  db: ReadOnlyDatabase,
  dbPath: string,
  schema: SagSchema,
  sourceId: string,
  eventOf: ReadonlyMap<string, string>,
  exchange: IdExchange,
  problems: OctxIssue[],
): SagEntities {
  const { cols, generation: p } = schema;
  const en = cols.entity;
  const ee = cols.event_entity;
  const linkRows = db
    .prepare(
      `SELECT ee.event_id AS event_id, ee.entity_id AS entity_id, ${ee.has('weight') ? 'ee.weight' : 'NULL'} AS weight, ${ee.has('description') ? 'ee.description' : 'NULL'} AS rel_description,
              en.id AS en_id, en.type AS en_type, en.name AS en_name, ${en.has('description') ? 'en.description' : 'NULL'} AS en_description, ${en.has('extra_data') ? 'en.extra_data' : 'NULL'} AS en_extra, en.${p} AS en_source
         FROM event_entity ee JOIN source_event e ON e.id = ee.event_id LEFT JOIN entity en ON en.id = ee.entity_id
        WHERE e.${p} = @source ORDER BY ee.event_id, ee.entity_id`,
    )
    .all({ source: sourceId }) as Row[];
  const entityOf = new Map<string, string>();
  const entityRecords: Record<string, unknown>[] = [];
  const linkRecords: Record<string, unknown>[] = [];
  const brokenEntities: string[] = [];
  const pairs = new Set<string>();
  for (const r of linkRows) {
    const eventLocal = String(r.event_id);
    const eventId = eventOf.get(eventLocal);
    if (eventId === undefined) continue;
    const entityLocal = String(r.entity_id);
    if (r.en_id === null || r.en_id === undefined || String(r.en_source) !== sourceId) {
      brokenEntities.push(entityLocal);
      continue;
    }
    let entityId = entityOf.get(entityLocal);
    if (entityId === undefined) {
      const name = text(r.en_name).trim();
      const type = text(r.en_type).trim();
      if (name === '' || type === '') {
        problems.push(
          issue({
            code: 'OCTX_ADAPTER_INPUT_INVALID',
            path: dbPath,
            recordId: entityLocal,
            field: name === '' ? 'entity.name' : 'entity.type',
            message: `entity ${entityLocal} has an empty ${name === '' ? 'name' : 'type'}`,
          }),
        );
        continue;
      }
      entityId = exchange('entity', entityLocal, parseExtra(r.en_extra));
      entityOf.set(entityLocal, entityId);
      const description = text(r.en_description).trim();
      entityRecords.push({ id: entityId, name: text(r.en_name), type: text(r.en_type), ...(description !== '' ? { description } : {}) });
    }
    const key = `${eventId} ${entityId}`;
    if (pairs.has(key)) continue;
    pairs.add(key);
    let weight: number | undefined;
    if (r.weight !== null && r.weight !== undefined) {
      weight = Number(r.weight);
      if (!Number.isFinite(weight)) {
        problems.push(
          issue({
            code: 'OCTX_ADAPTER_INPUT_INVALID',
            path: dbPath,
            field: 'event_entity.weight',
            message: `event ${eventLocal} → entity ${entityLocal} has weight ${JSON.stringify(r.weight)}, not a finite number`,
          }),
        );
        continue;
      }
    }
    const description = text(r.rel_description).trim();
    linkRecords.push({ event_id: eventId, entity_id: entityId, ...(weight !== undefined ? { weight } : {}), ...(description !== '' ? { description } : {}) });
  }
  if (brokenEntities.length > 0) {
    const distinct = [...new Set(brokenEntities)];
    problems.push(
      issue({
        code: 'OCTX_ADAPTER_INPUT_INVALID',
        path: dbPath,
        field: 'event_entity.entity_id',
        message: `event-entity rows point at entities that are missing or belong to another source: ${distinct.slice(0, LIST).join(', ')}${distinct.length > LIST ? ` … and ${distinct.length - LIST} more` : ''}`,
      }),
    );
  }
  return { entityRecords, linkRecords };
}
