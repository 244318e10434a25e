/**
 * A frontmatter key `<<` (YAML 1.1's merge key: PyYAML refuses `<<: 1`, the yaml library used to
 * throw a bare `Error` on it) reaches every reader of a package as a typed issue: validatePackage,
 * openPackage, diffPackages and the CLI's `validate` and `diff` (which used to print
 * `error[UNEXPECTED]`). The builder writes the key quoted, a plain key for every reader.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffPackages, openPackage, PackageBuilder, validatePackage } from '../../src/index.js';
import { readPackageText } from '../helpers/package-files.js';
import { tempDir } from '../helpers/temp.js';
import { cliInProcess } from '../cli/cli-in-process.js';
import { conceptMd, entriesOf, writeDir } from './helpers.js';

const ID = '019c1234-5678-7abc-8def-0123456789ab';
const MERGE = `---\n<<: 1\ntype: Guide\ntitle: T\noctx:\n  document_id: "${ID}"\n---\n# T\n`;

describe('<<: 1 in a package’s frontmatter', () => {
  it('validatePackage, openPackage, diffPackages and the CLI report it as OCTX_DOCUMENT_FRONTMATTER, never an untyped error', async () => {
    const bad = await writeDir(entriesOf({ files: { 'knowledge/x.md': MERGE } }));
    const good = await writeDir(entriesOf({ files: { 'knowledge/x.md': conceptMd(ID, 'T') } }));

    const report = await validatePackage(bad);
    expect(report.valid).toBe(false);
    expect(report.issues.map((i) => [i.code, i.path])).toEqual([['OCTX_DOCUMENT_FRONTMATTER', 'knowledge/x.md']]);
    expect(report.issues[0]!.message).toContain('<<');

    const opened = await openPackage(bad);
    const read: { path: string; codes: string[] }[] = [];
    for await (const d of opened.documents()) read.push({ path: d.path, codes: d.issues.map((i) => i.code) });
    expect(read).toEqual([{ path: 'knowledge/x.md', codes: ['OCTX_DOCUMENT_FRONTMATTER'] }]);

    const diff = await diffPackages(good, bad);
    expect(diff.documents.changed.map((d) => d.path)).toEqual(['knowledge/x.md']);

    const cli = await cliInProcess(['validate', bad]);
    expect(cli.code).toBe(1);
    expect(cli.stdout + cli.stderr).toContain('OCTX_DOCUMENT_FRONTMATTER');
    expect(cli.stdout + cli.stderr).not.toContain('UNEXPECTED');
    const cliDiff = await cliInProcess(['diff', good, bad, '--exit-code']);
    expect(cliDiff.code).toBe(1);
    expect(cliDiff.stderr).not.toContain('UNEXPECTED');
  });

  it('addDocument writes the key quoted ("<<": 1), which the validator takes', async () => {
    const out = join(tempDir(), 'p.octx');
    await new PackageBuilder({ asset: { name: 'M' } }).addDocument({ path: 'x.md', markdown: MERGE }).export({ output: out });
    expect(await readPackageText(out, 'knowledge/x.md')).toMatch(/^---\n"<<": 1\n/);
    expect((await validatePackage(out)).valid).toBe(true);
  });
});
