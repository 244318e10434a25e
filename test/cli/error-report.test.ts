/**
 * How the CLI reports errors (reviewer findings on issue 15): an aggregate error prints its own
 * headline and code before its issues; a hint follows the real cause, not a wrapper code.
 * Runs the CLI in-process (`main` with captured streams).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/cli.js';
import { ROOT, tempDir } from '../helpers/temp.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');
const ASSET = '019c0000-0000-7000-8000-0000000000a1';

/** Runs `main` with captured stdout and stderr (or the given stdout). */
async function cli(args: string[], stdout?: NodeJS.WritableStream): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: stdout ?? { write: (c: string | Uint8Array) => (out.push(String(c)), true) },
    stderr: { write: (c: string | Uint8Array) => (err.push(String(c)), true) },
  } as never;
  const code = await main(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('aggregate errors', () => {
  it('print their headline and code before their issues (build --require-structure, unlinked note)', async () => {
    const dir = tempDir();
    const wd = join(dir, 'wd');
    cpSync(FIXTURE, wd, { recursive: true });
    mkdirSync(join(wd, 'knowledge/notes'));
    writeFileSync(join(wd, 'knowledge/notes/unlinked.md'), '---\ntype: "Note"\n---\n# Unlinked\n\nNo chunk points here.\n');
    const r = await cli(['build', wd, '-o', join(dir, 'x.octx'), '--name', 'X', '--asset-id', ASSET, '--require-structure']);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(/^error\[OCTX_STRUCTURE_INCOMPLETE\]: /);
    expect(r.stderr).toMatch(/\nerror\[OCTX_SAG_DOCUMENT_WITHOUT_CHUNK\]: /);
    expect(r.stderr.indexOf('OCTX_STRUCTURE_INCOMPLETE')).toBeLessThan(r.stderr.indexOf('OCTX_SAG_DOCUMENT_WITHOUT_CHUNK'));
    expect(r.stderr).toMatch(/\nhint: every document needs a chunk/);
    const json = await cli(['build', wd, '-o', join(dir, 'y.octx'), '--name', 'X', '--asset-id', ASSET, '--require-structure', '--json']);
    const doc = JSON.parse(json.stdout) as { error: { code: string } };
    expect(doc.error.code).toBe('OCTX_STRUCTURE_INCOMPLETE');
  });

  it('a fail-fast error is printed once, without a repeated headline', async () => {
    const r = await cli(['validate', join(tempDir(), 'missing.octx')]);
    expect(r.code).toBe(2);
    expect(r.stderr.match(/^error\[/gm)).toHaveLength(1);
  });

  it('derive of a source above the limits hints at the limits, not at --documents-only', async () => {
    const dir = tempDir();
    const src = join(dir, 'src.octx');
    expect((await cli(['build', FIXTURE, '-o', src, '--name', 'Src', '--asset-id', ASSET])).code).toBe(0);
    mkdirSync(join(dir, 'empty'));
    for (const extra of [[], ['--documents-only']]) {
      const r = await cli([
        'derive',
        src,
        join(dir, 'empty'),
        '-o',
        join(dir, 'd.octx'),
        '--name',
        'D',
        '--asset-id',
        '019c0000-0000-7000-8000-0000000000a2',
        '--max-entries',
        '5',
        ...extra,
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error\[OCTX_DERIVATION_REQUIRED\]: the source .* is above the resource limits/);
      expect(r.stderr).toMatch(/\nerror\[OCTX_RESOURCE_LIMIT\]: /);
      expect(r.stderr).toMatch(/--documents-only fails the same/);
      expect(r.stderr).toMatch(/\nhint: consumers with default limits would refuse this package/);
      expect(r.stderr).not.toMatch(/hint: the source package is invalid/);
      expect(r.stderr).not.toMatch(/documentsOnly|derive options/);
    }
  });
});

describe('messages in CLI terms', () => {
  it('a dangling symbolic link at -o names --overwrite, not the SDK option', async () => {
    const dir = tempDir();
    const link = join(dir, 'dl.octx');
    symlinkSync(join(dir, 'missing-target'), link);
    const r = await cli(['build', FIXTURE, '-o', link, '--name', 'X', '--asset-id', ASSET]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error\[OCTX_OUTPUT_EXISTS\]: .* is a symbolic link to a missing file; use --overwrite to replace the link\n/);
    expect(r.stderr).not.toMatch(/overwrite: true/);
  });

  it('from-rag does not claim --documents-only was given, and names no SDK report field or option', async () => {
    const dir = tempDir();
    const r = await cli([
      'from-rag',
      'fixtures/rag/chunks.jsonl',
      'fixtures/rag/vectors.jsonl',
      '--documents',
      'fixtures/rag/documents',
      '--rebuild-documents',
      '--normalized',
      'true',
      '-o',
      join(dir, 'rag.octx'),
      '--name',
      'R',
      '--asset-id',
      ASSET,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr + r.stdout).not.toMatch(/--documents-only was given|documentsOnly|report\.chunkIds|pass revision/);
    expect(r.stderr + r.stdout).toMatch(/give the model revision and other pipeline settings in --vector-config/);
    expect(r.stdout).toMatch(/structure {5}not-requested: from-rag exports documents only/);
    expect(r.stderr).not.toMatch(/degraded/);
  });

  it('a missing input path gets the hint of its kind (working folder, database, package)', async () => {
    const dir = tempDir();
    const [build, sag, validate] = await Promise.all([
      cli(['build', join(dir, 'nowhere'), '-o', join(dir, 'a.octx'), '--name', 'X', '--asset-id', ASSET]),
      cli(['from-sag', join(dir, 'sag.db'), '--source', '5f0c3a1e-9b2d-4c7e-8a41-3d2b1c0e9f87', '-o', join(dir, 'b.octx'), '--name', 'X', '--asset-id', ASSET]),
      cli(['validate', join(dir, 'missing.octx')]),
    ]);
    for (const r of [build, sag, validate]) expect(r.stderr).toMatch(/^error\[OCTX_OPEN_ERROR\]: /);
    expect(build.stderr).toMatch(/\nhint: check the path: it must be an existing working folder/);
    expect(sag.stderr).toMatch(/\nhint: check the path: it must be an existing SQLite file/);
    expect(validate.stderr).toMatch(/\nhint: check the path: it must be an existing \.octx file or package folder/);
    expect(build.stderr + sag.stderr).not.toMatch(/\.octx file or package folder/);
  });

  it('a state file of another asset names the --asset-id option as the field', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    expect((await cli(['build', FIXTURE, '-o', join(dir, 'a.octx'), '--name', 'X', '--asset-id', ASSET, '--state', state])).code).toBe(0);
    const r = await cli(['build', FIXTURE, '-o', join(dir, 'b.octx'), '--name', 'X', '--asset-id', '019c0000-0000-7000-8000-0000000000a2', '--state', state]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error\[OCTX_STATE_INVALID\]: /);
    expect(r.stderr).toMatch(/\n {2}field asset-id\n/);
    expect(r.stderr).not.toMatch(/asset\.id/);
  });

  it('-o - into a closed pipe ends quietly with exit 0 (EPIPE is no path problem)', async () => {
    const closed = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' }));
      },
    });
    const r = await cli(['build', FIXTURE, '-o', '-', '--name', 'X', '--asset-id', ASSET], closed);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/EPIPE|error\[|hint:/);
    expect(existsSync('-')).toBe(false);
  });
});

describe('warnings of a working folder', () => {
  it('OCTX_RECORD_FIELD_SUSPECT names the file and line, as the same error under --strict does', async () => {
    const dir = tempDir();
    const wd = join(dir, 'wd');
    cpSync(FIXTURE, wd, { recursive: true });
    const events = join(wd, 'data/events.jsonl');
    const lines = readFileSync(events, 'utf8').split('\n');
    lines[1] = lines[1]!.replace(/^\{/, '{"parentId": "019f21fe-101f-7103-93eb-f28277849d0d", ');
    writeFileSync(events, lines.join('\n'));
    const warned = await cli(['build', wd, '-o', join(dir, 'a.octx'), '--name', 'X', '--asset-id', ASSET]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/warning\[OCTX_RECORD_FIELD_SUSPECT\]: .*\n {2}--> data\/events\.jsonl:2\n/);
    const json = await cli(['build', wd, '-o', join(dir, 'b.octx'), '--name', 'X', '--asset-id', ASSET, '--json']);
    const doc = JSON.parse(json.stdout) as { report: { warnings: { code: string; path?: string; line?: number }[] } };
    expect(doc.report.warnings.find((w) => w.code === 'OCTX_RECORD_FIELD_SUSPECT')).toMatchObject({ path: 'data/events.jsonl', line: 2 });
    const strict = await cli(['build', wd, '-o', join(dir, 'c.octx'), '--name', 'X', '--asset-id', ASSET, '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/error\[OCTX_RECORD_FIELD_SUSPECT\]: .*\n {2}--> data\/events\.jsonl:2\n/);
  });
});
