import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from 'octx-export';
import { ROOT, tempDir } from '../helpers/temp.js';
import { jsonOf, runCli } from './run-cli.js';

const FIX = join(ROOT, 'fixtures/rag');

describe('octx-export from-rag (real CLI)', () => {
  it('exports chunks and vectors (checked) with original and rebuilt documents as a documents-only package', async () => {
    const tmp = tempDir();
    const out = join(tmp, 'rag.octx');
    const config = join(tmp, 'vector-config.json');
    writeFileSync(config, JSON.stringify({ revision: '2026-06-01', pooling: 'cls' }));
    const r = await runCli([
      'from-rag',
      join(FIX, 'chunks.jsonl'),
      join(FIX, 'vectors.jsonl'),
      '--documents',
      join(FIX, 'documents'),
      '--rebuild-documents',
      '--normalized',
      'true',
      '--vector-config',
      config,
      '-o',
      out,
      '--name',
      'Company docs',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const doc = jsonOf(r);
    expect(doc).toMatchObject({ ok: true, command: 'from-rag', capabilities: {} });
    const adapter = doc.adapter as Record<string, any>;
    expect(adapter.documents).toMatchObject({ count: 3, fromOriginals: 2, rebuilt: 1 });
    expect(adapter.vectors).toMatchObject({ status: 'complete', added: false, rows: 8, model: 'bge-m3-demo-16', dimensions: 16, normalized: true });
    expect(adapter.structure.status).toBe('documents-only');
    expect(adapter.structure.reason).toMatch(/no events or entities/);
    const v = await validatePackage(out);
    expect(v.valid && v.fullyValidated).toBe(true);
    const pkg = await openPackage(out);
    try {
      const docs: Record<string, string> = {};
      for await (const d of pkg.documents()) docs[d.path] = d.text;
      expect(Object.keys(docs).sort()).toEqual(['knowledge/2025一季度营收报告.md', 'knowledge/employee-handbook.md', 'knowledge/产品常见问题.md']);
      expect(docs['knowledge/产品常见问题.md']).toContain('body: "rebuilt-from-chunks"');
      expect(docs['knowledge/2025一季度营收报告.md']).toContain('body: "original"');
    } finally {
      await pkg.close();
    }
  });

  it('refuses Retrieval Results and unguessed normalization; reports stale vectors', async () => {
    const tmp = tempDir();
    const [retrieval, normalized, stale] = await Promise.all([
      runCli(['from-rag', join(FIX, 'chunks.jsonl'), join(FIX, 'retrieval-result.json'), '--rebuild-documents', '-o', join(tmp, 'a.octx'), '--name', 'X']),
      runCli(['from-rag', join(FIX, 'chunks.jsonl'), join(FIX, 'vectors.jsonl'), '--rebuild-documents', '-o', join(tmp, 'b.octx'), '--name', 'X']),
      runCli([
        'from-rag',
        join(FIX, 'chunks.jsonl'),
        join(FIX, 'vectors-stale.jsonl'),
        '--documents',
        join(FIX, 'documents'),
        '--rebuild-documents',
        '--normalized',
        'false',
        '-o',
        join(tmp, 'c.octx'),
        '--name',
        'X',
      ]),
    ]);
    expect(retrieval.code).toBe(1);
    expect(retrieval.stderr).toContain(`error[OCTX_ADAPTER_INPUT_INVALID]: this is a RAG retrieval result`);
    expect(retrieval.stderr).toContain(`\n  --> ${join(FIX, 'retrieval-result.json')}:1\n  field retrieval_id\n`);
    expect(retrieval.stderr).toMatch(/\nhint: /);
    expect(normalized.code).toBe(1);
    // In CLI terms: no "seed 002", and the flag instead of the SDK option.
    expect(normalized.stderr).toMatch(
      /^error\[OCTX_ADAPTER_INPUT_INVALID\]: the RAG chunk format does not say whether the vectors are normalized.*: give --normalized true or --normalized false from your embedding pipeline/,
    );
    expect(normalized.stderr).toContain('\n  field normalized\n');
    expect(stale.code).toBe(0);
    expect(stale.stdout).toContain('rag vectors   omitted (incomplete): the chunks target would be incomplete: 1 stale (text_md5 ≠ MD5 of chunk_text), 1 not status 1');
    expect(stale.stdout).toContain('note          documents-only: the RAG chunk format carries no events or entities');
    expect((await validatePackage(join(tmp, 'c.octx'))).valid).toBe(true);
  });
});
