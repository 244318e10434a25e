/**
 * The shared resource `compiled-sources` (test/helpers/compiled-sources.ts), which the CLI tests
 * and the worker tests start processes and threads from: every module of src/ has its compiled
 * file, the CLI finds package.json and the shipped fixtures relative to itself as it does in the
 * repository, and a worker module starts from it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { compiledModule } from '../helpers/compiled-sources.js';
import { sharedResource } from '../helpers/shared-resources.js';
import { ROOT, tempDir } from '../helpers/temp.js';

describe('the compiled sources of the run', () => {
  it('hold one .js file for every module of src/, and the CLI entry', async () => {
    const { root, cli } = await sharedResource('compiled-sources');
    const list = (dir: string, ext: RegExp) =>
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && ext.test(e.name))
        .map((e) => relative(dir, join(e.parentPath, e.name)).replace(/\.(ts|js)$/, ''))
        .sort();
    expect(list(join(root, 'src'), /\.js$/)).toEqual(list(join(ROOT, 'src'), /(?<!\.d)\.ts$/));
    expect(cli).toBe(join(root, 'src/cli/main.js'));
    expect(await compiledModule('src/read/record-scan-worker.ts')).toBe(join(root, 'src/read/record-scan-worker.js'));
    await expect(compiledModule('test/helpers/temp.ts')).rejects.toThrow('not a module under src/: test/helpers/temp.ts');
  });

  it('run the CLI as the repository does: its version from package.json, the example inputs from fixtures/', async () => {
    const { cli } = await sharedResource('compiled-sources');
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(execFileSync(process.execPath, [cli, '--version'], { cwd: ROOT, encoding: 'utf8' }).trim()).toBe(version);
    const dir = tempDir();
    execFileSync(process.execPath, [cli, 'examples', dir], { cwd: ROOT, encoding: 'utf8' });
    expect(readFileSync(join(dir, 'fixtures/kb-three-kingdoms/README.md'))).toEqual(readFileSync(join(ROOT, 'fixtures/kb-three-kingdoms/README.md')));
  });

  it('start a worker thread from a compiled worker module', async () => {
    const file = await compiledModule('src/read/record-scan-worker.ts');
    const w = new Worker(file, { workerData: { octxRecordScan: {} } });
    try {
      const first = await new Promise<unknown>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
      expect(first).toEqual({ ready: true });
    } finally {
      await w.terminate();
    }
  });
});
