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

  it('`build` of a working folder without adapters loads no zod (issue 23 item 5)', () => {
    // Valid options and records are checked by hand; zod only explains a refusal.
    const { imported, stdout } = heavyImports(`
const { mkdtempSync, rmSync } = await import('node:fs');
const { join } = await import('node:path');
const { tmpdir } = await import('node:os');
const { main } = await import('./src/cli/cli.ts');
const dir = mkdtempSync(join(tmpdir(), 'octx-lazy-build-'));
const lines = [];
const io = { stdout: { write: (s) => void lines.push(String(s)) }, stderr: { write: (s) => void lines.push(String(s)) } };
try {
  const code = await main(['build', 'fixtures/kb-three-kingdoms', '-o', join(dir, 'tk.octx'), '--name', 'Three Kingdoms', '--require-structure',
    '--asset-id', '019c2222-2222-7222-8222-222222222222', '--created-at', '2026-07-12T10:00:00Z'], io);
  // zod's CommonJS build is what zodOnDemand() require()s: the ESM hook above does not see that.
  const { createRequire } = await import('node:module');
  const required = Object.keys(createRequire(join(process.cwd(), 'x.js')).cache).some((k) => /node_modules[\\/]zod[\\/]/.test(k));
  process.stdout.write(JSON.stringify({ code, structure: lines.join('').includes('structure     written: 27 chunks'), required }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}`);
    expect(JSON.parse(stdout)).toEqual({ code: 0, structure: true, required: false });
    expect(imported).toEqual([]);
  }, 90_000);

  it('an invalid record or option is still explained by its zod schema, loaded on demand (control)', () => {
    const { imported, stdout } = heavyImports(`
const { PackageBuilder } = await import('./src/builder/package-builder.ts');
const codes = [];
try { new PackageBuilder({ asset: { name: 'x' }, compressionLevel: 11 }); } catch (e) { codes.push(e.code, e.issues[0].field, e.issues[0].message); }
const b = new PackageBuilder({ asset: { name: 'x' } });
try { b.addChunk({ id: 'not-a-uuid', document_id: '019c2222-2222-7222-8222-222222222222', text: 't' }); } catch (e) { codes.push(e.code, e.issues[0].field); }
await b.dispose();
const { createRequire } = await import('node:module');
const required = Object.keys(createRequire(process.cwd() + '/x.js').cache).some((k) => /node_modules[\\/]zod[\\/]/.test(k));
process.stdout.write(JSON.stringify({ codes, required }));`);
    expect(JSON.parse(stdout)).toEqual({
      codes: ['OCTX_OPTIONS_INVALID', 'compressionLevel', 'compressionLevel Too big: expected number to be <=9', 'OCTX_ID_INVALID', 'id'],
      required: true,
    });
    expect(imported).toEqual([]); // the ESM build of zod stays unloaded
  }, 90_000);

  it('the hook does see them when vectors are read (control)', () => {
    const { imported } = heavyImports(`await import('./src/read/arrow-file.ts'); await import('./src/structure/record-schemas.ts');`);
    expect(imported).toEqual(['apache-arrow', 'zod']);
  }, 90_000);
});
