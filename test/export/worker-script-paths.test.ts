import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const REPO = join(import.meta.dirname, '..', '..');

// Exports a small package with the verify worker forced on, from the ESM or the CommonJS build,
// and prints how many verify workers started.
const SCRIPT = `
const mode = process.argv[2];
(async () => {
  const base = mode === 'cjs' ? '../dist/cjs/' : '../dist/';
  const load = async (p) => (mode === 'cjs' ? require(base + p) : await import(base + p));
  const vt = await load('export/verify-thread.js');
  vt.setVerifyWorkers('always');
  const { PackageBuilder } = await load('index.js');
  const b = new PackageBuilder({ asset: { name: 'V' }, release: { version: '1.0.0' } });
  for (let i = 0; i < 5; i++) b.addDocument({ path: 'd' + i + '.md', markdown: '# D' + i + '\\n\\n' + 'word '.repeat(2000 + i) + '\\n' });
  await b.export({ output: process.argv[3] });
  console.log(vt.verifyWorkersStarted());
})().catch((e) => { console.error(e); process.exitCode = 1; });
`;

describe('worker entries under unusual install paths (review of issue 23)', () => {
  // A path with a space or a parenthesis used to be cut wrongly out of the stack text, so the
  // worker was silently skipped (or another file taken); an app's small stack limit hid the frame.
  it.each([
    ['a space', 'sp ace', []],
    ['a parenthesis', 'par(1) (x86)', []],
    ['a stack trace limit of 1', 'plain', ['--stack-trace-limit=1']],
  ] as const)(
    'starts the verify worker from both builds under %s',
    (_what, folder, flags) => {
      const pkg = join(tempDir(), folder, 'pkg');
      mkdirSync(join(pkg, 'scratch'), { recursive: true });
      cpSync(join(REPO, 'dist'), join(pkg, 'dist'), { recursive: true });
      cpSync(join(REPO, 'package.json'), join(pkg, 'package.json'));
      symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'));
      writeFileSync(join(pkg, 'scratch', 'vw.cjs'), SCRIPT);
      for (const mode of ['esm', 'cjs']) {
        const r = spawnSync(process.execPath, [...flags, join('scratch', 'vw.cjs'), mode, join(pkg, `${mode}.octx`)], { cwd: pkg, encoding: 'utf8', timeout: 60_000 });
        expect(r.stderr).toBe('');
        expect(r.stdout.trim()).toBe('1');
      }
    },
    120_000,
  );
});
