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
import { cliInProcess } from './cli-in-process.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { helpExamples, shellWords } from '../helpers/help-examples.js';

describe('derive --help example', () => {
  it('derives the reading notes without degradation: structure kept, no notice', async () => {
    const cwd = tempDir('octx-derive-example-');
    cpSync(join(ROOT, 'fixtures'), join(cwd, 'fixtures'), { recursive: true });
    const build = shellWords(helpExamples(commandHelp(buildCommand))[0]!).slice(1);
    const derive = shellWords(helpExamples(commandHelp(deriveCommand))[0]!).slice(1);
    expect(derive[1]).toBe('out/three-kingdoms.octx');
    expect((await cliInProcess(build, cwd)).code).toBe(0);
    const r = await cliInProcess([...derive, '--json'], cwd);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { degraded: boolean; capabilities: Record<string, unknown>; report: { structure: { counts: { chunks: number; chunkEvents: number } } } };
    expect(doc.degraded).toBe(false);
    expect(doc.capabilities).toEqual({ 'sag-structured': { version: '0.1' } });
    expect(doc.report.structure.counts).toMatchObject({ chunks: 28, chunkEvents: 45 });
    const plain = await cliInProcess(
      derive.map((a) => (a === 'out/three-kingdoms-notes.octx' ? 'out/plain.octx' : a)),
      cwd,
    );
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toMatch(/notice: .*degraded/);
  });
});
