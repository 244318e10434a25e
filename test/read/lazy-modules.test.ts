import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/temp.js';

/**
 * Runs `body` (ESM, from the repository root, sources through tsx) after a resolve hook that
 * prints every heavy dependency imported; returns those names and the script's stdout.
 */
function heavyImports(body: string): { imported: string[]; stdout: string } {
  const hook = `export async function resolve(s, c, next) {
    if (/^(apache-arrow|zod)(\\/|$)/.test(s)) process.stderr.write('HEAVY ' + s.split('/')[0] + '\\n');
    return next(s, c);
  }`;
  const script = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
${body}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const imported = [...new Set([...r.stderr.matchAll(/^HEAVY (\S+)$/gm)].map((m) => m[1]!))].sort();
  return { imported, stdout: r.stdout };
}

// Memory (issue 23 item 5): apache-arrow and zod each cost 10–20 MiB of RSS once loaded; a
// command that does not need them must not load them.
describe('heavy dependencies are loaded only when needed', () => {
  it('the CLI, and validatePackage on a package without vectors, load neither apache-arrow nor zod', () => {
    const { imported, stdout } = heavyImports(`
const { main } = await import('./src/cli/cli.ts');
const { validatePackage } = await import('./src/read/validate-package.ts');
const report = await validatePackage('test/read/fixtures/B_sag_structured');
process.stdout.write(JSON.stringify({ valid: report.valid, main: typeof main }));`);
    expect(JSON.parse(stdout)).toEqual({ valid: true, main: 'function' });
    expect(imported).toEqual([]);
  }, 90_000);

  it('the hook does see them when vectors are read (control)', () => {
    const { imported } = heavyImports(`await import('./src/read/arrow-file.ts'); await import('./src/release/producer-state.ts');`);
    expect(imported).toEqual(['apache-arrow', 'zod']);
  }, 90_000);
});
