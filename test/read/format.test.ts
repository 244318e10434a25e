import { describe, expect, it } from 'vitest';
import { validatePackage, type ValidationReport } from '../../src/read/index.js';
import type { OctxCode } from '../../src/model/codes.js';
import { ASSET_ID, DOC_ID, GUIDE_MD, conceptMd, entriesOf, rawZip, tid, writeBytes, writeDir, type AnyJson, type PackageSpec } from './helpers.js';

const docs = (more: Record<string, string | Buffer> = {}): Record<string, string | Buffer> => ({ 'knowledge/guide.md': GUIDE_MD, ...more });

async function check(spec: PackageSpec, options = {}): Promise<ValidationReport> {
  return validatePackage(await writeDir(entriesOf(spec)), options);
}

function codes(r: ValidationReport): OctxCode[] {
  return [...new Set(r.issues.map((i) => i.code))].sort();
}

/** Broken packages: each must be format-invalid with exactly these codes. */
const FORMAT_INVALID: [string, PackageSpec, OctxCode[]][] = [
  ['format "octx2"', { files: docs(), edit: (m) => (m.format = 'octx2') }, ['OCTX_FORMAT_VERSION_UNSUPPORTED']],
  ['format_version "0.2"', { files: docs(), edit: (m) => (m.format_version = '0.2') }, ['OCTX_FORMAT_VERSION_UNSUPPORTED']],
  ['format_version as a number', { files: docs(), edit: (m) => (m.format_version = 0.1) }, ['OCTX_FORMAT_VERSION_UNSUPPORTED']],
  ['upper-case asset id', { files: docs(), edit: (m) => (m.asset.id = ASSET_ID.toUpperCase()) }, ['OCTX_SCHEMA_VALIDATION']],
  ['v4 asset id', { files: docs(), edit: (m) => (m.asset.id = '019c0000-0000-4000-8000-000000000001') }, ['OCTX_SCHEMA_VALIDATION']],
  ['empty asset name', { files: docs(), edit: (m) => (m.asset.name = '') }, ['OCTX_SCHEMA_VALIDATION']],
  ['missing asset', { files: docs(), edit: (m) => delete m.asset }, ['OCTX_SCHEMA_VALIDATION']],
  ['asset id equal to a document id', { files: docs(), edit: (m) => (m.asset.id = DOC_ID) }, ['OCTX_ID_DUPLICATE']],
  ['derived_from without package_digest', { files: docs(), edit: (m) => (m.asset.derived_from = { asset_id: tid(), version: '1.0.0' }) }, ['OCTX_SCHEMA_VALIDATION']],
  [
    'derived_from naming itself',
    { files: docs(), edit: (m) => (m.asset.derived_from = { asset_id: ASSET_ID, version: '1.0.0', package_digest: `sha256:${'a'.repeat(64)}` }) },
    ['OCTX_ASSET_DERIVED_FROM_SELF'],
  ],
  ['version v1.0.0', { files: docs(), edit: (m) => (m.release.version = 'v1.0.0') }, ['OCTX_SCHEMA_VALIDATION']],
  ['created_at with +00:00', { files: docs(), edit: (m) => (m.release.created_at = '2026-07-12T10:00:00+00:00') }, ['OCTX_RELEASE_CREATED_AT_INVALID', 'OCTX_SCHEMA_VALIDATION']],
  [
    'created_at with lower-case t and z',
    { files: docs(), edit: (m) => (m.release.created_at = '2026-07-12t10:00:00z') },
    ['OCTX_RELEASE_CREATED_AT_INVALID', 'OCTX_SCHEMA_VALIDATION'],
  ],
  ['created_at on February 30', { files: docs(), edit: (m) => (m.release.created_at = '2026-02-30T10:00:00Z') }, ['OCTX_RELEASE_CREATED_AT_INVALID']],
  ['missing created_at', { files: docs(), edit: (m) => delete m.release.created_at }, ['OCTX_SCHEMA_VALIDATION']],
  ['package_digest without prefix', { files: docs(), tamper: (m) => (m.release.package_digest = 'a'.repeat(64)) }, ['OCTX_SCHEMA_VALIDATION']],
  ['package digest tampered', { files: docs(), tamper: (m) => (m.release.package_digest = `sha256:${'0'.repeat(64)}`) }, ['OCTX_PACKAGE_DIGEST_MISMATCH']],
  ['manifest edited after digesting', { files: docs(), tamper: (m) => (m['x-note'] = 'added later') }, ['OCTX_PACKAGE_DIGEST_MISMATCH']],
  ['release not an object', { files: docs(), edit: (m) => (m.release = 'now') }, ['OCTX_PACKAGE_DIGEST_INVALID', 'OCTX_SCHEMA_VALIDATION']],
  [
    'lone surrogate in a manifest string',
    { files: docs(), edit: (m) => (m['x-text'] = '\ud800'), tamper: (m) => (m.release.package_digest = `sha256:${'a'.repeat(64)}`) },
    ['OCTX_PACKAGE_DIGEST_INVALID'],
  ],
  ['capabilities {}', { files: docs(), capabilities: {} }, ['OCTX_SCHEMA_VALIDATION']],
  ['capabilities as an array', { files: docs(), capabilities: [] }, ['OCTX_SCHEMA_VALIDATION']],
  ['files []', { files: {}, edit: (m) => (m.files = []) }, ['OCTX_CONCEPT_REQUIRED', 'OCTX_SCHEMA_VALIDATION']],
  ['files not an array', { files: docs(), edit: (m) => (m.files = {}) }, ['OCTX_CONCEPT_REQUIRED', 'OCTX_PACKAGE_DIGEST_INVALID', 'OCTX_SCHEMA_VALIDATION']],
  ['upper-case file sha256', { files: docs(), edit: (m) => (m.files[0].sha256 = m.files[0].sha256.toUpperCase()) }, ['OCTX_SCHEMA_VALIDATION']],
  ['manifest.json listed', { files: docs(), edit: (m) => m.files.push({ path: 'manifest.json', sha256: 'a'.repeat(64) }) }, ['OCTX_MANIFEST_SELF_LISTED']],
  ['a path listed twice', { files: docs(), edit: (m) => m.files.push({ ...m.files[0] }) }, ['OCTX_FILE_PATH_DUPLICATE']],
  ['listed README.md', { files: docs({ 'README.md': '# hi\n' }) }, ['OCTX_PAYLOAD_PATH_UNSUPPORTED']],
  ['listed knowledge/img.png', { files: docs({ 'knowledge/img.png': 'png' }) }, ['OCTX_PAYLOAD_PATH_UNSUPPORTED']],
  ['listed knowledge/UPPER.MD', { files: docs({ 'knowledge/UPPER.MD': conceptMd(tid()) }) }, ['OCTX_PAYLOAD_PATH_UNSUPPORTED']],
  ['extension namespace without a dot', { files: docs({ 'extensions/example/1.0/a.json': '{}' }) }, ['OCTX_PAYLOAD_PATH_UNSUPPORTED']],
  ['extension namespace with capitals', { files: docs({ 'extensions/Com.Example/1.0/a.json': '{}' }) }, ['OCTX_PAYLOAD_PATH_UNSUPPORTED']],
  ['extension version 01.0', { files: docs({ 'extensions/com.example/01.0/a.json': '{}' }) }, ['OCTX_PAYLOAD_PATH_UNSUPPORTED']],
  ['a traversal path in files[]', { files: docs(), edit: (m) => m.files.push({ path: '../x.md', sha256: 'a'.repeat(64) }) }, ['OCTX_PAYLOAD_PATH_UNSUPPORTED']],
  ['a listed file that is absent', { files: docs(), edit: (m) => m.files.push({ path: 'knowledge/gone.md', sha256: 'a'.repeat(64) }) }, ['OCTX_FILE_MISSING']],
  ['data/chunks.jsonl without sag-structured', { files: docs({ 'data/chunks.jsonl': '' }) }, ['OCTX_STANDARD_PATH_UNDECLARED']],
  ['vectors/config.json without vectors', { files: docs({ 'vectors/config.json': '{}' }) }, ['OCTX_STANDARD_PATH_UNDECLARED']],
  ['no concept document', { files: { 'knowledge/index.md': '# Index\n\n* [Guide](guide.md) - the guide\n' } }, ['OCTX_CONCEPT_REQUIRED']],
  ['a concept without frontmatter', { files: docs({ 'knowledge/plain.md': '# Plain\n\ntext\n' }) }, ['OCTX_DOCUMENT_FRONTMATTER']],
  ['a concept with unclosed frontmatter', { files: docs({ 'knowledge/open.md': '---\ntype: Reference\n# no end\n' }) }, ['OCTX_DOCUMENT_FRONTMATTER']],
  ['a concept that is not UTF-8', { files: docs({ 'knowledge/bad.md': Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0x0a]) }) }, ['OCTX_DOCUMENT_FRONTMATTER']],
  ['type: 1.0', { files: docs({ 'knowledge/t.md': `---\ntype: 1.0\noctx:\n  document_id: ${tid()}\n---\n# T\n` }) }, ['OCTX_DOCUMENT_TYPE_REQUIRED']],
  ['a concept without octx.document_id', { files: docs({ 'knowledge/n.md': '---\ntype: Reference\n---\n# N\n' }) }, ['OCTX_DOCUMENT_ID_INVALID']],
  ['two documents with one id', { files: docs({ 'knowledge/copy.md': conceptMd(DOC_ID, 'Copy') }) }, ['OCTX_ID_DUPLICATE']],
  [
    'nested index.md with frontmatter',
    { files: docs({ 'knowledge/sub/index.md': '---\nokf_version: "0.1"\n---\n# Sub\n\n* [Guide](../guide.md) - g\n' }) },
    ['OCTX_OKF_RESERVED_INVALID'],
  ],
  ['root index.md with another key', { files: docs({ 'knowledge/index.md': '---\ntitle: x\n---\n# Index\n\n* [Guide](guide.md) - g\n' }) }, ['OCTX_OKF_RESERVED_INVALID']],
  ['index.md without a link list', { files: docs({ 'knowledge/index.md': '# Index\n\nJust text.\n' }) }, ['OCTX_OKF_RESERVED_INVALID']],
  ['log.md oldest first', { files: docs({ 'knowledge/log.md': '# Log\n\n## 2026-01-01\n\n* **Update** a\n\n## 2026-02-01\n\n* **Update** b\n' }) }, ['OCTX_OKF_RESERVED_INVALID']],
  ['a file whose bytes changed', { files: docs(), edit: (m) => (m.files[0].sha256 = 'b'.repeat(64)) }, ['OCTX_FILE_DIGEST_MISMATCH']],
];

/** Packages that must validate without any error. */
const ACCEPTED: [string, PackageSpec][] = [
  ['pre-release SemVer with build metadata', { files: docs(), edit: (m) => (m.release.version = '1.0.0-rc.1+build.5') }],
  ['fractional created_at', { files: docs(), edit: (m) => (m.release.created_at = '2026-07-12T10:00:00.123456Z') }],
  ['a valid derived_from', { files: docs(), edit: (m) => (m.asset.derived_from = { asset_id: tid(), version: '2.1.0', package_digest: `sha256:${'a'.repeat(64)}` }) }],
  ['unknown manifest fields and profiles', { files: docs(), edit: (m) => Object.assign(m, { 'x-producer': { a: [1, 2.5, null] }, profiles: {} }) }],
  ['a valid extension file', { files: docs({ 'extensions/com.example.pipeline/1.0/data.jsonl': '{"a":1}\n' }) }],
  [
    'root index.md with okf_version and * links, log.md newest first',
    {
      files: docs({
        'knowledge/index.md': '---\nokf_version: "0.1"\n---\n# Index\n\n* [Guide](guide.md) - the guide\n',
        'knowledge/log.md': '# Log\n\n## 2026-02-01\n\n* **Update** b\n\n## 2026-01-01\n\n* a\n',
        'knowledge/sub/index.md': '# Sub\n\n- [Guide](/guide.md) - g\n',
      }),
    },
  ],
  [
    'Markdown with BOM and CRLF, quoted YAML scalars',
    { files: docs({ 'knowledge/crlf.md': `\ufeff---\r\ntype: "Reference"\r\ntitle: 'CRLF'\r\noctx:\r\n  document_id: "${tid()}"\r\n---\r\n# CRLF\r\n` }) },
  ],
  ['nested concepts at any depth', { files: docs({ 'knowledge/a/b/c/deep.md': conceptMd(tid(), 'Deep') }) }],
];

describe('format layer', () => {
  for (const [name, spec, expected] of FORMAT_INVALID) {
    it(`refuses ${name}: ${expected.join(' + ')}`, async () => {
      const r = await check(spec);
      expect(codes(r)).toEqual([...expected].sort());
      expect(r.valid).toBe(false);
      expect(r.fullyValidated).toBe(false);
      expect(r.format.valid).toBe(false);
    });
  }

  for (const [name, spec] of ACCEPTED) {
    it(`accepts ${name}`, async () => {
      const r = await check(spec);
      expect(r.issues).toEqual([]);
      expect(r.valid).toBe(true);
      expect(r.fullyValidated).toBe(true);
    });
  }

  it('points at the offending field and file', async () => {
    const r = await check({ files: docs(), edit: (m) => (m.release.version = 'v1.0.0') });
    expect(r.issues[0]).toMatchObject({ code: 'OCTX_SCHEMA_VALIDATION', severity: 'error', path: 'manifest.json', field: 'release.version' });
    const d = await check({ files: docs(), edit: (m) => (m.files[0].sha256 = 'b'.repeat(64)) });
    expect(d.issues[0]).toMatchObject({ code: 'OCTX_FILE_DIGEST_MISMATCH', path: 'knowledge/guide.md' });
  });

  it('refuses an integer outside the JCS range: the digest cannot be computed', async () => {
    const spec: PackageSpec = { files: docs() };
    const text = JSON.stringify(entriesManifest(spec)).replace('"format":"octx"', '"format":"octx","x-big":12345678901234567890');
    const r = await validatePackage(await writeDir({ ...entriesOf(spec), 'manifest.json': text }));
    expect(codes(r)).toEqual(['OCTX_PACKAGE_DIGEST_INVALID']);
  });

  it('reports every problem of a package in one pass', async () => {
    const r = await check({
      files: docs({ 'README.md': 'x', 'knowledge/plain.md': '# p\n' }),
      edit: (m: AnyJson) => {
        m.release.version = 'v1';
        m.files.push({ path: 'knowledge/gone.md', sha256: 'a'.repeat(64) });
      },
    });
    expect(codes(r)).toEqual(['OCTX_DOCUMENT_FRONTMATTER', 'OCTX_FILE_MISSING', 'OCTX_PAYLOAD_PATH_UNSUPPORTED', 'OCTX_SCHEMA_VALIDATION']);
  });
});

function entriesManifest(spec: PackageSpec): AnyJson {
  return JSON.parse(String(entriesOf(spec)['manifest.json']));
}

describe('manifest.json strictness (open errors)', () => {
  const base = (): AnyJson => entriesManifest({ files: docs() });
  const withManifest = async (text: string | Buffer): Promise<ValidationReport> => validatePackage(await writeDir({ 'knowledge/guide.md': GUIDE_MD, 'manifest.json': text }));
  const one = (r: ValidationReport, code: OctxCode): void => {
    expect(r.issues.map((i) => i.code)).toEqual([code]);
    expect(r.valid).toBe(false);
  };

  it('refuses a BOM, bad syntax, NaN, overflowing numbers and deep nesting', async () => {
    one(await withManifest(`\ufeff${JSON.stringify(base())}`), 'OCTX_MANIFEST_JSON_INVALID');
    one(await withManifest('{"format": "octx",}'), 'OCTX_MANIFEST_JSON_INVALID');
    one(await withManifest(JSON.stringify(base()).replace('"format":"octx"', '"format":"octx","x":NaN')), 'OCTX_MANIFEST_JSON_INVALID');
    one(await withManifest(JSON.stringify(base()).replace('"format":"octx"', '"format":"octx","x":1e999')), 'OCTX_MANIFEST_JSON_INVALID');
    one(await withManifest(Buffer.concat([Buffer.from('{"format":"'), Buffer.from([0xff]), Buffer.from('"}')])), 'OCTX_MANIFEST_JSON_INVALID');
    one(await withManifest(JSON.stringify(base()).replace('"format":"octx"', `"format":"octx","x":${'['.repeat(120)}${']'.repeat(120)}`)), 'OCTX_MANIFEST_JSON_INVALID');
  });

  it('refuses duplicate keys, also nested and escaped', async () => {
    one(await withManifest(JSON.stringify(base()).replace('"format":"octx"', '"format":"octx","format":"octx"')), 'OCTX_JSON_DUPLICATE_KEY');
    one(await withManifest(JSON.stringify(base()).replace('"name":"Guide"', '"name":"Guide","n\\u0061me":"Guide"')), 'OCTX_JSON_DUPLICATE_KEY');
  });

  it('refuses a manifest that is not an object (OCTX_FORMAT_ERROR)', async () => {
    one(await withManifest('[]'), 'OCTX_FORMAT_ERROR');
  });

  it('refuses a ZIP without manifest.json', async () => {
    one(await validatePackage(await writeBytes(rawZip([{ name: 'knowledge/guide.md', data: GUIDE_MD }]))), 'OCTX_FORMAT_ERROR');
  });

  it('refuses more listed files than maxEntries allows', async () => {
    const m = base();
    m.files.push({ path: 'knowledge/a.md', sha256: 'a'.repeat(64) }, { path: 'knowledge/b.md', sha256: 'a'.repeat(64) });
    const bytes = rawZip([
      { name: 'manifest.json', data: JSON.stringify(m) },
      { name: 'knowledge/guide.md', data: GUIDE_MD },
    ]);
    one(await validatePackage(await writeBytes(bytes), { limits: { maxEntries: 3 } }), 'OCTX_RESOURCE_LIMIT');
  });
});

describe('capability declarations', () => {
  it('capability version "0.1.0" invalidates only that capability', async () => {
    const r = await check({ files: docs(), capabilities: { 'sag-structured': { version: '0.1.0' } } });
    expect(r.format.valid).toBe(true);
    expect(r.valid).toBe(false);
    expect(r.capabilities['sag-structured']!.valid).toBe(false);
    expect(codes(r)).toEqual(['OCTX_CAPABILITY_DECLARATION_INVALID', 'OCTX_SCHEMA_VALIDATION']);
  });

  it('a declaration that is not an object is invalid too', async () => {
    const r = await check({ files: docs(), capabilities: { 'sag-structured': '0.1' } });
    expect(r.capabilities['sag-structured']!.issues.map((i) => i.code)).toEqual(['OCTX_CAPABILITY_DECLARATION_INVALID', 'OCTX_SCHEMA_VALIDATION']);
  });

  it('an unknown capability is a warning: valid, not fully validated', async () => {
    const r = await check({ files: docs(), capabilities: { 'com.example.graph': { version: '1.0' } } });
    expect(r.valid).toBe(true);
    expect(r.fullyValidated).toBe(false);
    expect(r.capabilities['com.example.graph']).toEqual({ valid: null, issues: [expect.objectContaining({ code: 'OCTX_CAPABILITY_UNSUPPORTED', severity: 'warning' })] });
  });

  it('an unsupported version of a known capability is a warning too', async () => {
    const r = await check({ files: docs(), capabilities: { 'sag-structured': { version: '0.2' } } });
    expect(r).toMatchObject({ valid: true, fullyValidated: false });
    expect(codes(r)).toEqual(['OCTX_CAPABILITY_UNSUPPORTED']);
  });
});

describe('issue cap', () => {
  it('keeps maxIssues issues, counts the rest, and never hides an invalid layer', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`knowledge/p${i}.md`] = '# plain\n';
    const r = await check({ files: docs(files), capabilities: { 'sag-structured': { version: '1' } } }, { maxIssues: 5 });
    expect(r.issues.length).toBeLessThanOrEqual(6);
    expect(r.droppedIssues).toBeGreaterThan(20);
    expect(r.format.valid).toBe(false);
    expect(r.capabilities['sag-structured']!.valid).toBe(false);
    expect(r.capabilities['sag-structured']!.issues.length).toBeGreaterThan(0);
  });

  it('refuses a bad maxIssues option', async () => {
    await expect(validatePackage('/nope', { maxIssues: 0 })).rejects.toMatchObject({ code: 'OCTX_OPTIONS_INVALID' });
  });
});
