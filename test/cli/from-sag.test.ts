import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from 'octx-export';
import { createSagDatabase, SAG } from '../adapters/sag-fixture.js';
import { tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const flip = (v4: string) => `${v4.slice(0, 14)}7${v4.slice(15)}`;

describe('octx-export from-sag (real CLI)', () => {
  it('exports one source of both schema generations; sag-compatible ids match SAG’s own exporter', async () => {
    const tmp = tempDir();
    const db1 = join(tmp, 'gen1.db');
    const db2 = join(tmp, 'gen2.db');
    createSagDatabase(db1, 1);
    createSagDatabase(db2, 2);
    const [compatible, ledger] = await Promise.all([
      runCli(['from-sag', db1, '--source', SAG.source, '--id-mode', 'sag-compatible', '--require-structure', '-o', join(tmp, 'a.octx'), '--name', '三国演义读书会', '--json']),
      runCli(['from-sag', db2, '--source', SAG.source, '--state', join(tmp, 'state.json'), '-o', join(tmp, 'b.octx'), '--name', '三国演义读书会']),
    ]);
    expect(compatible.code).toBe(0);
    const doc = jsonOf(compatible);
    expect(doc.capabilities).toEqual({ 'sag-structured': { version: '0.1' } });
    expect(doc.adapter).toMatchObject({ generation: 'source_config_id', idMode: 'sag-compatible', ids: { preserved: 2, sagCompatible: 16, ledger: 0 } });
    const pkg = await openPackage(join(tmp, 'a.octx'));
    try {
      const events: string[] = [];
      for await (const { record } of pkg.events()) events.push(record.id);
      expect(events).toContain('a1591305-4d99-7e27-97ee-85bd23ba8ef5'); // SAG's golden nibble flip
      expect(events).toContain(SAG.firePreserved);
      expect(events).not.toContain(flip(SAG.events.deleted));
    } finally {
      await pkg.close();
    }
    expect(ledger.code).toBe(0);
    expect(ledger.stdout).toContain('(schema: data_source_id), ids: 2 preserved, 0 sag-compatible, 16 from the ledger');
    expect(ledger.stdout).toContain('1 soft-deleted left out');
    expect(ledger.stdout).toContain('1 event(s) became top-level: their parent is not exported');
    for (const out of ['a.octx', 'b.octx']) {
      const v = await validatePackage(join(tmp, out));
      expect(v.valid && v.fullyValidated).toBe(true);
    }
  });

  it('duplicate ranks and unknown sources are errors that name them', async () => {
    const tmp = tempDir();
    const db = join(tmp, 'dup.db');
    createSagDatabase(db, 1);
    const w = new Database(db);
    w.prepare(
      "INSERT INTO source_chunk (id, source_config_id, source_type, article_id, content, rank) VALUES ('e1000000-0000-4000-8000-0000000000ff', ?, 'ARTICLE', ?, '重复的段落。', 0)",
    ).run(SAG.source, SAG.articles.chibi);
    w.close();
    const [dup, unknown] = await Promise.all([
      runCli(['from-sag', db, '--source', SAG.source, '-o', join(tmp, 'x.octx'), '--name', 'X']),
      runCli(['from-sag', db, '--source', 'src_nope', '-o', join(tmp, 'y.octx'), '--name', 'X']),
    ]);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain(
      `error[OCTX_ADAPTER_INPUT_INVALID]: duplicate chunk ranks (OCTX ordinals are unique per document): article ${SAG.articles.chibi} rank 0: chunks ${SAG.chunks.c0} and e1000000-0000-4000-8000-0000000000ff\n  --> ${db}\n  field source_chunk.rank\n`,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`source src_nope has no (non-deleted) article in this database; sources with articles: ${SAG.otherSource}, ${SAG.source}`);
  });
});
