/**
 * `export({ previous })` at its edges: a previous that does not exist when the export starts (the
 * output itself, or a symlink to it) is "no previous" (a warning, never the new package compared
 * with itself); a symlink to the output being overwritten is the old package; a comparison that
 * fails after publication is a warning; under `strict`, an unreadable previous refuses the export
 * before anything is written.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder } from '../../src/index.js';
import { failureAsync } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';
import { ASSET, D1, release100 } from './fixtures.js';

function edited(strict = false): PackageBuilder {
  const b = new PackageBuilder({ asset: { id: ASSET, name: 'KB' }, release: { version: '1.0.1', createdAt: '2026-07-13T10:00:00Z' }, strict });
  return b.addDocument({ path: 'a.md', markdown: `---\ntype: Note\ntitle: A\noctx:\n  document_id: ${D1}\n---\n# A\n\nAlpha, edited.\n` });
}

const noPrevious = (previous: string) => [
  expect.objectContaining({
    code: 'OCTX_OPEN_ERROR',
    severity: 'warning',
    field: 'previous',
    message: `no change summary against ${previous}: it did not exist when the export started`,
  }),
];

describe('export({ previous }) edges', () => {
  it('previous is the output, which does not exist yet: no previous (a warning), not the new package compared with itself', async () => {
    const out = join(tempDir(), 'new.octx');
    const r = await edited().export({ output: out, previous: out });
    expect(r.report.changes).toBeUndefined();
    expect(r.report.warnings).toEqual(noPrevious(out));
    expect(readFileSync(out).length).toBeGreaterThan(0);
  });

  it('previous is a symlink to the output, which does not exist yet: no previous', async () => {
    const dir = tempDir();
    const out = join(dir, 'new.octx');
    const link = join(dir, 'latest.octx');
    symlinkSync(out, link);
    const r = await edited().export({ output: out, previous: link });
    expect(r.report.changes).toBeUndefined();
    expect(r.report.warnings).toEqual(noPrevious(link));
  });

  it('previous is a symlink to the output it overwrites: compared with the old package', async () => {
    const dir = tempDir();
    const old = await release100(dir);
    const link = join(dir, 'latest.octx');
    symlinkSync(old, link);
    const r = await edited().export({ output: old, overwrite: true, previous: link });
    expect(r.report.warnings).toEqual([]);
    expect(r.report.changes).toMatchObject({ against: { path: link, version: '1.0.0' }, hasChanges: true, documents: { removed: 2, changed: 1 } });
  });

  it('a previous that cannot be compared (a folder) is a warning once the package is published', async () => {
    const dir = tempDir();
    const folder = join(dir, 'old');
    mkdirSync(folder);
    const r = await edited().export({ output: join(dir, 'new.octx'), previous: folder });
    expect(r.report.changes).toBeUndefined();
    expect(r.report.warnings).toEqual([
      expect.objectContaining({ severity: 'warning', field: 'previous', message: expect.stringContaining(`no change summary against ${folder}`) }),
    ]);
    expect(existsSync(join(dir, 'new.octx'))).toBe(true);
  });

  it('strict: a previous that is missing or not a file refuses the export before anything is written; the builder stays usable', async () => {
    const dir = tempDir();
    const out = join(dir, 'new.octx');
    const b = edited(true);
    for (const previous of [join(dir, 'gone.octx'), dir]) {
      const e = await failureAsync(b.export({ output: out, previous }));
      expect(e.code).toBe('OCTX_STRICT_VIOLATION');
      expect(e.issues[0]).toMatchObject({ code: 'OCTX_OPEN_ERROR', severity: 'error', field: 'previous' });
      expect(e.message).toContain(previous);
      expect(existsSync(out)).toBe(false);
    }
    const old = await release100(tempDir());
    const r = await b.export({ output: out, previous: old });
    expect(r.report.changes).toMatchObject({ hasChanges: true });
  });
});
