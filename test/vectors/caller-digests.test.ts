import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, openPackage, validatePackage, type Embedder } from '../../src/index.js';
import { INPUT_HASH_DECLARATION } from '../../src/vectors/input-digest.js';
import { MAX_LISTED_MISMATCHES } from '../../src/plan/input-digest-check.js';
import { failureAsync } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const sha = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
/** Chunk ids start far from the asset, document, event and entity ids. */
const chunk = (i: number): string => id(0x1000 + i);
const DOC = id(0x100);
const EVENT = id(0x21);
const ENTITY = id(0x31);

/** The pipeline: chunks render as `<text> [<ordinal>]`, so the right `{ input }` is not the bare text. */
const PIPELINE = { model: 'm', revision: '1', dimensions: 2, normalized: false, input_template: { chunks: '{text} [{ordinal}]', events: '{title}', entities: '{name}' } };
const WITH_HASH = { ...PIPELINE, input_hash: { ...INPUT_HASH_DECLARATION } };

/** `n` chunks with texts `text 0`, `text 1`, …, all linked to one event and entity. */
function graph(n = 2, options: { strict?: boolean } = {}): PackageBuilder {
  const b = new PackageBuilder({ asset: { id: id(0xa), name: 'Digests' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' }, ...options });
  b.addDocument({ path: 'a.md', markdown: `---\ntype: Note\noctx:\n  document_id: ${DOC}\n---\n# A\n\nhello\n` });
  for (let i = 0; i < n; i++) b.addChunk({ id: chunk(i), document_id: DOC, ordinal: i, text: `text ${i}` });
  b.addEvent({ id: EVENT, title: 'T', content: 'C' }).addEntity({ id: ENTITY, name: 'N', type: 't' });
  for (let i = 0; i < n; i++) b.linkChunkEvent({ chunk_id: chunk(i), event_id: EVENT });
  b.linkEventEntity({ event_id: EVENT, entity_id: ENTITY, weight: 1 });
  return b;
}

/** The embedder of {@link PIPELINE}: [1, 0] for every text, and the texts it was given. */
class Fixed implements Embedder {
  readonly config = PIPELINE;
  readonly texts: string[] = [];
  async embed(texts: string[]): Promise<number[][]> {
    this.texts.push(...texts);
    return texts.map(() => [1, 0]);
  }
}

async function digestsOf(path: string): Promise<[string, string | undefined][]> {
  const pkg = await openPackage(path);
  try {
    const out: [string, string | undefined][] = [];
    for await (const r of pkg.vectors('chunks')) out.push([r.recordId, r.inputSha256]);
    return out;
  } finally {
    await pkg.close();
  }
}

describe('export checks the input digests given to addVector', () => {
  it('refuses a wrong { input } with the record id, writes nothing, and the builder stays usable', async () => {
    const dir = tempDir();
    const out = join(dir, 'p.octx');
    const b = graph(2, { strict: true }).setVectorConfig(WITH_HASH);
    b.addVector('chunks', chunk(0), [1, 0], { input: 'text 0' }); // the bare text, not the rendered template
    b.addVector('chunks', chunk(1), [1, 0], { input: 'text 1 [1]' });
    const e = await failureAsync(b.export({ output: out }));
    expect(e.code).toBe('OCTX_VECTOR_INPUT_MISMATCH');
    expect(e.issues.map((i) => [i.code, i.recordId, i.field, i.path])).toEqual([['OCTX_VECTOR_INPUT_MISMATCH', chunk(0), 'input_sha256', 'vectors/chunks.arrow']]);
    expect(e.issues[0]!.message).toContain(sha('text 0'));
    expect(e.issues[0]!.message).toContain(sha('text 0 [0]'));
    expect(e.issues[0]!.message).toContain('data/chunks.jsonl line 1');
    expect(e.report).toEqual({ mismatches: 1 });
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);

    // Still usable: re-embedding the stale record replaces its vector, then the export succeeds.
    const fixed = new Fixed();
    await b.embed('chunks', fixed, { only: 'stale' });
    expect(fixed.texts).toEqual(['text 0 [0]']);
    const r = await b.export({ output: out });
    expect(r.report.vectors.targets.chunks.status).toBe('written');
    expect((await validatePackage(out)).issues).toEqual([]);
    expect(await digestsOf(out)).toEqual([
      [chunk(0), sha('text 0 [0]')],
      [chunk(1), sha('text 1 [1]')],
    ]);
  });

  it('refuses a wrong { inputSha256 } and leaves the builder able to export documents only', async () => {
    const dir = tempDir();
    const b = graph().setVectorConfig(WITH_HASH);
    b.addVector('chunks', chunk(0), [1, 0], { inputSha256: sha('text 0 [0]') });
    b.addVector('chunks', chunk(1), [1, 0], { inputSha256: sha('something else') });
    const e = await failureAsync(b.export({ output: join(dir, 'p.octx') }));
    expect(e.issues.map((i) => [i.code, i.recordId, i.field, i.path])).toEqual([['OCTX_VECTOR_INPUT_MISMATCH', chunk(1), 'input_sha256', 'vectors/chunks.arrow']]);
    expect(readdirSync(dir)).toEqual([]);
    const r = await b.export({ output: join(dir, 'docs.octx'), documentsOnly: true });
    expect(r.report.vectors.targets.chunks.status).toBe('omitted');
    expect((await validatePackage(r.output)).valid).toBe(true);
  });

  it('writes right digests: { input } (CRLF and NFC are normalised) and { inputSha256 }, and the package validates', async () => {
    const dir = tempDir();
    const out = join(dir, 'p.octx');
    const b = graph(3, { strict: true }).setVectorConfig(WITH_HASH);
    b.addVector('chunks', chunk(0), [1, 0], { input: 'text 0 [0]' });
    b.addVector('chunks', chunk(1), [0, 1], { inputSha256: sha('text 1 [1]') });
    b.addVector('chunks', chunk(2), [1, 1], { input: 'text 2\r\n[2]'.replace('\r\n', ' ') });
    const r = await b.export({ output: out });
    expect(r.degraded).toBe(false);
    const report = await validatePackage(out);
    expect(report.valid).toBe(true);
    expect(report.issues).toEqual([]);
    expect(await digestsOf(out)).toEqual([
      [chunk(0), sha('text 0 [0]')],
      [chunk(1), sha('text 1 [1]')],
      [chunk(2), sha('text 2 [2]')],
    ]);
  });

  it('normalises both sides: a CRLF/decomposed { input } matches the LF/NFC record text', async () => {
    const out = join(tempDir(), 'p.octx');
    const b = new PackageBuilder({ asset: { id: id(0xa), name: 'N' } });
    b.addDocument({ path: 'a.md', markdown: `---\ntype: Note\noctx:\n  document_id: ${DOC}\n---\n# A\n` });
    b.addChunk({ id: chunk(0), document_id: DOC, ordinal: 0, text: 'Caf\u00e9\nline' });
    b.addEvent({ id: EVENT, title: 'T', content: 'C' }).addEntity({ id: ENTITY, name: 'N', type: 't' });
    b.linkChunkEvent({ chunk_id: chunk(0), event_id: EVENT }).linkEventEntity({ event_id: EVENT, entity_id: ENTITY });
    b.setVectorConfig(WITH_HASH).addVector('chunks', chunk(0), [1, 0], { input: 'Cafe\u0301\r\nline [0]' });
    await b.export({ output: out });
    expect((await validatePackage(out)).issues).toEqual([]);
    expect(await digestsOf(out)).toEqual([[chunk(0), sha('Caf\u00e9\nline [0]')]]);
  });

  it('reports a record whose text cannot be rendered with the template', async () => {
    const b = graph(1).setVectorConfig({ ...WITH_HASH, input_template: { ...PIPELINE.input_template, chunks: '{text} {x_source}' } });
    b.addVector('chunks', chunk(0), [1, 0], { input: 'text 0 ' });
    const e = await failureAsync(b.export({ output: join(tempDir(), 'p.octx') }));
    expect(e.issues.map((i) => [i.code, i.recordId])).toEqual([['OCTX_VECTOR_INPUT_MISMATCH', chunk(0)]]);
    expect(e.issues[0]!.message).toContain('cannot be rendered');
    expect(e.issues[0]!.message).toContain('x_source');
    await b.dispose();
  });

  it(`lists the first ${MAX_LISTED_MISMATCHES} mismatches and counts the rest`, async () => {
    const n = 130;
    const b = graph(n).setVectorConfig(WITH_HASH);
    for (let i = 0; i < n; i++) b.addVector('chunks', chunk(i), [1, 0], { input: `wrong ${i}` });
    const e = await failureAsync(b.export({ output: join(tempDir(), 'p.octx') }));
    expect(e.code).toBe('OCTX_VECTOR_INPUT_MISMATCH');
    expect(e.issues).toHaveLength(MAX_LISTED_MISMATCHES);
    expect(e.issues.map((i) => i.recordId)).toEqual(Array.from({ length: MAX_LISTED_MISMATCHES }, (_, i) => chunk(i)));
    expect(e.message).toContain(`${n} vector(s)`);
    expect(e.message).toContain(`the first ${MAX_LISTED_MISMATCHES} listed`);
    expect(e.report).toEqual({ mismatches: n });
    await b.dispose();
  });

  it('checks only for form without an input_template, as the validator does: the package is written and valid', async () => {
    const out = join(tempDir(), 'p.octx');
    const { input_template: _t, ...noTemplate } = WITH_HASH;
    const b = graph().setVectorConfig(noTemplate);
    b.addVector('chunks', chunk(0), [1, 0], { input: 'WRONG' });
    b.addVector('chunks', chunk(1), [1, 0], { inputSha256: sha('also not the text') });
    await b.export({ output: out });
    const report = await validatePackage(out);
    expect(report.valid).toBe(true);
    expect(report.issues).toEqual([]);
    expect(await digestsOf(out)).toEqual([
      [chunk(0), sha('WRONG')],
      [chunk(1), sha('also not the text')],
    ]);
  });

  it('does not refuse a target the plan leaves out (incomplete vectors)', async () => {
    const dir = tempDir();
    const b = graph(2).setVectorConfig(WITH_HASH);
    b.addVector('chunks', chunk(0), [1, 0], { input: 'WRONG' });
    const r = await b.export({ output: join(dir, 'p.octx') });
    expect(r.report.vectors.targets.chunks.status).toBe('omitted');
    expect((await validatePackage(r.output)).valid).toBe(true);
  });
});
