import { execFileSync } from 'node:child_process';
import { link, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage, type ValidationReport } from '../../src/read/index.js';
import type { OctxCode } from '../../src/model/codes.js';
import { GUIDE_MD, entriesOf, tempDir, writeDir } from './helpers.js';

const DOCS = { files: { 'knowledge/guide.md': GUIDE_MD } };

function refused(r: ValidationReport, code: OctxCode, message?: RegExp): void {
  expect(r.valid).toBe(false);
  expect(r.issues).toHaveLength(1);
  expect(r.issues[0]!.code).toBe(code);
  if (message) expect(r.issues[0]!.message).toMatch(message);
}

describe('directory packages', () => {
  it('validates a clean folder (unlisted safe files are ignored)', async () => {
    const dir = await writeDir({ ...entriesOf(DOCS), '.octx/state.json': '{}' });
    const r = await validatePackage(dir);
    expect(r.issues).toEqual([]);
    expect(r.valid).toBe(true);
  });

  it('refuses a symlinked file', async () => {
    const dir = await writeDir(entriesOf(DOCS));
    await symlink('/etc/hostname', join(dir, 'knowledge', 'link.md'));
    refused(await validatePackage(dir), 'OCTX_SECURITY_ERROR', /symbolic link/);
  });

  it('refuses a symlinked folder', async () => {
    const dir = await writeDir(entriesOf(DOCS));
    await symlink(await tempDir(), join(dir, 'extensions'));
    refused(await validatePackage(dir), 'OCTX_SECURITY_ERROR', /symbolic link/);
  });

  it('refuses a hard link', async () => {
    const dir = await writeDir(entriesOf(DOCS));
    await link(join(dir, 'knowledge', 'guide.md'), join(await tempDir(), 'other-name.md'));
    refused(await validatePackage(dir), 'OCTX_SECURITY_ERROR', /hard link/);
  });

  it('refuses a FIFO', async () => {
    const dir = await writeDir(entriesOf(DOCS));
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    refused(await validatePackage(dir), 'OCTX_SECURITY_ERROR', /FIFO/);
  });

  it('refuses unsafe names: backslash, non-NFC, non-UTF-8', async () => {
    for (const name of ['a\\b.md', 'e\u0301.md']) {
      const dir = await writeDir(entriesOf(DOCS));
      await writeFile(join(dir, 'knowledge', name), 'x');
      refused(await validatePackage(dir), 'OCTX_SECURITY_ERROR');
    }
    const dir = await writeDir(entriesOf(DOCS));
    await writeFile(Buffer.concat([Buffer.from(join(dir, 'knowledge') + '/'), Buffer.from([0x66, 0xff, 0x2e, 0x6d, 0x64])]), 'x');
    refused(await validatePackage(dir), 'OCTX_SECURITY_ERROR', /UTF-8/);
  });

  it('applies the entry and size limits', async () => {
    const dir = await writeDir(entriesOf(DOCS));
    refused(await validatePackage(dir, { limits: { maxEntries: 2 } }), 'OCTX_RESOURCE_LIMIT');
    refused(await validatePackage(dir, { limits: { maxFileSize: 100 } }), 'OCTX_RESOURCE_LIMIT');
  });

  it('refuses a folder without manifest.json (OCTX_FORMAT_ERROR)', async () => {
    const dir = await writeDir({ 'knowledge/guide.md': GUIDE_MD });
    refused(await validatePackage(dir), 'OCTX_FORMAT_ERROR', /manifest/);
  });

  it('refuses a file that changed after the package was opened', async () => {
    const dir = await writeDir(entriesOf(DOCS));
    const pkg = await openPackage(dir);
    try {
      await writeFile(join(dir, 'knowledge', 'guide.md'), `${GUIDE_MD}more\n`);
      refused(await validatePackage(pkg), 'OCTX_SECURITY_ERROR', /changed/);
    } finally {
      await pkg.close();
    }
  });

  it('refuses a file replaced by a symlink after the walk', async () => {
    const dir = await writeDir(entriesOf(DOCS));
    const pkg = await openPackage(dir);
    try {
      const { rm } = await import('node:fs/promises');
      await rm(join(dir, 'knowledge', 'guide.md'));
      await symlink('/etc/hostname', join(dir, 'knowledge', 'guide.md'));
      refused(await validatePackage(pkg), 'OCTX_SECURITY_ERROR');
    } finally {
      await pkg.close();
    }
  });
});
