/**
 * Review of issues 15 and 16 (round 2): a refused CLI export leaves no folder it created (for
 * `-o … --mkdir` or for `--state`), `validate` and `inspect` take the limits a package was built
 * with, and `--limits {"maxFrontmatterBytes": …}` reaches the builder.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const FIXTURE = join(ROOT, 'fixtures/kb-three-kingdoms');
const ASSET = '019c2222-2222-7222-8222-222222222222';

/** The fixture plus one note no chunk links: `--strict` refuses it (the structure layer would be left out). */
function degradingWorkdir(): string {
  const dir = join(tempDir('octx-wd-'), 'wd');
  cpSync(FIXTURE, dir, { recursive: true });
  writeFileSync(join(dir, 'knowledge/extra.md'), '# Extra\n\nNot linked to any chunk.\n');
  return dir;
}

/** A working folder with two small documents: a package of three entries with its manifest. */
function smallWorkdir(): string {
  const dir = join(tempDir('octx-small-'), 'kb');
  mkdirSync(join(dir, 'knowledge'), { recursive: true });
  writeFileSync(join(dir, 'knowledge/a.md'), '# A\n\nText a.\n');
  writeFileSync(join(dir, 'knowledge/b.md'), '# B\n\nText b.\n');
  return dir;
}

describe('a refused export leaves no folder it created', () => {
  it('-o newdir/sub/kb.octx --mkdir --strict: refused, and newdir is gone again', async () => {
    const wd = degradingWorkdir();
    const tmp = tempDir();
    const r = await runCli(['build', wd, '-o', join(tmp, 'newdir/sub/kb.octx'), '--mkdir', '--name', 'KB', '--strict', '--asset-id', ASSET]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error\[OCTX_STRICT_VIOLATION\]/m);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('--mkdir into a folder that exists keeps it; a successful --mkdir export keeps the folders it made', async () => {
    const tmp = tempDir();
    mkdirSync(join(tmp, 'kept'));
    const refused = await runCli(['build', degradingWorkdir(), '-o', join(tmp, 'kept/new/kb.octx'), '--mkdir', '--name', 'KB', '--strict', '--asset-id', ASSET]);
    expect(refused.code).toBe(1);
    expect(readdirSync(tmp)).toEqual(['kept']);
    expect(readdirSync(join(tmp, 'kept'))).toEqual([]);
    const ok = await runCli(['build', smallWorkdir(), '-o', join(tmp, 'kept/new/kb.octx'), '--mkdir', '--name', 'KB', '--asset-id', ASSET]);
    expect(ok.code).toBe(0);
    expect(existsSync(join(tmp, 'kept/new/kb.octx'))).toBe(true);
  });

  it('--state st/state.json: a refused export removes the folder made for the state; a written state keeps it', async () => {
    const wd = degradingWorkdir();
    const tmp = tempDir();
    const r = await runCli(['build', wd, '-o', join(tmp, 'kb.octx'), '--name', 'KB', '--strict', '--state', join(tmp, 'st/deeper/state.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error\[OCTX_STRICT_VIOLATION\]/m);
    expect(readdirSync(tmp)).toEqual([]);
    const ok = await runCli(['build', smallWorkdir(), '-o', join(tmp, 'kb.octx'), '--name', 'KB', '--state', join(tmp, 'st/deeper/state.json')]);
    expect(ok.code).toBe(0);
    expect(readdirSync(join(tmp, 'st/deeper'))).toEqual(['state.json']);
  });

  it('-o and --state in the same new folder (--mkdir): a refused export removes it', async () => {
    const tmp = tempDir();
    const r = await runCli(['build', degradingWorkdir(), '-o', join(tmp, 'out/kb.octx'), '--mkdir', '--name', 'KB', '--strict', '--state', join(tmp, 'out/state.json')]);
    expect(r.code).toBe(1);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('validate and inspect take --max-entries and --limits', () => {
  it('validate --max-entries 2 refuses a three-entry package with OCTX_RESOURCE_LIMIT; a raised limit reads it', async () => {
    const tmp = tempDir();
    const pkg = join(tmp, 'kb.octx');
    expect((await runCli(['build', smallWorkdir(), '-o', pkg, '--name', 'KB', '--asset-id', ASSET])).code).toBe(0);
    const limits = join(tmp, 'lim.json');
    writeFileSync(limits, '{"maxEntries": 2}');
    const [low, fromFile, raised, bad] = await Promise.all([
      runCli(['validate', pkg, '--max-entries', '2', '--json']),
      runCli(['validate', pkg, '--limits', limits]),
      runCli(['validate', pkg, '--limits', limits, '--max-entries', '3']),
      runCli(['validate', pkg, '--max-entries', '0']),
    ]);
    expect(low.code).toBe(1);
    const doc = jsonOf(low) as { valid: boolean; issues: { code: string }[] };
    expect(doc.valid).toBe(false);
    expect(doc.issues.map((e) => e.code)).toContain('OCTX_RESOURCE_LIMIT');
    expect(fromFile.code).toBe(1);
    expect(fromFile.stdout + fromFile.stderr).toContain('OCTX_RESOURCE_LIMIT');
    expect(raised.code).toBe(0); // --max-entries wins over the file's maxEntries
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: --max-entries must be a positive integer/m);
  });

  it('inspect --max-entries: refused below the package, read at or above it', async () => {
    const tmp = tempDir();
    const pkg = join(tmp, 'kb.octx');
    expect((await runCli(['build', smallWorkdir(), '-o', pkg, '--name', 'KB', '--asset-id', ASSET])).code).toBe(0);
    const limits = join(tmp, 'lim.json');
    writeFileSync(limits, '{"maxEntries": 100}');
    const [low, raised, fromFile, typo] = await Promise.all([
      runCli(['inspect', pkg, '--max-entries', '2']),
      runCli(['inspect', pkg, '--max-entries', '3']),
      runCli(['inspect', pkg, '--limits', limits]),
      runCli(['inspect', pkg, '--limits', join(tmp, 'missing.json')]),
    ]);
    expect(low.code).not.toBe(0);
    expect(low.stderr).toMatch(/^error\[OCTX_RESOURCE_LIMIT\]/m);
    expect(low.stderr).toMatch(/^hint: .*--max-entries/m);
    expect(raised.code).toBe(0);
    expect(raised.stdout).toContain('KB');
    expect(fromFile.code).toBe(0);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^error\[OCTX_USAGE_ERROR\]: --limits: cannot read/m);
  });
});

describe('--limits maxFrontmatterBytes reaches the builder', () => {
  /** A document whose frontmatter block is a little over `bytes`. */
  function bigFrontmatter(bytes: number): string {
    const dir = join(tempDir('octx-fm-'), 'kb');
    mkdirSync(join(dir, 'knowledge'), { recursive: true });
    writeFileSync(join(dir, 'knowledge/big.md'), `---\ntype: note\nsummary: "${'x'.repeat(bytes)}"\n---\n# Big\n\nBody.\n`);
    return dir;
  }

  it('a 1.5 MiB frontmatter block is refused by default with a hint naming --limits, and built with a raised limit', async () => {
    const wd = bigFrontmatter(1_500_000);
    const tmp = tempDir();
    const limits = join(tmp, 'lim.json');
    writeFileSync(limits, '{"maxFrontmatterBytes": 4000000}');
    const [refused, raised] = await Promise.all([
      runCli(['build', wd, '-o', join(tmp, 'a.octx'), '--name', 'KB', '--asset-id', ASSET]),
      runCli(['build', wd, '-o', join(tmp, 'b.octx'), '--name', 'KB', '--asset-id', ASSET, '--limits', limits]),
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^error\[OCTX_FRONTMATTER_TOO_LARGE\]/m);
    expect(refused.stderr).toMatch(/^hint: .*--limits <file\.json> with \{"maxFrontmatterBytes": <n>\}/m);
    expect(raised.stderr).toBe('');
    expect(raised.code).toBe(0);
    // The package is read back with the same limit, and refused without it.
    const [check, checkDefault] = await Promise.all([runCli(['validate', join(tmp, 'b.octx'), '--limits', limits]), runCli(['validate', join(tmp, 'b.octx')])]);
    expect(check.code).toBe(0);
    expect(checkDefault.code).toBe(1);
    expect(checkDefault.stdout + checkDefault.stderr).toContain('OCTX_FRONTMATTER_TOO_LARGE');
  });
});
