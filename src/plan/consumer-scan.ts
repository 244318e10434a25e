/**
 * Runs a consumer profile over what the builder collected, before the planner decides: the
 * documents (id, title) from memory, the structure records by re-reading their spilled JSONL
 * files (only the kinds the profile has rules for; nothing at all for the seed profile).
 */
import { ConsumerChecker, type ConsumerProfile } from '../consumers/index.js';
import { RECORD_KINDS, RECORD_KIND_ORDER } from '../model/record-kinds.js';
import type { OctxIssue } from '../model/errors.js';
import type { Collected } from './collected.js';
import { readSpilledRecords } from '../structure/record-spill.js';

/** A profile's findings over the collected input, split by layer (a layer left out does not count). */
export interface ConsumerFindings {
  readonly profile: ConsumerProfile;
  readonly documents: readonly OctxIssue[];
  readonly structure: readonly OctxIssue[];
}

/**
 * Checks every document and (unless `structure` is false: documents only) structure record of the
 * snapshot against `profile`: the JSONL files are read up to the snapshot's bytes, so records
 * added after it are not judged here (they are not in this export either).
 */
export async function scanForConsumer(profile: ConsumerProfile, collected: Collected, structure = true): Promise<ConsumerFindings> {
  const structureFiles = collected.structure.files;
  const docs = new ConsumerChecker(profile);
  if (docs.checks('document')) {
    for (const d of collected.documents) {
      if (d.kind === 'concept')
        docs.record(
          'document',
          {
            ...(d.documentId !== undefined ? { id: d.documentId } : {}),
            ...(d.title !== undefined ? { title: Object.hasOwn(d, 'titleValue') ? d.titleValue : d.title } : {}),
            ...(d.titleFallback !== undefined ? { titleFallback: d.titleFallback } : {}),
          },
          { path: d.path },
        );
    }
  }
  const records = new ConsumerChecker(profile);
  for (const kind of RECORD_KIND_ORDER) {
    if (!structure || !records.checks(kind) || structureFiles[kind].lines === 0) continue;
    const path = RECORD_KINDS[kind].path;
    for await (const { line, record } of readSpilledRecords(structureFiles[kind].file, structureFiles[kind].size)) records.record(kind, record, { path, line });
  }
  return { profile, documents: docs.issues, structure: records.issues };
}
