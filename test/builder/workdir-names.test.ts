/**
 * File names of a folder build: a name that is not UTF-8 is refused by name (typed, never a raw
 * ENOENT after the name was read as U+FFFD), and names that differ only by letter case warn
 * (one file on a case-insensitive file system), which `strict` refuses at export.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, loadWorkdir } from '../../src/index.js';
import { failureAsync } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

const page = (title: string) => `---\ntype: Note\ntitle: ${title}\n---\n# ${title}\n\nText.\n`;
const builder = (strict = false) => new PackageBuilder({ asset: { name: 'N' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' }, strict });

describe('folder build file names', () => {
  it('a name that is not UTF-8 is refused by name (OCTX_PATH_INVALID), with its bytes', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'ok.md'), page('Ok'));
    writeFileSync(Buffer.concat([Buffer.from(join(dir, 'sub') + '/'), Buffer.from([0x63, 0x61, 0x66, 0xe9]), Buffer.from('.md')]), page('Latin-1'));
    const e = await failureAsync(loadWorkdir(builder(), dir));
    expect(e.code).toBe('OCTX_PATH_INVALID');
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0]).toMatchObject({ code: 'OCTX_PATH_INVALID', path: 'sub/caf\\xe9.md' });
    expect(e.issues[0]!.message).toContain('is not UTF-8');
  });

  it('names that differ only by case warn; the export under strict refuses them', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'Guide.md'), page('Upper'));
    writeFileSync(join(dir, 'guide.md'), page('Lower'));
    const lax = builder();
    const report = await loadWorkdir(lax, dir);
    const warning = report.warnings.find((w) => w.code === 'OCTX_PATH_CASE_COLLISION');
    expect(warning).toMatchObject({ severity: 'warning', path: 'guide.md' });
    expect(warning!.message).toBe(
      'guide.md and Guide.md differ only by letter case: one file on a case-insensitive file system (macOS, Windows), where unpacking the package loses one',
    );
    const r = await lax.export({ output: join(tempDir(), 'p.octx') });
    expect(r.report.warnings.map((w) => w.code)).toContain('OCTX_PATH_CASE_COLLISION');
    const strict = builder(true);
    await loadWorkdir(strict, dir);
    const e = await failureAsync(strict.export({ output: join(tempDir(), 's.octx') }));
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(e.issues.some((i) => i.code === 'OCTX_PATH_CASE_COLLISION')).toBe(true);
  });
});

describe('folder build file names equal by case and Unicode normalisation together', () => {
  it('É.md (precomposed) and e + U+0301 .md warn as a case collision; NFC-equal names are refused by addDocument', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '\u00c9.md'), page('Upper'));
    writeFileSync(join(dir, 'e\u0301.md'), page('Lower'));
    const report = await loadWorkdir(builder(), dir);
    const warnings = report.warnings.filter((w) => w.code === 'OCTX_PATH_CASE_COLLISION');
    expect(warnings.map((w) => w.path)).toEqual(['\u00c9.md']);
    expect(warnings[0]!.message).toBe(
      '\u00c9.md and e\u0301.md differ only by letter case: one file on a case-insensitive file system (macOS, Windows), where unpacking the package loses one',
    );
    const same = tempDir();
    writeFileSync(join(same, '\u00e9.md'), page('Composed'));
    writeFileSync(join(same, 'e\u0301.md'), page('Decomposed'));
    expect((await failureAsync(loadWorkdir(builder(), same))).code).toBe('OCTX_FILE_PATH_DUPLICATE');
  });
});
