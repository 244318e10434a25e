/**
 * Progress in every phase (issue 15, item 3). Reproduces the report: for a folder of
 * 3,000 files the terminal was blank while loading; a build without structure showed
 * `validate structure 100% 1/1`; `verify package 0% 0/1`; `validate` showed nothing.
 * The CLI is run as a process with `OCTX_PROGRESS=1` (stderr is a pipe, so progress is forced
 * on) and the drawn lines are read back; no timing is asserted.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkdir, PackageBuilder, terminalProgress, validatePackage, type ProgressEvent, type ProgressStep } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers/temp.js';
import { runCli } from './run-cli.js';

/** A working folder of `n` small Markdown files in 30 folders. */
function manyFiles(n: number): string {
  const dir = tempDir('octx-many-');
  for (let i = 0; i < n; i++) {
    const folder = join(dir, 'knowledge', `part-${String(i % 30).padStart(2, '0')}`);
    if (i < 30) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `note-${String(i).padStart(5, '0')}.md`), `---\ntype: Note\n---\n\n# Note ${i}\n\nA short note, number ${i}.\n`);
  }
  return dir;
}

/** What the progress line writes before each redraw: carriage return, erase line. */
const CLEAR_LINE = `\r${String.fromCharCode(0x1b)}[2K`;

/** The step labels drawn on a progress line, in order, each once (consecutive repeats merged). */
function drawnSteps(stderr: string): { labels: string[]; lines: string[] } {
  const lines = stderr
    .split('\n')
    .flatMap((l) => l.split(CLEAR_LINE))
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const labels: string[] = [];
  for (const l of lines) {
    const m = /^([a-z]+ [a-z -]+?) +\d+% /.exec(l);
    if (m && labels.at(-1) !== m[1]) labels.push(m[1]!);
  }
  return { labels, lines };
}

describe('progress in every phase', () => {
  it('build of 3,000 files draws progress from scanning and loading to fsync, and nothing that does not apply', { timeout: 180_000 }, async () => {
    const dir = manyFiles(3000);
    const out = join(tempDir(), 'many.octx');
    const r = await runCli(['build', dir, '-o', out, '--name', 'Many', '--asset-id', '019c0000-0000-7000-8000-000000000002'], { env: { OCTX_PROGRESS: '1' }, timeout: 170_000 });
    expect(r.code).toBe(0);
    const { labels, lines } = drawnSteps(r.stderr);
    expect(labels).toEqual(['scan files', 'load documents', 'compress entries', 'write entry', 'verify entries', 'fsync package']);
    // Loading reports counts and bytes, from its first file to its last.
    expect(lines).toContain('scan files 100% 3000/3000 –/s ETA 0s');
    expect(lines.some((l) => /^load documents +0% 0\/3000 /.test(l))).toBe(true);
    expect(lines.some((l) => /^load documents 100% 3000\/3000 [\d.]+ KiB /.test(l))).toBe(true);
    expect(lines.some((l) => /^verify entries 100% 3000 [\d.]+ (KiB|MiB)\/[\d.]+ (KiB|MiB) /.test(l))).toBe(true);
    // The misleading lines are gone: no structure step without structure, no 0/1 verify.
    expect(r.stderr).not.toMatch(/validate structure|plan structure|verify package/);
    // The line is cleared at the end: the summary starts on a clean line.
    expect(r.stderr.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('validate on the demo package shows its phases', { timeout: 120_000 }, async () => {
    const out = join(tempDir(), 'tk.octx');
    expect((await runCli(['build', join(ROOT, 'fixtures/kb-three-kingdoms'), '-o', out, '--name', 'TK'])).code).toBe(0);
    const r = await runCli(['validate', out], { env: { OCTX_PROGRESS: '1' } });
    expect(r.code).toBe(0);
    const { labels, lines } = drawnSteps(r.stderr);
    expect(labels).toEqual(['validate documents', 'validate structure']);
    expect(lines.some((l) => /^validate documents 100% 9 [\d.]+ KiB\/[\d.]+ KiB /.test(l))).toBe(true);
    expect(lines.some((l) => /^validate structure 100% 5 [\d.]+ KiB\/[\d.]+ KiB /.test(l))).toBe(true);
    // Without OCTX_PROGRESS and without a terminal, nothing is drawn.
    const quiet = await runCli(['validate', out]);
    expect(quiet.stderr).toBe('');
  });

  it('the SDK reports the same events, typed, and terminalProgress draws them in one line', async () => {
    const events: ProgressEvent[] = [];
    const builder = new PackageBuilder({ asset: { name: 'TK' } });
    const loaded = await loadWorkdir(builder, join(ROOT, 'fixtures/kb-three-kingdoms'), { onProgress: (e) => events.push(e) });
    const out = join(tempDir(), 'tk.octx');
    await builder.export({ output: out, onProgress: (e) => events.push(e) });
    await validatePackage(out, { onProgress: (e) => events.push(e) });
    const steps = events.filter((e): e is ProgressStep => e.phase !== 'warning');
    const order = [...new Set(steps.map((e) => `${e.phase} ${e.kind}`))];
    expect(order).toEqual([
      'scan files',
      'load documents',
      'load chunks',
      'load events',
      'load entities',
      'load chunk-events',
      'load event-entities',
      'plan structure',
      'compress entries',
      'write entry',
      'verify entries',
      'fsync package',
      'validate documents',
      'validate structure',
    ]);
    const lastLoad = (kind: string): ProgressStep => steps.filter((e) => e.phase === 'load' && e.kind === kind).at(-1)!;
    expect(lastLoad('documents')).toMatchObject({ completed: loaded.documents, total: loaded.documents });
    expect(lastLoad('chunks')).toMatchObject({ completed: loaded.chunks });
    expect(lastLoad('chunks').bytes).toBe(lastLoad('chunks').totalBytes);
    // Every step ends complete.
    for (const label of order) {
      const last = steps.filter((e) => `${e.phase} ${e.kind}` === label).at(-1)!;
      expect(last.completed, label).toBe(last.total);
      if (last.totalBytes !== undefined) expect(last.bytes, label).toBe(last.totalBytes);
    }

    const writes: string[] = [];
    const progress = terminalProgress({ stream: { isTTY: true, write: (s: string) => (writes.push(s), true) }, now: () => 0 });
    for (const e of events) progress(e);
    progress.done();
    expect(writes[0]).toBe('\r\x1b[2Kscan files 100% 15/15 –/s ETA 0s');
    expect(writes).toContain('\r\x1b[2Kload chunks 100% 27 14.1 KiB/14.1 KiB –/s ETA 0s');
    expect(writes.at(-1)).toBe('\r\x1b[2K');
  });
});
