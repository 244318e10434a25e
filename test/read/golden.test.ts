import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from '../../src/read/index.js';
import { FIXTURES, sha256, writeZip, type FileMap } from './helpers.js';

const A = join(FIXTURES, 'A_documents_only');
const B = join(FIXTURES, 'B_sag_structured');
const DIGEST_A = 'sha256:d3ce8f75d7b82de9e57a4d771ddb7c134f35c9c1a6b8b88635427252145ab2b9';
const DIGEST_B = 'sha256:0ec131b2ee7a1c15625f9f98a1dc15643ef8368bb08699fcbf4ae920a3365930';

async function filesOf(root: string): Promise<FileMap> {
  const out: FileMap = {};
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else out[relative(root, p)] = await readFile(p);
    }
  };
  await walk(root);
  return out;
}

describe('golden packages', () => {
  it('fixtures are byte-exact copies of the golden packages', async () => {
    const b = await filesOf(B);
    expect(sha256(b['knowledge/guide.md']!)).toBe('0595f089745e136a57b1c60c3b4870b1bb67b37a4dcd17fb035eb8bc03c6955d');
    expect(sha256(b['data/chunks.jsonl']!)).toBe('708133b0c046c65ae03b337c79053ce19b220491700874e24fbd9cd7df2c73ab');
    expect(sha256(b['relations/event-entities.jsonl']!)).toBe('3242bbf186b2849dda986fca5f1a1f0d8ef880227b2a11ef733a6bc22fc5048a');
  });

  for (const [name, dir, digest, caps] of [
    ['A (documents only)', A, DIGEST_A, {}],
    ['B (sag-structured)', B, DIGEST_B, { 'sag-structured': { valid: true, issues: [] } }],
  ] as const) {
    it(`${name} validates as a directory with no issues`, async () => {
      const r = await validatePackage(dir);
      expect(r.issues).toEqual([]);
      expect(r).toMatchObject({ valid: true, fullyValidated: true, format: { valid: true, issues: [] }, capabilities: caps, packageDigest: digest, droppedIssues: 0 });
    });

    for (const store of [true, false]) {
      it(`${name} validates as a ${store ? 'STORE' : 'DEFLATE'} ZIP with no issues`, async () => {
        const zip = await writeZip(await filesOf(dir), { store });
        const r = await validatePackage(zip);
        expect(r.issues).toEqual([]);
        expect(r).toMatchObject({ valid: true, fullyValidated: true, capabilities: caps, packageDigest: digest });
        const pkg = await openPackage(zip);
        expect(pkg.kind).toBe('zip');
        await pkg.close();
      });
    }
  }

  it('B reads through the package API', async () => {
    const pkg = await openPackage(B);
    try {
      expect(pkg.kind).toBe('directory');
      expect(pkg.info).toMatchObject({
        format: 'octx',
        formatVersion: '0.1',
        assetId: '019c0000-0000-7000-8000-000000000001',
        version: '1.0.0',
        capabilities: { 'sag-structured': '0.1' },
      });
      expect(pkg.listedFiles()).toHaveLength(6);
      const docs = [];
      for await (const d of pkg.documents()) docs.push(d);
      expect(docs).toHaveLength(1);
      expect(docs[0]).toMatchObject({ path: 'knowledge/guide.md', kind: 'concept', documentId: '019c1234-5678-7abc-8def-0123456789ab', issues: [] });
      expect(docs[0]!.frontmatter).toMatchObject({ type: 'Reference', title: 'Guide' });
      const chunks = [];
      for await (const c of pkg.chunks()) chunks.push(c);
      expect(chunks).toEqual([
        { line: 1, record: { id: '019c2222-2222-7222-8222-222222222222', document_id: '019c1234-5678-7abc-8def-0123456789ab', ordinal: 0, text: 'Portable context.' } },
      ]);
      const rels = [];
      for await (const r of pkg.eventEntities()) rels.push(r.record);
      expect(rels[0]).toMatchObject({ weight: 1, description: 'The subject of the event' });
      for await (const _ of pkg.events()) void _;
      for await (const _ of pkg.entities()) void _;
      for await (const _ of pkg.chunkEvents()) void _;
      expect(await pkg.vectorConfig()).toBeUndefined();
      const v = [];
      for await (const row of pkg.vectors('chunks')) v.push(row);
      expect(v).toEqual([]);
    } finally {
      await pkg.close();
    }
  });
});
