/**
 * Issue 16, item 10: failures the SDK used to let escape as raw Node errors (ENAMETOOLONG,
 * ENOENT/ENOTDIR/EROFS, TypeError) or report late or misleadingly, now typed `OctxError`s that
 * name the option, record or path and keep the errno.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPackage, PackageBuilder, validatePackage, type ProgressEvent } from '../../src/index.js';
import { parseFrontmatter } from '../../src/knowledge/frontmatter.js';
import { fsFailure } from '../../src/model/fs-errors.js';
import { failure, failureAsync } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

const ASSET = { name: 'Typed failures' };
const DOC = { path: 'guide.md', markdown: '# Guide\n\nBody.\n' };
const CHUNK_ID = '019c0000-0000-7000-8000-0000000000aa';
const EXT = 'extensions/com.example.fuzz/0.1/data.bin';

function builder(tempDirOption?: string): PackageBuilder {
  return new PackageBuilder({ asset: ASSET, ...(tempDirOption ? { tempDir: tempDirOption } : {}) }).addDocument(DOC);
}

function withVectors(): PackageBuilder {
  return builder().setVectorConfig({ model: 'example/model', revision: 'r1', dimensions: 3, normalized: false });
}

describe('output names and folders', () => {
  it('an output name close to the 255-byte limit is written (its temporary name is shortened)', async () => {
    const dir = tempDir();
    const out = join(dir, `${'n'.repeat(245)}.octx`);
    const result = await builder().export({ output: out });
    expect(result.output).toBe(out);
    expect(readdirSync(dir)).toEqual([`${'n'.repeat(245)}.octx`]);
  });

  it('an output name above 255 bytes is OCTX_OUTPUT_INVALID naming ENAMETOOLONG, before anything is collected', async () => {
    const dir = tempDir();
    const e = await failureAsync(builder().export({ output: join(dir, `${'n'.repeat(300)}.octx`) }));
    expect(e.code).toBe('OCTX_OUTPUT_INVALID');
    expect(e.issues[0]!.field).toBe('output');
    expect(e.message).toContain('ENAMETOOLONG');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a missing or non-folder tempDir is OCTX_OPTIONS_INVALID (field tempDir) with the errno and the cause', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-file'), 'x');
    const missing = failure(() => builder(join(dir, 'missing')));
    expect(missing.code).toBe('OCTX_OPTIONS_INVALID');
    expect(missing.issues[0]).toMatchObject({ field: 'tempDir', path: join(dir, 'missing') });
    expect(missing.message).toContain('ENOENT');
    expect((missing.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    const notDir = failure(() => builder(join(dir, 'a-file')));
    expect(notDir.code).toBe('OCTX_OPTIONS_INVALID');
    expect(notDir.message).toContain('ENOTDIR');
  });

  it('a file system that refuses (EROFS, EACCES, EPERM) is OCTX_IO_ERROR; a wrong path is the caller code', () => {
    // Tests run as root here, where chmod stops nothing: the mapping itself is what is tested.
    const erofs = Object.assign(new Error("EROFS: read-only file system, mkdir '/ro/out'"), { code: 'EROFS' });
    const e = fsFailure(erofs, { path: '/ro/out', field: 'output', action: 'create the output folder', invalidCode: 'OCTX_OUTPUT_INVALID' });
    expect(e.code).toBe('OCTX_IO_ERROR');
    expect(e.issues[0]).toMatchObject({ code: 'OCTX_IO_ERROR', path: '/ro/out', field: 'output' });
    expect(e.message).toContain('EROFS');
    expect(e.cause).toBe(erofs);
    const eacces = fsFailure(Object.assign(new Error('permission denied'), { code: 'EACCES' }), { path: '/x', action: 'open', invalidCode: 'OCTX_OPTIONS_INVALID' });
    expect(eacces.code).toBe('OCTX_IO_ERROR');
    expect(eacces.message).toContain('EACCES: permission denied');
    for (const code of ['ENOENT', 'ENOTDIR', 'ENAMETOOLONG']) {
      expect(fsFailure(Object.assign(new Error(code), { code }), { path: '/x', action: 'open', invalidCode: 'OCTX_OPTIONS_INVALID' }).code).toBe('OCTX_OPTIONS_INVALID');
    }
  });

  it('an output below a file is OCTX_OUTPUT_INVALID with the errno', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-file'), 'x');
    const e = await failureAsync(builder().export({ output: join(dir, 'a-file', 'sub', 'out.octx') }));
    expect(e.code).toBe('OCTX_OUTPUT_INVALID');
    expect(e.message).toContain('ENOTDIR');
  });

  it('a dangling symbolic link at the output is refused before the package is planned or written', async () => {
    const dir = tempDir();
    const out = join(dir, 'out.octx');
    symlinkSync(join(dir, 'nowhere', 'target.octx'), out);
    const events: ProgressEvent[] = [];
    const e = await failureAsync(builder().export({ output: out, onProgress: (ev) => events.push(ev) }));
    expect(e.code).toBe('OCTX_OUTPUT_EXISTS');
    expect(e.message).toContain('symbolic link');
    expect(events).toEqual([]);
    expect(readdirSync(dir)).toEqual(['out.octx']);
    // With overwrite the link itself is replaced by the package.
    await builder().export({ output: out, overwrite: true });
    expect(lstatSync(out).isFile()).toBe(true);
    expect((await validatePackage(out)).valid).toBe(true);
  });

  it('a refused export removes the parent folders it created, and only those', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'kept'));
    const out = join(dir, 'kept', 'new', 'deeper', 'out.octx');
    // No Concept Document: refused by the planner after the output was prepared.
    const e = await failureAsync(new PackageBuilder({ asset: ASSET }).export({ output: out }));
    expect(e.code).toBe('OCTX_CONCEPT_REQUIRED');
    expect(existsSync(join(dir, 'kept'))).toBe(true);
    expect(existsSync(join(dir, 'kept', 'new'))).toBe(false);
    // A successful export keeps the folders it created.
    await builder().export({ output: out });
    expect(existsSync(out)).toBe(true);
  });
});

describe('vector and extension inputs', () => {
  it('a null vector, an array-like object or a string is OCTX_VECTOR_VALUE_INVALID naming the record and field', () => {
    for (const bad of [null, undefined, { length: 3 }, { length: 3, 0: 1, 1: 2, 2: 3 }, '123', 7, new Uint8Array(3)]) {
      const e = failure(() => withVectors().addVector('chunks', CHUNK_ID, bad as never));
      expect(e.code, JSON.stringify(bad) ?? typeof bad).toBe('OCTX_VECTOR_VALUE_INVALID');
      expect(e.issues[0]).toMatchObject({ recordId: CHUNK_ID, field: 'vector' });
      expect(e.message).toContain('a vector must be an array of numbers, a Float32Array or a Float64Array');
    }
  });

  it('an array holding a non-number is refused, even one that would coerce', () => {
    const e = failure(() => withVectors().addVector('chunks', CHUNK_ID, ['1', 2, 3] as never));
    expect(e.code).toBe('OCTX_VECTOR_VALUE_INVALID');
    expect(e.message).toContain('string');
  });

  it('number[], Float32Array and Float64Array vectors are accepted and written as float32', async () => {
    const documentId = '019c0000-0000-7000-8000-0000000000d1';
    const [event, entity] = ['019c0000-0000-7000-8000-0000000000e1', '019c0000-0000-7000-8000-0000000000e2'];
    const ids = [CHUNK_ID, '019c0000-0000-7000-8000-0000000000ab', '019c0000-0000-7000-8000-0000000000ac'];
    const b = new PackageBuilder({ asset: ASSET })
      .addDocument({ path: 'guide.md', markdown: `---\noctx:\n  document_id: ${documentId}\n---\n# Guide\n` })
      .setVectorConfig({ model: 'example/model', revision: 'r1', dimensions: 3, normalized: false })
      .addEvent({ id: event, title: 'E', content: 'c' })
      .addEntity({ id: entity, name: 'N', type: 'person' })
      .linkEventEntity({ event_id: event, entity_id: entity });
    ids.forEach((id, ordinal) => b.addChunk({ id, document_id: documentId, ordinal, text: `t${ordinal}` }).linkChunkEvent({ chunk_id: id, event_id: event }));
    expect(b.addVector('chunks', ids[0]!, [1, 2, 3])).toBe(b);
    expect(b.addVector('chunks', ids[1]!, new Float32Array([0.5, -2, 3]))).toBe(b);
    expect(b.addVector('chunks', ids[2]!, new Float64Array([0.1, 2, 1e-3]))).toBe(b);
    const out = join(tempDir(), 'v.octx');
    await b.export({ output: out, strict: true });
    const pkg = await openPackage(out);
    const rows = new Map<string, number[]>();
    try {
      for await (const row of pkg.vectors('chunks')) rows.set(row.recordId, [...row.vector]);
    } finally {
      await pkg.close();
    }
    expect(rows).toEqual(
      new Map([
        [ids[0], [1, 2, 3]],
        [ids[1], [0.5, -2, 3]],
        [ids[2], [Math.fround(0.1), 2, Math.fround(1e-3)]],
      ]),
    );
  });

  it('extension content that is neither a string nor bytes is OCTX_DOCUMENT_INVALID (no NUL bytes written)', () => {
    for (const bad of [5, null, { length: 3 }, [1, 2, 3], {}]) {
      const e = failure(() => builder().addExtensionFile(EXT, bad as never));
      expect(e.code, JSON.stringify(bad)).toBe('OCTX_DOCUMENT_INVALID');
      expect(e.issues[0]).toMatchObject({ path: EXT, field: 'content' });
    }
  });
});

describe('deep YAML frontmatter', () => {
  it('is refused as "nesting too deep", never a stack overflow, at any depth', () => {
    for (const depth of [101, 5_000]) {
      for (const value of ['['.repeat(depth) + ']'.repeat(depth), '{a: '.repeat(depth) + '1' + '}'.repeat(depth)]) {
        const e = failure(() => builder().addDocument({ path: `deep-${depth}.md`, markdown: `---\nx: ${value}\n---\n# Deep\n` }));
        expect(e.code).toBe('OCTX_DOCUMENT_FRONTMATTER');
        expect(e.message).toContain('nesting is too deep');
        expect(e.message).not.toContain('call stack');
      }
    }
    const seq = failure(() => builder().addDocument({ path: 'seq.md', markdown: `---\nx:\n  ${'- '.repeat(5_000)}a\n---\n# Deep\n` }));
    expect(seq.message).toContain('nesting is too deep');
  });

  it('a frontmatter of 1 MiB of brackets or dashes is refused fast (not 17 s in the parser)', () => {
    // Above the default maxFrontmatterBytes (1 MiB) the size limit refuses it before YAML sees it;
    // a builder that raised the limit must still not hand it to the parser for seconds.
    const raised = new PackageBuilder({ asset: ASSET, maxFrontmatterBytes: 4 << 20 });
    for (const value of ['['.repeat(1 << 20), `\n  ${'- '.repeat(1 << 19)}a`]) {
      const start = performance.now();
      const e = failure(() => raised.addDocument({ path: 'wide.md', markdown: `---\nx: ${value}\n---\n# Deep\n` }));
      expect(e.code).toBe('OCTX_DOCUMENT_FRONTMATTER');
      expect(e.message).toContain('nesting is too deep');
      expect(failure(() => builder().addDocument({ path: 'wide.md', markdown: `---\nx: ${value}\n---\n# Deep\n` })).code).toBe('OCTX_FRONTMATTER_TOO_LARGE');
      expect(performance.now() - start).toBeLessThan(3_000);
    }
  });

  it('many brackets, dashes and question marks inside scalars are no nesting', () => {
    const text = `${'[a] {b} - c ? d '.repeat(200)}`;
    const block = `summary: "${text}"\nplain: x ${text}\nblock: |\n${'  - line\n'.repeat(200)}`;
    const b = builder();
    expect(b.addDocument({ path: 'busy.md', markdown: `---\n${block}---\n# Busy\n` })).toBe(b);
    // Read as the scalars they are (a plain scalar loses its trailing space).
    expect(parseFrontmatter(block)).toMatchObject({ ok: true, value: { data: { summary: text, plain: `x ${text.trimEnd()}`, block: '- line\n'.repeat(200) } } });
    return b.dispose();
  });

  it('nesting up to the limit is still accepted, as the nested lists it is', () => {
    const block = `x: ${'['.repeat(99)}1${']'.repeat(99)}\n`;
    const b = builder();
    expect(b.addDocument({ path: 'ok.md', markdown: `---\n${block}---\n# Fine\n` })).toBe(b);
    let nested: unknown = 1;
    for (let depth = 0; depth < 99; depth++) nested = [nested];
    expect(parseFrontmatter(block)).toMatchObject({ ok: true, value: { data: { x: nested } } });
    return b.dispose();
  });
});

describe('wrong argument types at the API boundary', () => {
  it('validatePackage, openPackage and embed refuse a non-object target, options or embedder with OCTX_OPTIONS_INVALID', async () => {
    expect((await failureAsync(validatePackage(5 as never))).issues[0]).toMatchObject({ code: 'OCTX_OPTIONS_INVALID', field: 'target' });
    expect((await failureAsync(validatePackage({} as never))).issues[0]).toMatchObject({ code: 'OCTX_OPTIONS_INVALID', field: 'target' });
    expect((await failureAsync(validatePackage('/nowhere', null as never))).code).toBe('OCTX_OPTIONS_INVALID');
    expect((await failureAsync(openPackage('/nowhere', null as never))).code).toBe('OCTX_OPTIONS_INVALID');
    const b = builder();
    expect((await failureAsync(b.embed('chunks', null as never))).issues[0]).toMatchObject({ code: 'OCTX_OPTIONS_INVALID', field: 'embedder' });
    await b.dispose();
  });
});
