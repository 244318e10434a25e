/**
 * The pieces every adapter is built from (`src/adapters/shared/`), each used the way an adapter
 * uses it: options checked against a zod object, input problems collected with their file and
 * line, a source document decoded, merged and added, package paths claimed, secrets scrubbed,
 * JSON input located, and warnings reported to the builder.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PackageBuilder } from '../../src/builder/package-builder.js';
import { ADAPTER_OPTION_SHAPES, checkAdapterOptions } from '../../src/adapters/shared/adapter-options.js';
import { adapterWarnings, reportAdapterWarnings } from '../../src/adapters/shared/adapter-report.js';
import { addAdapterDocument, decodeDocumentText } from '../../src/adapters/shared/add-document.js';
import { claimDocumentPath, safeFileStem, withoutFileExtension } from '../../src/adapters/shared/document-paths.js';
import { inputIssue, issueLocation, throwInputProblems, zodProblems } from '../../src/adapters/shared/input-issues.js';
import { locatorOf, readJsonObjects } from '../../src/adapters/shared/json-input.js';
import { isSecretLikeKey, scrubSecrets } from '../../src/adapters/shared/secrets.js';
import { failure, failureAsync } from '../helpers/errors.js';
import { readPackageText } from '../helpers/package-files.js';
import { tempDir } from '../helpers/temp.js';

const ASSET = { id: '019c0000-0000-7000-8000-0000000000c1', name: 'Shared pieces' };
const RELEASE = { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' };
const DOCUMENT_ID = '019c0000-0000-7000-8000-0000000000d1';

/** A builder with a fixed identity and time, so what it writes can be compared. */
const builder = (): PackageBuilder => new PackageBuilder({ asset: ASSET, release: RELEASE });

/** An adapter's options schema: its own keys with the common ones spread in. */
const demoSchema = z.object({
  items: z.array(z.unknown(), { error: 'must be an array' }),
  documentType: ADAPTER_OPTION_SHAPES.documentType,
  locate: ADAPTER_OPTION_SHAPES.locate,
  documentsOnly: ADAPTER_OPTION_SHAPES.documentsOnly,
  requireStructure: ADAPTER_OPTION_SHAPES.requireStructure,
});

describe('checkAdapterOptions', () => {
  it('returns the caller’s own object (functions kept as given)', () => {
    const locate = (): undefined => undefined;
    const options = { items: [1], locate, documentsOnly: true };
    expect(checkAdapterOptions(options, demoSchema, 'fromDemo options')).toBe(options);
  });

  it('names an unknown key and the key probably meant', () => {
    const e = failure(() => checkAdapterOptions({ items: [], documentOnly: true }, demoSchema, 'fromDemo options'));
    expect(e.code).toBe('OCTX_OPTIONS_INVALID');
    expect(e.issues).toEqual([
      {
        code: 'OCTX_OPTIONS_INVALID',
        severity: 'error',
        field: 'documentOnly',
        message: 'unknown option "documentOnly"; did you mean "documentsOnly"? (known: items, documentType, locate, documentsOnly, requireStructure)',
      },
    ]);
    expect(e.message).toMatch(/^fromDemo options: unknown option "documentOnly"/);
  });

  it('lists every value of the wrong type under "<what> are invalid:"', () => {
    const e = failure(() => checkAdapterOptions({ items: 'no', documentType: '', requireStructure: 'yes' }, demoSchema, 'fromDemo options'));
    expect(e.code).toBe('OCTX_OPTIONS_INVALID');
    expect(e.message.split('\n')[0]).toBe('fromDemo options are invalid:');
    expect(e.issues.map((i) => [i.field, i.message])).toEqual([
      ['items', 'items must be an array'],
      ['documentType', 'documentType Too small: expected string to have >=1 characters'],
      ['requireStructure', 'requireStructure Invalid input: expected boolean, received string'],
    ]);
  });
});

describe('input issues', () => {
  it('issueLocation keeps a file and its line, and gives nothing for an unlocated object', () => {
    expect(issueLocation({ path: 'in.jsonl', line: 3 })).toEqual({ path: 'in.jsonl', line: 3 });
    expect(issueLocation({ path: 'in.json' })).toEqual({ path: 'in.json' });
    expect(issueLocation(undefined)).toEqual({});
  });

  it('throwInputProblems throws every collected issue under one headline, and nothing when there is none', () => {
    expect(throwInputProblems('nothing wrong:', [])).toBeUndefined();
    const problems = [inputIssue({ path: 'a.jsonl', line: 2, recordId: 'c1', field: 'text', message: 'text is empty' }), inputIssue({ field: 'id', message: 'id appears twice' })];
    const e = failure(() => throwInputProblems('demo objects are invalid:', problems));
    expect(e.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    expect(e.issues).toBe(problems);
    expect(e.message).toBe(
      [
        'demo objects are invalid:',
        '  - OCTX_ADAPTER_INPUT_INVALID (a.jsonl:2, record c1, field text): text is empty',
        '  - OCTX_ADAPTER_INPUT_INVALID (field id): id appears twice',
      ].join('\n'),
    );
  });

  it('zodProblems gives a dotted field per failure (empty for the value itself)', () => {
    const schema = z.object({ meta: z.object({ index: z.number() }), tags: z.array(z.string()) });
    const parsed = schema.safeParse({ meta: { index: 'x' }, tags: ['a', 2] });
    expect(parsed.success).toBe(false);
    expect(zodProblems(parsed.error!).map((p) => p.field)).toEqual(['meta.index', 'tags.1']);
    expect(zodProblems(z.string().safeParse(1).error!)).toEqual([{ field: '', message: 'Invalid input: expected string, received number' }]);
  });
});

describe('decodeDocumentText', () => {
  it('decodes UTF-8 bytes (a BOM dropped), returns text as given, and refuses bytes that are not UTF-8', () => {
    expect(decodeDocumentText(Buffer.from('\uFEFF# 标题\n', 'utf8'))).toBe('# 标题\n');
    expect(decodeDocumentText('\uFEFF# Title\n')).toBe('\uFEFF# Title\n');
    expect(decodeDocumentText(new Uint8Array([0x23, 0x20, 0xc3, 0x28]))).toBeUndefined();
    expect(decodeDocumentText(new Uint8Array([0xed, 0xa0, 0x80]))).toBeUndefined(); // an encoded lone surrogate
  });
});

describe('addAdapterDocument', () => {
  it('adds the merged document: the adapter’s keys where the file has none, the body as it was (the builder adds the title from the heading)', async () => {
    const b = builder();
    const warnings: string[] = [];
    const added = addAdapterDocument(
      b,
      {
        path: 'notes/first.md',
        markdown: '# First note\n\nIts body.\n',
        additions: { type: 'Note', title: 'unused: the body has a heading', documentId: DOCUMENT_ID, extras: { 'x-demo': { source: 'a', n: 1 } } },
        origin: 'the note',
      },
      warnings,
    );
    expect(added).toEqual({ documentId: DOCUMENT_ID, body: '# First note\n\nIts body.\n' });
    expect(warnings).toEqual([]);
    const out = join(tempDir(), 'doc.octx');
    await b.export({ output: out });
    expect(await readPackageText(out, 'knowledge/notes/first.md')).toBe(
      `---\ntype: "Note"\noctx:\n  document_id: "${DOCUMENT_ID}"\nx-demo:\n  source: "a"\n  n: 1\ntitle: "First note"\n---\n\n# First note\n\nIts body.\n`,
    );
  });

  it('keeps what the file already says, and warns about a provenance key it already had', async () => {
    const b = builder();
    const warnings: string[] = [];
    const markdown = '---\ntype: Memo # the author’s own\nx-demo: theirs\n---\nBody without a heading.\n';
    const added = addAdapterDocument(
      b,
      { path: 'memo.md', markdown, additions: { type: 'Note', title: 'Memo', documentId: DOCUMENT_ID, extras: { 'x-demo': 'ours' } }, origin: 'the note' },
      warnings,
    );
    expect(added).toEqual({ documentId: DOCUMENT_ID, body: 'Body without a heading.\n' });
    expect(warnings).toEqual(['knowledge/memo.md: the note already has x-demo in its frontmatter; kept as is']);
    const out = join(tempDir(), 'memo.octx');
    await b.export({ output: out });
    expect(await readPackageText(out, 'knowledge/memo.md')).toBe(
      `---\ntype: Memo # the author’s own\nx-demo: theirs\ntitle: "Memo"\noctx:\n  document_id: "${DOCUMENT_ID}"\n---\nBody without a heading.\n`,
    );
  });

  it('refuses a document whose own frontmatter is not closed, before anything is added', async () => {
    const b = builder();
    const e = failure(() => addAdapterDocument(b, { path: 'broken.md', markdown: '---\ntype: Note\n# never closed\n', additions: {}, origin: 'the note' }, []));
    expect(e.code).toBe('OCTX_DOCUMENT_FRONTMATTER');
    expect(e.issues[0]!.path).toBe('knowledge/broken.md');
    expect(failure(() => b.documentId('broken.md')).code).toBe('OCTX_PATH_INVALID');
    await b.dispose();
  });
});

describe('document paths', () => {
  it('safeFileStem and withoutFileExtension make file names of free-text names', () => {
    expect(safeFileStem('  ..Q1: revenue/costs?  ')).toBe('Q1- revenue-costs'); // spaces are kept
    expect(safeFileStem('e\u0301te\u0301')).toBe('\u00e9t\u00e9');
    expect(safeFileStem('...')).toBe('');
    expect(Array.from(safeFileStem('长'.repeat(200))).length).toBe(120);
    expect(withoutFileExtension('2025一季度营收报告.pdf')).toBe('2025一季度营收报告');
    expect(withoutFileExtension('archive.tar.gz')).toBe('archive.tar');
    expect(withoutFileExtension('no extension')).toBe('no extension');
  });

  it('claimDocumentPath gives each source a path of its own, never an OKF reserved name', () => {
    const used = new Set<string>();
    expect(claimDocumentPath('guide.md', 'doc-1', used)).toBe('guide.md');
    expect(claimDocumentPath('guide.md', 'doc/2: second', used)).toBe('guide-doc-2- secon.md'); // 12 characters of the key's stem
    expect(claimDocumentPath('guide.md', 'doc/2: second', used)).toBe('guide-2.md');
    expect(claimDocumentPath('guide.md', 'doc-1', used)).toBe('guide-doc-1.md');
    expect(claimDocumentPath('guide.md', 'doc-1', used)).toBe('guide-3.md');
    expect(claimDocumentPath('a/index.md', 'the-index-source', used)).toBe('a/index-the-index-so.md');
    expect(claimDocumentPath('log.md', 'L', used)).toBe('log-L.md');
    expect(claimDocumentPath('cafe\u0301.md', 'k', used)).toBe('caf\u00e9.md');
    expect([...used]).toEqual(['guide.md', 'guide-doc-2- secon.md', 'guide-2.md', 'guide-doc-1.md', 'guide-3.md', 'a/index-the-index-so.md', 'log-L.md', 'caf\u00e9.md']);
  });
});

describe('scrubSecrets', () => {
  it('drops secret-looking keys at any depth and names their paths, never their values', () => {
    const dropped: string[] = [];
    const value = { title: 'kept', api_key: 'sk-1', nested: { Authorization: 'Bearer x', list: [{ passwd: 'p', ok: 1 }] } };
    expect(scrubSecrets(value, 'x-demo', dropped)).toEqual({ title: 'kept', nested: { list: [{ ok: 1 }] } });
    expect(dropped).toEqual(['x-demo.api_key', 'x-demo.nested.Authorization', 'x-demo.nested.list[0].passwd']);
    expect(value.api_key).toBe('sk-1'); // a copy: the caller's object is untouched
    expect(['accessKeyId', 'private-key', 'TOKEN'].map(isSecretLikeKey)).toEqual([true, true, true]);
    expect(['tokenizer_name'].map(isSecretLikeKey)).toEqual([true]); // on the safe side: "token" anywhere
    expect(['title', 'doc_id', 'kb'].map(isSecretLikeKey)).toEqual([false, false, false]);
  });
});

describe('JSON input', () => {
  it('locatorOf points at the file and line of each object read, and at nothing past the end', async () => {
    const dir = tempDir();
    const jsonl = join(dir, 'items.jsonl');
    const json = join(dir, 'items.json');
    writeFileSync(jsonl, '{"id":"a"}\n\n{"id":"b"}\r\n');
    writeFileSync(json, '[\n  {"id": "c"},\n\n  {"id": "d"}\n]\n');
    const objects = [...(await readJsonObjects(jsonl)), ...(await readJsonObjects(json))];
    expect(objects.map((o) => (o.value as { id: string }).id)).toEqual(['a', 'b', 'c', 'd']);
    const locate = locatorOf(objects);
    expect([0, 1, 2, 3, 4].map(locate)).toEqual([{ path: jsonl, line: 1 }, { path: jsonl, line: 3 }, { path: json, line: 2 }, { path: json, line: 4 }, undefined]);
  });

  it('refuses a duplicate key with the file and line', async () => {
    const file = join(tempDir(), 'dup.jsonl');
    writeFileSync(file, '{"id":"a"}\n{"id":"b","id":"c"}\n');
    const e = await failureAsync(readJsonObjects(file));
    expect(e.code).toBe('OCTX_JSON_DUPLICATE_KEY');
    expect(e.issues[0]).toMatchObject({ path: file, line: 2 });
  });
});

describe('adapter warnings', () => {
  it('become OCTX_ADAPTER_WARNING issues named after the adapter, in the export’s report', async () => {
    const b = builder().addDocument({ path: 'a.md', markdown: '# A\n' });
    const part = adapterWarnings(b, 'fromDemo', ['two items share an id; the first is kept']);
    expect(part).toEqual({
      warnings: ['two items share an id; the first is kept'],
      issues: [{ code: 'OCTX_ADAPTER_WARNING', severity: 'warning', message: 'fromDemo: two items share an id; the first is kept' }],
    });
    const result = await b.export({ output: join(tempDir(), 'w.octx') });
    expect(result.report.warnings).toContainEqual(part.issues[0]);
  });

  it('are refused by strict, and nothing is written', async () => {
    const b = new PackageBuilder({ asset: ASSET, release: RELEASE, strict: true }).addDocument({ path: 'a.md', markdown: '# A\n' });
    expect(reportAdapterWarnings(b, 'fromDemo', ['something was left out'])).toHaveLength(1);
    const dir = tempDir();
    const e = await failureAsync(b.export({ output: join(dir, 's.octx') }));
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(e.issues).toContainEqual(expect.objectContaining({ code: 'OCTX_ADAPTER_WARNING', message: 'fromDemo: something was left out' }));
  });
});
