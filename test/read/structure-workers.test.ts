// @module-tag heavy (a worker thread per structure file: seconds)
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validatePackage } from '../../src/read/index.js';
import { overrideStructureWorkerFile, setStructureWorkers, structureWorkersStarted } from '../../src/read/record-scan-pool.js';
import { compiledModule } from '../helpers/compiled-sources.js';
import { SAG_DECL, entriesOf, genStructure, rawZip, structureFiles, tid, writeBytes, writeDir, writeZip, type FileMap, type Structure } from './helpers.js';

// Every structure file goes to a worker in this file, whatever its size (issue 23 item 4); the
// whole structure suite runs under that mode in structure-workers-suite.slow.test.ts.
const previous = setStructureWorkers('always');
// The workers load the worker module from this run's compiled sources: under tsx each worker
// would register tsx's loader and compile the module graph again (about a second each). The
// first test starts them from the .ts sibling, as the SDK finds it under tsx.
const COMPILED_WORKER = await compiledModule('src/read/record-scan-worker.ts');
overrideStructureWorkerFile(COMPILED_WORKER);
afterAll(() => {
  setStructureWorkers(previous);
  overrideStructureWorkerFile(undefined);
});

/** A package from a generated structure, edited in place. */
async function edited(mod: (s: Structure) => void, more: (files: FileMap) => void = () => undefined, zip = false): Promise<string> {
  const s = genStructure({ docs: 3, chunksPerDoc: 3 });
  mod(s);
  const files = structureFiles(s);
  more(files);
  const entries = entriesOf({ files, capabilities: SAG_DECL });
  return zip ? writeZip(entries) : writeDir(entries);
}

/** The report with workers forced on and off; both runs must agree exactly. */
async function both(target: string, limits = {}): Promise<unknown> {
  const before = structureWorkersStarted();
  setStructureWorkers('always');
  const on = await validatePackage(target, { limits });
  expect(structureWorkersStarted()).toBeGreaterThan(before);
  setStructureWorkers('never');
  const startedOff = structureWorkersStarted();
  const off = await validatePackage(target, { limits });
  expect(structureWorkersStarted()).toBe(startedOff);
  setStructureWorkers('always');
  expect(on).toEqual(off);
  return on;
}

describe('structure files checked on workers: the report is identical', () => {
  it('a valid structure (directory and ZIP), workers started from the .ts sibling', async () => {
    overrideStructureWorkerFile(undefined);
    try {
      for (const zip of [false, true]) {
        const r = (await both(await edited(() => undefined, undefined, zip))) as { valid: boolean; issues: unknown[] };
        expect(r.valid).toBe(true);
        expect(r.issues).toEqual([]);
      }
    } finally {
      overrideStructureWorkerFile(COMPILED_WORKER);
    }
  });

  it('a valid structure (directory and ZIP), workers started from the compiled sources', async () => {
    for (const zip of [false, true]) {
      const r = (await both(await edited(() => undefined, undefined, zip))) as { valid: boolean; issues: unknown[] };
      expect(r.valid).toBe(true);
      expect(r.issues).toEqual([]);
    }
  });

  it('parse errors, schema errors, duplicates, missing references, cycles and coverage gaps together', async () => {
    const target = await edited(
      (s) => {
        s.chunks[1]!.id = s.chunks[0]!.id; // duplicate id
        s.chunks[2]!.ordinal = s.chunks[3]!.ordinal; // duplicate ordinal (if same document)
        s.chunks[4]!.document_id = tid(); // unknown document
        const [a, b] = s.events;
        a!.parent_id = b!.id;
        a!.level = 1;
        b!.parent_id = a!.id;
        b!.level = 1; // a cycle
        s.entities[0]!.name = ''; // schema
        s.chunkEvents.push({ chunk_id: tid(), event_id: s.events[0]!.id }); // missing chunk
        s.chunkEvents.push({ ...s.chunkEvents[0]! }); // duplicate pair
        s.eventEntities.push({ event_id: s.events[0]!.id, entity_id: tid(), weight: 1 }); // missing entity
      },
      (files) => {
        files['data/events.jsonl'] = `${String(files['data/events.jsonl'])}{not json\n\n`;
        files['relations/event-entities.jsonl'] = `${String(files['relations/event-entities.jsonl'])}{"event_id":"x","entity_id":"y","weight":1e999}\n`;
      },
    );
    const r = (await both(target)) as { valid: boolean; issues: { code: string }[] };
    expect(r.valid).toBe(false);
    expect(new Set(r.issues.map((i) => i.code)).size).toBeGreaterThan(6);
  });

  it('an invalid format layer: the files streamed early to workers are only hashed', async () => {
    // An unsupported payload path makes the format invalid once the inventory is checked, after
    // the structure files were already sent to workers.
    const target = await edited(
      (s) => void (s.chunks[1]!.id = s.chunks[0]!.id),
      (files) => void (files['relations/unknown.jsonl'] = '{}\n'),
    );
    const r = (await both(target)) as { format: { valid: boolean }; issues: { code: string }[] };
    expect(r.format.valid).toBe(false);
    expect(r.issues.map((i) => i.code)).toContain('OCTX_PAYLOAD_PATH_UNSUPPORTED');
    expect(r.issues.map((i) => i.code)).not.toContain('OCTX_ID_DUPLICATE');
  });

  it('a container failure in a document ends the validation and the workers (nothing left running)', async () => {
    const s = genStructure({ docs: 3, chunksPerDoc: 3 });
    const files = entriesOf({ files: structureFiles(s), capabilities: SAG_DECL });
    const doc = Object.keys(files).find((p) => p.startsWith('knowledge/') && p !== 'knowledge/index.md' && p !== 'knowledge/log.md')!;
    const target = await writeBytes(rawZip(Object.entries(files).map(([name, data]) => ({ name, data, ...(name === doc ? { crc: 0x12345678 } : {}) }))));
    // The failure can come before any worker is ready: only the reports are compared here.
    setStructureWorkers('never');
    const off = await validatePackage(target);
    setStructureWorkers('always');
    const on = await validatePackage(target);
    expect(on).toEqual(off);
    expect(on.valid).toBe(false);
    expect(on.issues.map((i) => i.code)).toEqual(['OCTX_ARCHIVE_CORRUPT']);
  });

  it('a record limit that stops parsing part-way', async () => {
    const r = (await both(await edited(() => undefined), { maxJsonlRecords: 4 })) as { issues: { code: string }[] };
    expect(r.issues.map((i) => i.code)).toContain('OCTX_RESOURCE_LIMIT');
  });

  it('falls back to the in-thread check when a worker cannot start', async () => {
    const target = await edited((s) => void (s.chunks[1]!.id = s.chunks[0]!.id));
    setStructureWorkers('never');
    const off = await validatePackage(target);
    setStructureWorkers('always');
    overrideStructureWorkerFile(join(tmpdir(), 'octx-no-such-worker.js'));
    try {
      const before = structureWorkersStarted();
      const fallback = await validatePackage(target);
      expect(structureWorkersStarted()).toBe(before);
      expect(fallback).toEqual(off);
      expect(fallback.issues.map((i) => i.code)).toContain('OCTX_ID_DUPLICATE');
    } finally {
      overrideStructureWorkerFile(COMPILED_WORKER);
    }
  });
});
