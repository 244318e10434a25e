/** validatePackage(path, { consumer }): the consumer section (docs/consumers.md). */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { HashingTextEmbedder, loadWorkdir, PackageBuilder, validatePackage } from '../../src/index.js';
import { ROOT } from '../helpers/temp.js';
import { cleanupTempDirs, entriesOf, genStructure, SAG_DECL, structureFiles, tempDir, writeDir, writeZip } from './helpers.js';

afterAll(cleanupTempDirs);

/** A valid structured package folder whose records `edit` changes first. */
async function pkg(edit: (s: ReturnType<typeof genStructure>) => void): Promise<string> {
  const s = genStructure({ docs: 1, chunksPerDoc: 2 });
  edit(s);
  return writeDir(entriesOf({ files: structureFiles(s), capabilities: SAG_DECL }));
}

describe('validatePackage with a consumer', () => {
  it('a duplicate entity identity: valid for the seed, incompatible with sag-1.7, both ids named', async () => {
    let ids: string[] = [];
    const path = await pkg((s) => {
      s.entities[0].name = 'Cao Cao';
      s.entities[1].name = 'CAO CAO';
      s.entities[1].type = s.entities[0].type;
      ids = [s.entities[0].id, s.entities[1].id];
    });
    const report = await validatePackage(path, { consumer: 'sag-1.7' });
    expect(report.valid).toBe(true);
    expect(report.consumer?.compatible).toBe(false);
    expect(report.consumer?.issues).toHaveLength(1);
    const i = report.consumer!.issues[0]!;
    expect(i).toMatchObject({ code: 'OCTX_CONSUMER_INCOMPATIBLE', severity: 'error', path: 'data/entities.jsonl', line: 2, recordId: ids[1], field: 'name' });
    expect(i.message).toContain(ids[0]);
    expect((await validatePackage(path)).consumer).toBeUndefined();
  });

  it('a blank event title and an unparsable start_time are errors; a long title is a warning', async () => {
    let ids: string[] = [];
    const path = await pkg((s) => {
      s.events[0].title = '   ';
      s.events[1].start_time = 'the spring of 184';
      s.events[1].title = 'x'.repeat(300);
      ids = [s.events[0].id, s.events[1].id];
    });
    const report = await validatePackage(path, { consumer: 'sag-1.7' });
    expect(report.valid).toBe(true);
    expect(report.consumer!.issues.map((i) => [i.code, i.recordId, i.field])).toEqual([
      ['OCTX_CONSUMER_INCOMPATIBLE', ids[0], 'title'],
      ['OCTX_CONSUMER_ADJUSTED', ids[1], 'title'],
      ['OCTX_CONSUMER_INCOMPATIBLE', ids[1], 'start_time'],
    ]);
  });

  it('Python semantics: the database identity, a \\x85 title, a week-53 time, a stored-type bound, a half-even weight', async () => {
    let ids: { entities: string[]; events: string[] } = { entities: [], events: [] };
    const s0 = genStructure({ docs: 1, chunksPerDoc: 3 });
    const path = await pkg((s) => {
      Object.assign(s, s0);
      s.entities[0].name = 'Cao Cao';
      s.entities[0].type = 'Person ';
      s.entities[1].name = 'cao cao';
      s.entities[1].type = 'person';
      s.entities[2].type = 'ß'.repeat(26);
      s.events[0].title = '\x85';
      s.events[1].start_time = '2021-W53-1';
      s.events[1].end_time = '2020-W53-1';
      s.eventEntities[2].weight = 0.125;
      ids = { entities: s.entities.map((e) => e.id), events: s.events.map((e) => e.id) };
    });
    const report = await validatePackage(path, { consumer: 'sag-1.7' });
    expect(report.valid).toBe(true);
    expect(report.consumer!.compatible).toBe(false);
    const errors = report.consumer!.issues.filter((i) => i.severity === 'error').map((i) => [i.recordId, i.field]);
    expect(errors).toEqual(
      expect.arrayContaining([
        [ids.events[0], 'title'],
        [ids.events[1], 'start_time'],
        [ids.entities[1], 'name'],
        [ids.entities[2], 'type'],
      ]),
    );
    expect(errors).toHaveLength(4);
    const dup = report.consumer!.issues.find((i) => i.recordId === ids.entities[1])!;
    expect(dup.message).toContain(ids.entities[0]);
    expect(dup.message).toContain('database identity');
    const adjusted = report.consumer!.issues.filter((i) => i.severity === 'warning');
    expect(adjusted.map((i) => [i.code, i.recordId, i.field])).toEqual([['OCTX_CONSUMER_ADJUSTED', ids.events[2], 'weight']]);
    expect(adjusted[0]!.message).toContain('will be stored as 0.12');
  });

  it('no consumer rule broken: compatible, for sag-1.7 and the seed', async () => {
    const path = await pkg(() => undefined);
    expect((await validatePackage(path, { consumer: 'sag-1.7' })).consumer).toEqual({ name: 'sag-1.7', compatible: true, issues: [] });
    expect((await validatePackage(path, { consumer: 'seed' })).consumer).toEqual({ name: 'seed', compatible: true, issues: [] });
  });

  it('declared vectors get a note that they will be re-embedded (a warning: still compatible)', async () => {
    const b = new PackageBuilder({ asset: { name: 'TK' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } });
    await loadWorkdir(b, join(ROOT, 'fixtures/kb-three-kingdoms'));
    await b.embed('entities', new HashingTextEmbedder({ dimensions: 8 }));
    const output = join(await tempDir(), 'tk.octx');
    await b.export({ output });
    const r = await validatePackage(output, { consumer: 'sag-1.7' });
    expect(r.valid).toBe(true);
    expect(r.consumer).toMatchObject({ name: 'sag-1.7', compatible: true, issues: [{ code: 'OCTX_CONSUMER_VECTORS_UNUSED', severity: 'warning' }] });
    expect(r.consumer!.issues[0]!.message).toContain('re-embedded');
    expect((await validatePackage(output, { consumer: 'seed' })).consumer).toEqual({ name: 'seed', compatible: true, issues: [] });
  });

  it('an invalid or unreadable package is not checked (compatible: null)', async () => {
    const s = genStructure();
    const files = structureFiles(s);
    const invalid = await writeDir(entriesOf({ files, capabilities: SAG_DECL, tamper: (m) => (m.files[0].sha256 = '0'.repeat(64)) }));
    const r = await validatePackage(invalid, { consumer: 'sag-1.7' });
    expect(r.valid).toBe(false);
    expect(r.consumer).toMatchObject({ name: 'sag-1.7', compatible: null, issues: [{ code: 'OCTX_CONSUMER_INCOMPATIBLE' }] });
    const broken = await writeZip({ 'not-a-manifest.txt': 'x' });
    expect((await validatePackage(broken, { consumer: 'sag-1.7' })).consumer?.compatible).toBeNull();
  });

  it('an unknown consumer is an options error', async () => {
    const path = await pkg(() => undefined);
    // @ts-expect-error -- not a consumer name
    await expect(validatePackage(path, { consumer: 'nope' })).rejects.toMatchObject({ code: 'OCTX_OPTIONS_INVALID' });
  });
});
