/**
 * Issue 16, item 10: a misspelled option key used to be ignored, so the caller silently got the
 * default it meant to change. Every public options object now refuses unknown keys with
 * OCTX_OPTIONS_INVALID naming the key and the key probably meant.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPackage, PackageBuilder, repackPackage, validatePackage } from '../../src/index.js';
import { fromRag } from '../../src/adapters/rag/index.js';
import { fromIngest } from '../../src/adapters/ingest/index.js';
import { fromSagDatabase } from '../../src/adapters/sag/index.js';
import { resolveLimits } from '../../src/model/limits.js';
import { suggestKey, unknownKeyIssues } from '../../src/model/option-keys.js';
import { HashingTextEmbedder } from '../../src/vectors/index.js';
import { failure, failureAsync } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';

const ASSET = { name: 'Options' };
const DOC = { path: 'guide.md', markdown: '# Guide\n\nBody.\n' };

function expectTypo(e: { code: string; issues: readonly { field?: string; message: string }[] }, field: string, meant?: string): void {
  expect(e.code).toBe('OCTX_OPTIONS_INVALID');
  const one = e.issues.find((i) => i.field === field);
  expect(one, `an issue on ${field}`).toBeDefined();
  expect(one!.message).toContain(`unknown option "${field}"`);
  if (meant) expect(one!.message).toContain(`did you mean "${meant}"`);
}

describe('misspelled option keys', () => {
  it('export({ overwirte: true }) is refused, naming overwrite, and nothing is written', async () => {
    const dir = tempDir();
    const e = await failureAsync(new PackageBuilder({ asset: ASSET }).addDocument(DOC).export({ output: join(dir, 'o.octx'), overwirte: true } as never));
    expectTypo(e, 'overwirte', 'overwrite');
  });

  it('new PackageBuilder({ tmpDir }), asset.nmae and release.verison are refused', () => {
    expectTypo(
      failure(() => new PackageBuilder({ asset: ASSET, tmpDir: '/tmp' } as never)),
      'tmpDir',
      'tempDir',
    );
    expectTypo(
      failure(() => new PackageBuilder({ asset: { name: 'x', nmae: 'y' } } as never)),
      'asset.nmae',
      'asset.name',
    );
    expectTypo(
      failure(() => new PackageBuilder({ asset: ASSET, release: { verison: '1.0.0' } } as never)),
      'release.verison',
      'release.version',
    );
    // Case slips are suggested too; a key like nothing known gets no suggestion.
    expectTypo(
      failure(() => new PackageBuilder({ asset: ASSET, TempDir: '/tmp' } as never)),
      'TempDir',
      'tempDir',
    );
    const far = failure(() => new PackageBuilder({ asset: ASSET, colour: 'blue' } as never));
    expectTypo(far, 'colour');
    expect(far.message).not.toContain('did you mean');
  });

  it('keys handled by other parts of the export (strict) are known, and honoured', async () => {
    const dir = tempDir();
    const clean = await new PackageBuilder({ asset: ASSET, strict: true }).addDocument(DOC).export({ output: join(dir, 'o.octx'), strict: true });
    expect(clean.degraded).toBe(false);
    expect(clean.report.warnings).toEqual([]);
    expect((await validatePackage(clean.output)).valid).toBe(true);
    // Known, not ignored: the builder's strict refuses an export that would leave the structure
    // out, and export({ strict: false }) overrides it.
    const partial = (): PackageBuilder => {
      const b = new PackageBuilder({ asset: ASSET, strict: true }).addDocument(DOC);
      return b.addChunk({ id: '019c0000-0000-7000-8000-000000000001', document_id: b.documentId(DOC.path), ordinal: 0, text: 't' });
    };
    const refused = await failureAsync(partial().export({ output: join(dir, 'strict.octx') }));
    expect(refused.code).toBe('OCTX_STRICT_VIOLATION');
    expect(refused.issues.map((i) => i.code)).toEqual(['OCTX_STRICT_VIOLATION', 'OCTX_STRUCTURE_INCOMPLETE', 'OCTX_SAG_CHUNK_WITHOUT_EVENT']);
    expect(existsSync(join(dir, 'strict.octx'))).toBe(false);
    const lenient = await partial().export({ output: join(dir, 'lenient.octx'), strict: false });
    expect(lenient.degradations.map((d) => d.code)).toEqual(['OCTX_STRUCTURE_INCOMPLETE']);
    expect(lenient.manifest.files.map((f) => f.path)).toEqual(['knowledge/guide.md']);
    // A misspelling of it is still refused.
    expectTypo(
      failure(() => new PackageBuilder({ asset: ASSET, stirct: true } as never)),
      'stirct',
      'strict',
    );
  });

  it('embed, validatePackage, openPackage, repackPackage and derive options are checked', async () => {
    const dir = tempDir();
    const out = join(dir, 'o.octx');
    await new PackageBuilder({ asset: ASSET }).addDocument(DOC).export({ output: out });
    const embedder = new HashingTextEmbedder({ dimensions: 4 });
    const b = new PackageBuilder({ asset: ASSET }).addDocument(DOC);
    expectTypo(await failureAsync(b.embed('chunks', embedder, { batchsize: 8 } as never)), 'batchsize', 'batchSize');
    await b.dispose();
    expectTypo(await failureAsync(validatePackage(out, { maxIssue: 5 } as never)), 'maxIssue', 'maxIssues');
    expectTypo(await failureAsync(openPackage(out, { limit: {} } as never)), 'limit', 'limits');
    expectTypo(await failureAsync(repackPackage(out, join(dir, 'r.octx'), { overwite: true } as never)), 'overwite', 'overwrite');
    expectTypo(await failureAsync(PackageBuilder.derive(out, { asset: { name: 'D' }, documentOnly: true } as never)), 'documentOnly', 'documentsOnly');
    const limit = failure(() => resolveLimits({ maxEntires: 5 } as never));
    expect(limit.message).toContain('did you mean "maxEntries"');
  });

  it('adapter options are checked', async () => {
    const b = new PackageBuilder({ asset: ASSET });
    expectTypo(await failureAsync(fromRag(b, { chunks: [], normalised: true } as never)), 'normalised', 'normalized');
    expectTypo(await failureAsync(fromIngest(b, [], { sourceroot: '/x' } as never)), 'sourceroot', 'sourceRoot');
    expectTypo(await failureAsync(fromSagDatabase(b, '/nowhere.db', { sourceId: 's', idmode: 'ledger' } as never)), 'idmode', 'idMode');
    await b.dispose();
  });

  it('suggestKey finds transpositions and case slips, and stays quiet for unrelated keys', () => {
    expect(suggestKey('overwirte', ['output', 'overwrite'])).toBe('overwrite');
    expect(suggestKey('OUTPUT', ['output', 'overwrite'])).toBe('output');
    expect(suggestKey('zzz', ['output', 'overwrite'])).toBeUndefined();
    expect(suggestKey('outp', ['output'])).toBeUndefined(); // short keys allow one edit only
    expect(unknownKeyIssues(null, ['a'])).toEqual([]);
    expect(unknownKeyIssues({ a: 1 }, ['a'])).toEqual([]);
  });
});

describe('misspelled keys of the helpers around the builder (review after the merge)', () => {
  it('loadWorkdir({ indexfiles }) is refused before the folder is read, naming indexFiles', async () => {
    const { loadWorkdir } = await import('../../src/index.js');
    const e = await failureAsync(loadWorkdir(new PackageBuilder({ asset: ASSET }), tempDir(), { indexfiles: 'skip' } as never));
    expectTypo(e, 'indexfiles', 'indexFiles');
  });

  it('new HashingTextEmbedder({ dimension: 16 }) is refused instead of giving 384 dimensions', () => {
    expectTypo(
      failure(() => new HashingTextEmbedder({ dimension: 16 } as never)),
      'dimension',
      'dimensions',
    );
    expect(new HashingTextEmbedder({ dimensions: 16 }).config.dimensions).toBe(16);
  });

  it('new HttpEmbedder({ batchsize }) and terminalProgress({ warning }) are refused', async () => {
    const { HttpEmbedder, terminalProgress } = await import('../../src/index.js');
    expectTypo(
      failure(() => new HttpEmbedder({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', batchsize: 5 } as never)),
      'batchsize',
      'batchSize',
    );
    expectTypo(
      failure(() => terminalProgress({ warning: false } as never)),
      'warning',
      'warnings',
    );
  });

  it('addVector(…, { inputSHA256 }) is refused instead of adding a vector without its digest', () => {
    const b = new PackageBuilder({ asset: ASSET }).setVectorConfig({ model: 'm', revision: 'r', dimensions: 2, normalized: false });
    const e = failure(() => b.addVector('chunks', '019c0000-0000-7000-8000-0000000000c1', [1, 0], { inputSHA256: 'ab' } as never));
    expectTypo(e, 'inputSHA256', 'inputSha256');
  });
});
