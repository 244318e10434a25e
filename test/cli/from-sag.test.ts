import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from 'octx-export';
import { fromSagCommand } from '../../src/cli/commands/from-sag.js';
import { createSagAppDatabase, createSagDatabase, SAG } from '../adapters/sag-fixture.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const flip = (v4: string) => `${v4.slice(0, 14)}7${v4.slice(15)}`;

async function expectValid(pkg: string): Promise<void> {
  const v = await validatePackage(pkg);
  expect(v.valid && v.fullyValidated).toBe(true);
}

/** Splits a printed example into arguments (double quotes group, as a POSIX shell does here). */
function argv(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

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
    expect(doc.adapter).toMatchObject({
      generation: 'source_config_id',
      idMode: 'sag-compatible',
      ids: { preserved: 2, sagCompatible: 16, ledger: 0 },
      articles: { statuses: ['COMPLETED'], skippedByStatus: { PENDING: 1, PROCESSING: 1, FAILED: 1 } },
    });
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
    expect(ledger.stdout).toContain('2 article(s) (COMPLETED), 4 chunk(s), 6 event(s) (1 soft-deleted left out)');
    expect(ledger.stdout).toContain('3 article(s) skipped for their status: 1 PENDING, 1 PROCESSING, 1 FAILED');
    expect(ledger.stdout).toContain('generations: 2 article(s) at their active generation (sag_source_manifest); 2 chunk(s) and 2 event(s) of other generations left out');
    expect(ledger.stdout).toContain('1 event(s) became top-level: their parent is not exported');
    for (const out of ['a.octx', 'b.octx']) await expectValid(join(tmp, out));
  });

  it('--include-status and --generation <article-id>=<generation-id>; the removed one-id --generation is a usage error that says why', async () => {
    const tmp = tempDir();
    const db = join(tmp, 'gen2.db');
    createSagDatabase(db, 2);
    const [statuses, override, oldForm] = await Promise.all([
      runCli(['from-sag', db, '--source', SAG.source, '--include-status', 'pending,FAILED', '-o', join(tmp, 's.octx'), '--name', 'S', '--json']),
      runCli([
        'from-sag',
        db,
        '--source',
        SAG.source,
        '--generation',
        `${SAG.articles.taoyuan}=${SAG.generations.taoyuanOld}`,
        '--id-mode',
        'sag-compatible',
        '--require-structure',
        '-o',
        join(tmp, 'g.octx'),
        '--name',
        'G',
      ]),
      runCli(['from-sag', db, '--source', SAG.source, '--generation', SAG.generations.taoyuan, '-o', join(tmp, 'x.octx'), '--name', 'X']),
    ]);
    expect(statuses.code, statuses.stderr).toBe(0);
    expect(jsonOf(statuses).adapter).toMatchObject({ articles: { statuses: ['COMPLETED', 'PENDING', 'FAILED'], skippedByStatus: { PROCESSING: 1 } }, documents: { count: 4 } });
    expect(override.code, override.stderr).toBe(0);
    expect(override.stdout).toContain('at their active or given generation');
    const chunks: string[] = [];
    const pkg = await openPackage(join(tmp, 'g.octx'));
    try {
      for await (const { record } of pkg.chunks()) chunks.push(record.id);
    } finally {
      await pkg.close();
    }
    expect(chunks).toEqual(expect.arrayContaining(SAG.leftovers.chunks.map(flip)));
    await expectValid(join(tmp, 'g.octx'));
    expect(oldForm.code).toBe(2);
    expect(oldForm.stderr).toContain(`error[OCTX_USAGE_ERROR]: --generation ${SAG.generations.taoyuan}: give <article-id>=<generation-id>.`);
    expect(oldForm.stderr).toContain('\n  field generation\n');
  });

  it('SAG’s application database is one error, exit 2, that names .data/engine/sag.db', async () => {
    const data = join(tempDir(), '.data');
    mkdirSync(data);
    createSagAppDatabase(join(data, 'sag.db'));
    const r = await runCli(['from-sag', join(data, 'sag.db'), '--source', SAG.source, '-o', join(data, 'x.octx'), '--name', 'X']);
    expect(r.code).toBe(2);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^error\[OCTX_SAG_NOT_ENGINE_DB\]: this is the SAG application's database \(tables sources, documents, /);
    expect(r.stderr).toMatch(/\n {2}--> .*sag\.db\n/);
    expect(errors[0]).toContain('by default ./.data/engine/sag.db');
    expect(errors[0]).toContain(`try ${join(data, 'engine', 'sag.db')}`);
    expect(r.stderr).toContain('hint: give from-sag the zleap-sag engine database: <SAG_DATA_DIR>/sag.db, by default ./.data/engine/sag.db');
  });

  it('duplicate ranks and unknown sources are errors that name them', async () => {
    const tmp = tempDir();
    const db = join(tmp, 'dup.db');
    createSagDatabase(db, 1);
    const w = new Database(db);
    w.prepare(
      "INSERT INTO source_chunk (id, source_config_id, source_type, source_id, article_id, content, rank, chunk_length) VALUES ('e1000000-0000-4000-8000-0000000000ff', @source, 'ARTICLE', @article, @article, '重复的段落。', 0, 6)",
    ).run({ source: SAG.source, article: SAG.articles.chibi });
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
    expect(unknown.stderr).toContain(`source src_nope has no COMPLETED article in this database; sources with articles: ${SAG.otherSource}, ${SAG.source}`);
  });

  it('the --help examples run as printed on the shipped fixture databases and write valid packages', async () => {
    // A scratch folder with the repository's fixtures/ linked in, so `out/…` lands outside the checkout.
    const cwd = tempDir();
    symlinkSync(join(ROOT, 'fixtures'), join(cwd, 'fixtures'));
    mkdirSync(join(cwd, 'out'));
    const examples = fromSagCommand.examples!;
    expect(examples.length).toBeGreaterThanOrEqual(2);
    const runs = await Promise.all(
      examples.map(async (line) => {
        const [bin, ...args] = argv(line);
        expect(bin).toBe('octx-export');
        return { line, ...(await runCli(args, { cwd })) };
      }),
    );
    for (const r of runs) {
      expect(r.code, `${r.line}\n${r.stderr}`).toBe(0);
      const output = argv(r.line)[argv(r.line).indexOf('-o') + 1]!;
      await expectValid(join(cwd, output));
    }
  });
});
