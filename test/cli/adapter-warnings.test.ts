/**
 * Adapter warnings are typed issues (`OCTX_ADAPTER_WARNING`), printed by the CLI as
 * `warning[CODE]: …` on stderr (never on stdout), listed in the export's `report.warnings`, and
 * refused by `--strict` / `strict: true` (OCTX_STRICT_VIOLATION listing them, nothing written).
 * Reviewer findings on issue 15: they were plain strings on stdout that --strict ignored.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromSagDatabase } from '../../src/adapters/sag/from-sag.js';
import { PackageBuilder } from '../../src/builder/package-builder.js';
import { isOctxError } from '../../src/model/errors.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { runCli } from './run-cli.js';

const SAG_DB = join(ROOT, 'fixtures/sag/engine-0.7.1/sag.db');
const SAG_SOURCE = '5f0c3a1e-9b2d-4c7e-8a41-3d2b1c0e9f87';
const ASSET = '019c0000-0000-7000-8000-0000000000b1';
const ING = join(ROOT, 'fixtures/ingest');
const RAG = join(ROOT, 'fixtures/rag');

describe('adapter warnings in the CLI', () => {
  it('from-sag: warning[OCTX_ADAPTER_WARNING] on stderr; --strict refuses and writes nothing', async () => {
    const dir = tempDir();
    const [plain, strict] = await Promise.all([
      runCli(['from-sag', SAG_DB, '--source', SAG_SOURCE, '-o', join(dir, 'a.octx'), '--name', 'X', '--asset-id', ASSET]),
      runCli(['from-sag', SAG_DB, '--source', SAG_SOURCE, '-o', join(dir, 'b.octx'), '--name', 'X', '--asset-id', ASSET, '--strict']),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(/warning/);
    expect(plain.stderr).toMatch(/^warning\[OCTX_ADAPTER_WARNING\]: from-sag: 1 chunk\(s\) of this source belong to no article .* not exported$/m);
    expect(strict.code).toBe(1);
    expect(strict.stderr.split('\n')[0]).toMatch(/^error\[OCTX_STRICT_VIOLATION\]: /);
    expect(strict.stderr).toMatch(/\nerror\[OCTX_ADAPTER_WARNING\]: from-sag: 1 chunk\(s\)/);
    expect(existsSync(join(dir, 'b.octx'))).toBe(false);
  });

  it('from-rag: the missing vector revision is a warning that --strict refuses', async () => {
    const dir = tempDir();
    const args = [
      join(RAG, 'chunks.jsonl'),
      join(RAG, 'vectors.jsonl'),
      '--documents',
      join(RAG, 'documents'),
      '--rebuild-documents',
      '--normalized',
      'true',
      '--name',
      'R',
      '--asset-id',
      ASSET,
    ];
    const [plain, strict] = await Promise.all([runCli(['from-rag', ...args, '-o', join(dir, 'a.octx')]), runCli(['from-rag', ...args, '-o', join(dir, 'b.octx'), '--strict'])]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(/warning/);
    expect(plain.stderr).toMatch(/^warning\[OCTX_ADAPTER_WARNING\]: from-rag: no vector revision was given/m);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/^error\[OCTX_STRICT_VIOLATION\]: .*\nerror\[OCTX_ADAPTER_WARNING\]: from-rag: no vector revision/);
    expect(existsSync(join(dir, 'b.octx'))).toBe(false);
  });

  it('from-ingest: events of a source that is not exported are a warning that --strict refuses', async () => {
    const dir = tempDir();
    const events = join(dir, 'events.jsonl');
    const first = readFileSync(join(ING, 'events.jsonl'), 'utf8').split('\n')[0]!;
    const stray = JSON.stringify({ ...(JSON.parse(first) as Record<string, unknown>), source_uri: 'github:example/none@missing.md', key: 'stray/1' });
    writeFileSync(events, `${readFileSync(join(ING, 'events.jsonl'), 'utf8').trimEnd()}\n${stray}\n`);
    const args = [join(ING, 'envelopes.jsonl'), '--source-root', join(ING, 'sources'), '--events', events, '--name', 'W', '--asset-id', ASSET];
    const [plain, strict] = await Promise.all([
      runCli(['from-ingest', ...args, '-o', join(dir, 'a.octx')]),
      runCli(['from-ingest', ...args, '-o', join(dir, 'b.octx'), '--strict']),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(/warning/);
    expect(plain.stderr).toMatch(/^warning\[OCTX_ADAPTER_WARNING\]: the events file has events for github:example\/none@missing\.md/m);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/\nerror\[OCTX_ADAPTER_WARNING\]: the events file has events for github:example\/none@missing\.md/);
    expect(existsSync(join(dir, 'b.octx'))).toBe(false);
  });
});

describe('adapter warnings in the SDK', () => {
  it('fromSagDatabase reports typed issues and pushes them into the builder: report.warnings lists them, strict refuses them', async () => {
    const dir = tempDir();
    const builder = new PackageBuilder({ asset: { name: 'X', id: ASSET } });
    const report = await fromSagDatabase(builder, SAG_DB, { sourceId: SAG_SOURCE });
    expect(report.warnings).toHaveLength(1);
    expect(report.issues).toEqual([{ code: 'OCTX_ADAPTER_WARNING', severity: 'warning', message: `fromSag: ${report.warnings[0]}` }]);
    const result = await builder.export({ output: join(dir, 'a.octx') });
    expect(result.report.warnings).toContainEqual(report.issues[0]);

    const strictBuilder = new PackageBuilder({ asset: { name: 'X', id: ASSET }, strict: true });
    await fromSagDatabase(strictBuilder, SAG_DB, { sourceId: SAG_SOURCE });
    const refused = await strictBuilder.export({ output: join(dir, 'b.octx') }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isOctxError(refused, 'OCTX_STRICT_VIOLATION')).toBe(true);
    expect((refused as { issues: { code: string }[] }).issues.map((i) => i.code)).toContain('OCTX_ADAPTER_WARNING');
    expect(existsSync(join(dir, 'b.octx'))).toBe(false);
  });
});
