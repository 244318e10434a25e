/**
 * The `derive --help` example shows a clean derivation (reviewer finding on issue 15: its note
 * had no chunk, so the example exited 0 with a DEGRADED package, structure dropped). The
 * reading-notes fixture now carries a chunk of the note (referenced by path) linked to an event of
 * the source built from fixtures/kb-three-kingdoms.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandHelp } from '../../src/cli/args.js';
import { buildCommand } from '../../src/cli/commands/build.js';
import { deriveCommand } from '../../src/cli/commands/derive.js';
import { main } from '../../src/cli/cli.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { helpExamples, shellWords } from '../helpers/help-examples.js';

/** Runs `main` in `cwd` with captured streams. */
async function cliIn(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (c: string | Uint8Array) => (out.push(String(c)), true) },
    stderr: { write: (c: string | Uint8Array) => (err.push(String(c)), true) },
  } as never;
  const before = process.cwd();
  process.chdir(cwd);
  try {
    return { code: await main(args, io), stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.chdir(before);
  }
}

describe('derive --help example', () => {
  it('derives the reading notes without degradation: structure kept, no notice', async () => {
    const cwd = tempDir('octx-derive-example-');
    cpSync(join(ROOT, 'fixtures'), join(cwd, 'fixtures'), { recursive: true });
    const build = shellWords(helpExamples(commandHelp(buildCommand))[0]!).slice(1);
    const derive = shellWords(helpExamples(commandHelp(deriveCommand))[0]!).slice(1);
    expect(derive[1]).toBe('out/three-kingdoms.octx');
    expect((await cliIn(cwd, build)).code).toBe(0);
    const r = await cliIn(cwd, [...derive, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { degraded: boolean; capabilities: Record<string, unknown>; report: { structure: { counts: { chunks: number; chunkEvents: number } } } };
    expect(doc.degraded).toBe(false);
    expect(doc.capabilities).toEqual({ 'sag-structured': { version: '0.1' } });
    expect(doc.report.structure.counts).toMatchObject({ chunks: 28, chunkEvents: 45 });
    const plain = await cliIn(cwd, [...derive.map((a) => (a === 'out/three-kingdoms-notes.octx' ? 'out/plain.octx' : a))]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toMatch(/notice: .*degraded/);
  });
});
