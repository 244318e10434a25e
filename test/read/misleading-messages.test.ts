/**
 * Issue 16, item 10: reader results that were typed but misleading — an encrypted stored entry
 * reported as a size mismatch, deep YAML as a stack overflow, and the issue cap hiding the
 * resource limit that stopped a scan.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { validatePackage } from '../../src/read/index.js';
import { IssueCollector } from '../../src/read/issues.js';
import { issue } from '../../src/model/errors.js';
import { SAG_DECL, cleanupTempDirs, conceptMd, genStructure, jsonl, rawPackage, structureFiles, tid, writeBytes, writeDir, entriesOf } from './helpers.js';

afterAll(cleanupTempDirs);

describe('an encrypted stored entry', () => {
  it('is OCTX_SECURITY_ERROR "encrypted", not a size mismatch of equal sizes', async () => {
    // Traditional encryption, STORE: compressed size equals the plain size (yauzl expected +12).
    const bytes = rawPackage([{ name: 'notes/secret.txt', data: 'x'.repeat(1334), method: 0, flags: 0x0001 }]);
    const r = await validatePackage(await writeBytes(bytes));
    expect(r.valid).toBe(false);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]!.code).toBe('OCTX_SECURITY_ERROR');
    expect(r.issues[0]!.message).toContain('encrypted');
    expect(r.issues[0]!.message).not.toContain('mismatch');
  });

  it('a stored entry whose two sizes differ is still OCTX_ARCHIVE_CORRUPT', async () => {
    const bytes = rawPackage([{ name: 'notes/x.txt', data: 'x'.repeat(40), method: 0, uncompressedSize: 41 }]);
    const r = await validatePackage(await writeBytes(bytes));
    expect(r.issues.map((i) => i.code)).toEqual(['OCTX_ARCHIVE_CORRUPT']);
    expect(r.issues[0]!.message).toContain('size mismatch');
  });
});

describe('deep YAML in a package', () => {
  it('a Concept Document nested 5,000 deep is OCTX_DOCUMENT_FRONTMATTER "nesting is too deep"', async () => {
    const id = tid();
    const md = conceptMd(id, 'Deep', `deep: ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`);
    const r = await validatePackage(await writeDir(entriesOf({ files: { 'knowledge/deep.md': md } })));
    const codes = r.issues.map((i) => i.code);
    expect(codes).toContain('OCTX_DOCUMENT_FRONTMATTER');
    const frontmatter = r.issues.find((i) => i.code === 'OCTX_DOCUMENT_FRONTMATTER')!;
    expect(frontmatter.message).toContain('nesting is too deep');
    expect(frontmatter.message).not.toContain('call stack');
  });
});

describe('the issue cap', () => {
  it('never drops the OCTX_RESOURCE_LIMIT that stopped a scan, however many errors came first', async () => {
    const s = genStructure({ docs: 1, chunksPerDoc: 1 });
    const files = structureFiles(s);
    // 40 broken chunk lines (each an error), then the line limit is reached.
    const broken = Array.from({ length: 40 }, () => ({ id: tid(), document_id: s.docs[0]!.id, ordinal: 'x', text: 'bad' }));
    files['data/chunks.jsonl'] = jsonl([...s.chunks, ...broken]);
    const r = await validatePackage(await writeDir(entriesOf({ files, capabilities: SAG_DECL })), { maxIssues: 5, limits: { maxJsonlRecords: 30 } });
    const sag = r.capabilities['sag-structured']!;
    expect(sag.valid).toBe(false);
    const codes = sag.issues.map((i) => i.code);
    expect(codes).toContain('OCTX_RESOURCE_LIMIT');
    expect(r.issues.map((i) => i.code)).toContain('OCTX_RESOURCE_LIMIT');
    expect(r.droppedIssues).toBeGreaterThan(20);
    expect(r.issues.length).toBeLessThan(15);
  });

  it('keeps the cap plus the first error of each later code, and no later duplicate or warning', () => {
    const c = new IssueCollector(3);
    for (let i = 0; i < 10; i++) c.add('format', issue({ code: 'OCTX_SCHEMA_VALIDATION', message: `bad ${i}` }));
    c.add('format', issue({ code: 'OCTX_CAPABILITY_UNSUPPORTED', severity: 'warning', message: 'late warning' }));
    c.add('format', issue({ code: 'OCTX_RESOURCE_LIMIT', message: 'limit' }));
    c.add('format', issue({ code: 'OCTX_RESOURCE_LIMIT', message: 'limit again' }));
    const out = c.collect();
    expect(out.issues.map((i) => i.message)).toEqual(['bad 0', 'bad 1', 'bad 2', 'limit']);
    expect(out.dropped).toBe(9);
    expect(out.byLayer.get('format')!.map((i) => i.message)).toEqual(['bad 0', 'bad 1', 'bad 2', 'limit']);
  });
});
