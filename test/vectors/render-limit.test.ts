/**
 * Issue 24, items 7 and 9 (templates). An `input_template` of many placeholders multiplies each
 * record's text: a 0.9 MB package rendered to 2.3 GiB while it was validated. Rendering is now
 * bounded per record (`limits.maxRenderedInputBytes`, default 4 MiB): the size is measured from
 * the field texts before the string is built, and a larger input is `OCTX_RESOURCE_LIMIT` with
 * the record id. And an `input_template` that cannot be used (a syntax error, no template for a
 * target) under a declared `input_hash` no longer turns digest checking off silently: the vectors
 * layer is invalid (`OCTX_VECTOR_CONFIG_INVALID`), and the export refuses it.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HashingTextEmbedder, PackageBuilder, computePackageDigest, isOctxError, openPackage, validatePackage } from '../../src/index.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../../src/model/limits.js';
import { computeVectorFingerprint } from '../../src/vectors/config.js';
import { INPUT_HASH_DECLARATION } from '../../src/vectors/input-digest.js';
import { compileInputTemplate, renderInputTemplate } from '../../src/vectors/template.js';
import { cleanupTempDirs, tempDir, writeDir, type FileMap } from '../read/helpers.js';
import { ROOT } from '../helpers/temp.js';

afterAll(cleanupTempDirs);

const MiB = 1024 * 1024;
const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0x100000);

function caught(fn: () => unknown): { code?: string; recordId?: string; field?: string; message?: string } {
  try {
    fn();
  } catch (e) {
    if (isOctxError(e)) return { code: e.code, recordId: e.issues[0]?.recordId, field: e.issues[0]?.field, message: e.message };
    throw e;
  }
  return {};
}

/** A complete graph of `n` chunks of `textBytes` letters, one event and one entity. */
function graph(n: number, textBytes: number): PackageBuilder {
  const b = new PackageBuilder({ asset: { id: id(0xa00000), name: 'Render' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
  b.addDocument({ path: 'a.md', markdown: `---\ntype: Note\noctx:\n  document_id: ${DOC}\n---\n# A\n` });
  const event = id(0x200000);
  const entity = id(0x300000);
  b.addEvent({ id: event, title: 'E', content: 'Something.' });
  b.addEntity({ id: entity, name: 'N', type: 'thing' });
  for (let i = 0; i < n; i++) {
    const text = `${i} `.padEnd(textBytes, String.fromCharCode(97 + (i % 26)));
    b.addChunk({ id: id(i + 1), document_id: DOC, ordinal: i, text });
    b.linkChunkEvent({ chunk_id: id(i + 1), event_id: event });
  }
  b.linkEventEntity({ event_id: event, entity_id: entity, weight: 1 });
  return b;
}

/** Rewrites a package folder's `vectors/config.json` with `edit`, its fingerprint and the manifest recomputed. */
async function withConfig(pkgPath: string, edit: (config: Record<string, unknown>) => void): Promise<string> {
  const pkg = await openPackage(pkgPath);
  const files = new Map<string, Buffer>();
  let manifest: any;
  try {
    for (const f of pkg.listedFiles()) files.set(f.path, await pkg.readFile(f.path));
    manifest = structuredClone(pkg.manifest);
  } finally {
    await pkg.close();
  }
  const config = JSON.parse(files.get('vectors/config.json')!.toString('utf8')) as Record<string, unknown>;
  edit(config);
  config.fingerprint = computeVectorFingerprint(config);
  files.set('vectors/config.json', Buffer.from(`${JSON.stringify(config, null, 2)}\n`));
  for (const f of manifest.files) {
    const bytes = files.get(f.path)!;
    f.sha256 = createHash('sha256').update(bytes).digest('hex');
    f.size = bytes.length;
  }
  manifest.release.package_digest = computePackageDigest(manifest);
  const map: FileMap = { 'manifest.json': `${JSON.stringify(manifest, null, 2)}\n` };
  for (const [p, b] of files) map[p] = b;
  return writeDir(map);
}

/** Exports `graph(n, textBytes)` embedded with the hashing embedder (input digests on every target). */
async function embeddedPackage(n: number, textBytes: number): Promise<string> {
  const b = graph(n, textBytes);
  const e = new HashingTextEmbedder({ dimensions: 4 });
  for (const t of ['chunks', 'events', 'entities'] as const) await b.embed(t, e);
  const out = join(await tempDir(), 'embedded.octx');
  await b.export({ output: out });
  return out;
}

describe('rendered input size (maxRenderedInputBytes)', () => {
  it('is measured before the string is built, in UTF-8 bytes, per record', () => {
    expect(DEFAULT_ARCHIVE_LIMITS.maxRenderedInputBytes).toBe(4 * MiB);
    // "é" is two UTF-8 bytes: "{t}|{t}" of "éé" is 4 + 1 + 4 = 9 bytes.
    const record = { t: 'éé' };
    expect(compileInputTemplate('{t}|{t}', 9)(record, 'r1')).toBe('éé|éé');
    expect(caught(() => compileInputTemplate('{t}|{t}', 8)(record, 'r1'))).toMatchObject({ code: 'OCTX_RESOURCE_LIMIT', recordId: 'r1', field: 'input_template' });
    // A missing field is still named first, as before.
    expect(caught(() => compileInputTemplate('{t}{u}', 8)({ t: 'x'.repeat(100) }, 'r2'))).toMatchObject({ code: 'OCTX_TEMPLATE_FIELD_MISSING', field: 'u' });
  });

  it("a 1 MiB field behind 3,000 placeholders (3 GiB, beyond V8's longest string) is refused with OCTX_RESOURCE_LIMIT, not a RangeError", () => {
    const template = '{text} '.repeat(3000);
    const record = { text: 'x'.repeat(MiB) };
    const started = performance.now();
    const refused = caught(() => renderInputTemplate(template, record, id(1)));
    expect(refused).toMatchObject({ code: 'OCTX_RESOURCE_LIMIT', recordId: id(1), field: 'input_template' });
    expect(refused.message).toMatch(/above maxRenderedInputBytes 4194304/);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('validating a 0.9 MB package whose template multiplies every chunk 2,600 times stays bounded (512 MiB heap) and names each record', async () => {
    // 450 chunks of 2,000 bytes: 0.9 MB of text; 2,600 placeholders: 5.2 MB a record, 2.3 GB in all.
    const source = await embeddedPackage(450, 2000);
    const dir = await withConfig(source, (c) => {
      c.input_template = { chunks: '{text}'.repeat(2600), events: '{title}\n\n{content}', entities: '{name}' };
    });
    const script = `
      import { validatePackage } from './src/index.ts';
      const started = Date.now();
      const report = await validatePackage(${JSON.stringify(dir)});
      console.log(JSON.stringify({ valid: report.valid, vectors: report.capabilities.vectors?.valid, issues: report.issues.map((i) => [i.code, i.path, i.field, i.recordId ?? null]), ms: Date.now() - started }));`;
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--max-old-space-size=512', '--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: ROOT, timeout: 60_000, maxBuffer: 16 * MiB },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { valid: boolean; vectors: boolean; issues: [string, string, string, string | null][]; ms: number };
    expect(out.valid).toBe(false);
    expect(out.vectors).toBe(false);
    expect(out.issues).toHaveLength(450);
    expect(out.issues[0]).toEqual(['OCTX_RESOURCE_LIMIT', 'vectors/chunks.arrow', 'input_template', id(1)]);
    expect(new Set(out.issues.map((i) => i[0]))).toEqual(new Set(['OCTX_RESOURCE_LIMIT']));
    // Nothing was rendered: measuring 450 records is quick (rendering them took over a minute here).
    expect(out.ms).toBeLessThan(20_000);
  }, 120_000);

  it('the export refuses caller digests whose record renders above the limit, naming the record', async () => {
    const b = graph(2, 100).setVectorConfig({
      model: 'm',
      dimensions: 2,
      normalized: false,
      input_template: { chunks: '{text}'.repeat(50), events: '{title}', entities: '{name}' },
      input_hash: { ...INPUT_HASH_DECLARATION },
    });
    for (const n of [1, 2]) b.addVector('chunks', id(n), [1, 0], { inputSha256: '0'.repeat(64) });
    b.addVector('events', id(0x200000), [1, 0], { input: 'E' });
    b.addVector('entities', id(0x300000), [1, 0], { input: 'N' });
    const out = join(await tempDir(), 'caller.octx');
    let refused: unknown;
    try {
      await b.export({ output: out, limits: { maxRenderedInputBytes: 1000 } });
    } catch (e) {
      refused = e;
    }
    expect(isOctxError(refused) && refused.code).toBe('OCTX_RESOURCE_LIMIT');
    expect(isOctxError(refused) && refused.issues.map((i) => [i.recordId, i.field, i.path])).toEqual([
      [id(1), 'input_template', 'vectors/chunks.arrow'],
      [id(2), 'input_template', 'vectors/chunks.arrow'],
    ]);
    await b.dispose();
  });
});

describe('an unusable input_template under input_hash', () => {
  it('makes the vectors layer invalid instead of turning digest checking off', async () => {
    const source = await embeddedPackage(3, 20);
    expect((await validatePackage(source)).valid).toBe(true);
    const unclosed = await validatePackage(
      await withConfig(source, (c) => {
        c.input_template = '{text';
      }),
    );
    expect(unclosed.capabilities['sag-structured']?.valid).toBe(true);
    expect(unclosed.capabilities.vectors?.valid).toBe(false);
    expect(unclosed.valid).toBe(false);
    expect(unclosed.issues.map((i) => [i.code, i.path, i.field])).toEqual([
      ['OCTX_VECTOR_CONFIG_INVALID', 'vectors/config.json', 'input_template'],
      ['OCTX_VECTOR_CONFIG_INVALID', 'vectors/config.json', 'input_template'],
      ['OCTX_VECTOR_CONFIG_INVALID', 'vectors/config.json', 'input_template'],
    ]);
    expect(unclosed.issues[0]?.message).toMatch(/declares input_hash.*unclosed "\{"/);
    const noEvents = await validatePackage(
      await withConfig(source, (c) => {
        c.input_template = { chunks: '{text}', entities: '{name}' };
      }),
    );
    expect(noEvents.issues.map((i) => [i.code, i.field])).toEqual([['OCTX_VECTOR_CONFIG_INVALID', 'input_template.events']]);
    // Without input_hash the column is still checked for form only (the template is not ours to read).
    const undeclared = await validatePackage(
      await withConfig(source, (c) => {
        c.input_template = '{text';
        delete c.input_hash;
      }),
    );
    expect(undeclared.issues).toEqual([]);
  });

  it('the export refuses it (caller digests under an unparsable template)', async () => {
    const b = graph(2, 20).setVectorConfig({ model: 'm', dimensions: 2, normalized: false, input_template: '{text', input_hash: { ...INPUT_HASH_DECLARATION } });
    for (const n of [1, 2]) b.addVector('chunks', id(n), [1, 0], { inputSha256: '0'.repeat(64) });
    const out = join(await tempDir(), 'bad-template.octx');
    let refused: unknown;
    try {
      await b.export({ output: out });
    } catch (e) {
      refused = e;
    }
    expect(isOctxError(refused) && refused.code).toBe('OCTX_VECTOR_CONFIG_INVALID');
    expect(isOctxError(refused) && refused.issues.map((i) => [i.path, i.field])).toEqual([['vectors/config.json', 'input_template']]);
    await b.dispose();
  });
});
