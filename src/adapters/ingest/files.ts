/**
 * File helpers for the ingest adapter: envelopes from JSON/JSONL files, and an event extractor
 * that replays events a real extraction run wrote to a JSONL file.
 */
import { z } from 'zod';
import type { OctxIssue } from '../../model/errors.js';
import { inputIssue, throwInputProblems } from '../shared/input-issues.js';
import { locatorOf, readJsonObjects, type LocatedObject } from '../shared/json-input.js';
import type { ExtractedEvent, FromIngestOptions, IngestEventExtractor } from './ingest-types.js';

/** Envelopes read from files, ready for `fromIngest`. */
export interface IngestFileInput {
  readonly envelopes: unknown[];
  readonly locate: NonNullable<FromIngestOptions['locate']>;
}

/**
 * Reads envelopes from JSON (one envelope or an array) and JSONL files, in order. Validation
 * happens in `fromIngest`.
 * @throws OctxError `OCTX_IO_ERROR`, `OCTX_JSON_INVALID`, `OCTX_JSON_DUPLICATE_KEY`
 */
export async function loadIngestFiles(files: readonly string[]): Promise<IngestFileInput> {
  const all: LocatedObject[] = [];
  for (const file of files) all.push(...(await readJsonObjects(file)));
  return {
    envelopes: all.map((o) => o.value),
    locate: locatorOf(all),
  };
}

const eventLineSchema = z.strictObject({
  source_uri: z.string().min(1),
  key: z.string().min(1).optional(),
  title: z.string().min(1),
  content: z.string().min(1),
  summary: z.string().optional(),
  category: z.string().optional(),
  entities: z.array(
    z.strictObject({
      node: z.string().min(1).optional(),
      name: z.string().min(1).optional(),
      type: z.string().min(1).optional(),
      entity_description: z.string().optional(),
      weight: z.number().optional(),
      description: z.string().optional(),
    }),
  ),
});

/**
 * An extractor that replays the events of a JSONL file written by a real extraction run, one
 * event per line:
 * `{"source_uri", "key"?, "title", "content", "summary"?, "category"?, "entities": [{"node" | "name", "type"?, "entity_description"?, "weight"?, "description"?}]}`.
 * Events are handed to the source whose `source.uri` equals `source_uri`; `sources` lists the
 * uris the file has events for.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` for a malformed line (with file and line)
 */
export async function eventsFromFile(file: string): Promise<IngestEventExtractor & { readonly sources: readonly string[] }> {
  const bySource = new Map<string, ExtractedEvent[]>();
  const problems: OctxIssue[] = [];
  for (const o of await readJsonObjects(file)) {
    const parsed = eventLineSchema.safeParse(o.value);
    if (!parsed.success) {
      for (const i of parsed.error.issues) {
        problems.push(
          inputIssue({
            path: o.path,
            ...(o.line !== undefined ? { line: o.line } : {}),
            field: i.path.join('.') || '(event)',
            message: `extracted event ${i.path.join('.') || 'line'}: ${i.message}`,
          }),
        );
      }
      continue;
    }
    const e = parsed.data;
    const event: ExtractedEvent = {
      ...(e.key !== undefined ? { key: e.key } : {}),
      title: e.title,
      content: e.content,
      ...(e.summary !== undefined ? { summary: e.summary } : {}),
      ...(e.category !== undefined ? { category: e.category } : {}),
      entities: e.entities.map((r) => ({
        ...(r.node !== undefined ? { node: r.node } : {}),
        ...(r.name !== undefined ? { name: r.name } : {}),
        ...(r.type !== undefined ? { type: r.type } : {}),
        ...(r.entity_description !== undefined ? { entityDescription: r.entity_description } : {}),
        ...(r.weight !== undefined ? { weight: r.weight } : {}),
        ...(r.description !== undefined ? { description: r.description } : {}),
      })),
    };
    const list = bySource.get(e.source_uri);
    if (list) list.push(event);
    else bySource.set(e.source_uri, [event]);
  }
  throwInputProblems(`the events file ${file} is invalid:`, problems);
  const extractor: IngestEventExtractor = ({ uri }) => bySource.get(uri) ?? [];
  return Object.assign(extractor, { sources: [...bySource.keys()] });
}
