/**
 * Issue 24, item 1: `export()` decides and writes from one frozen snapshot. Before, coverage, the
 * report and the consumer checks read the builder's live records while the bytes came from a
 * snapshot taken earlier, so a link added in between (from `onProgress`, or a concurrent producer
 * task) made coverage look complete while the link was not written: a `strict` export published a
 * package that `validatePackage` refuses (`OCTX_SAG_CHUNK_WITHOUT_EVENT`).
 *
 * Now the snapshot is taken synchronously when `export()` is called, and every collecting call made
 * while the export runs is refused with `OCTX_BUILDER_BUSY` (nothing it adds could reach a package:
 * a successful export consumes the builder). Each export below is either refused with a typed error
 * or valid, with report counts equal to the lines written.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { HashingTextEmbedder, isOctxError, openPackage, PackageBuilder, validatePackage, type Embedder, type ExportResult, type ProgressEvent } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';
import { failure } from '../helpers/errors.js';

const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd0);

function builder(strict: boolean): PackageBuilder {
  return new PackageBuilder({ asset: { id: id(1), name: 'S' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' }, strict }).addDocument({
    path: 'a.md',
    markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\nOne. Two.\n`,
  });
}

/** One complete unit, plus chunk 2 that is in no chunk-event link yet (coverage rule 2 fails). */
function almostComplete(strict: boolean): PackageBuilder {
  return builder(strict)
    .addChunk({ id: id(0x11), document_id: DOC, ordinal: 0, text: 'One.' })
    .addChunk({ id: id(0x12), document_id: DOC, ordinal: 1, text: 'Two.' })
    .addEvent({ id: id(0x21), title: 'Counting', content: 'Someone counted to two.' })
    .addEntity({ id: id(0x31), name: 'Counter', type: 'person' })
    .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) })
    .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) });
}

/** Lines of each structure file of a written package, and the package's validity. */
async function written(result: ExportResult): Promise<{ valid: boolean; errors: string[]; counts: Record<string, number> }> {
  const report = await validatePackage(result.output);
  const pkg = await openPackage(result.output);
  const counts: Record<string, number> = { chunks: 0, events: 0, entities: 0, chunkEvents: 0, eventEntities: 0 };
  try {
    if (result.report.structure.status === 'written') {
      for await (const _ of pkg.chunks()) counts.chunks!++;
      for await (const _ of pkg.events()) counts.events!++;
      for await (const _ of pkg.entities()) counts.entities!++;
      for await (const _ of pkg.chunkEvents()) counts.chunkEvents!++;
      for await (const _ of pkg.eventEntities()) counts.eventEntities!++;
    }
  } finally {
    await pkg.close();
  }
  return { valid: report.valid, errors: report.issues.filter((i) => i.severity === 'error').map((i) => i.code), counts };
}

/**
 * Every export either is refused with a typed error and leaves no package at `output`, or is valid
 * and reports exactly what it wrote.
 */
async function expectValidOrRefused(run: Promise<ExportResult>, output: string): Promise<ExportResult | undefined> {
  let result: ExportResult;
  try {
    result = await run;
  } catch (e) {
    if (!isOctxError(e)) throw e;
    expect(existsSync(output)).toBe(false);
    return undefined;
  }
  const w = await written(result);
  expect(w.errors).toEqual([]);
  expect(w.valid).toBe(true);
  if (result.report.structure.status === 'written') expect(w.counts).toEqual(result.report.structure.counts);
  return result;
}

describe('export decides and writes from one frozen snapshot (issue 24, item 1)', () => {
  it('a link added from onProgress is refused (OCTX_BUILDER_BUSY) and is not counted: strict refuses the incomplete snapshot', async () => {
    const out = join(tempDir(), 's.octx');
    const b = almostComplete(true);
    const refused: string[] = [];
    const onProgress = (_: ProgressEvent): void => {
      // The producer "completes" coverage while the export runs.
      try {
        b.linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) });
      } catch (e) {
        refused.push(isOctxError(e) ? e.code : 'raw');
      }
    };
    const e = await b.export({ output: out, onProgress }).then(
      () => undefined,
      (x: unknown) => x,
    );
    // Before the fix: the link was accepted, coverage read it live, and an invalid package was published.
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(['OCTX_BUILDER_BUSY']));
    expect(isOctxError(e) && e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(existsSync(out)).toBe(false);
    // The refused export left the builder usable: the link goes into the next export.
    b.linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) });
    const result = await expectValidOrRefused(b.export({ output: out }), out);
    expect(result?.degraded).toBe(false);
    expect(result?.report.structure.counts).toEqual({ chunks: 2, events: 1, entities: 1, chunkEvents: 2, eventEntities: 1 });
  });

  it('without strict, the export built from the snapshot leaves the incomplete layer out (degraded) instead of writing it half', async () => {
    const out = join(tempDir(), 's.octx');
    const b = almostComplete(false);
    let busy = 0;
    const result = await expectValidOrRefused(
      b.export({
        output: out,
        onProgress: () => {
          try {
            b.linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) });
          } catch (e) {
            if (isOctxError(e, 'OCTX_BUILDER_BUSY')) busy++;
            else throw e;
          }
        },
      }),
      out,
    );
    expect(busy).toBeGreaterThan(0);
    expect(result?.degraded).toBe(true);
    expect(result?.report.structure.status).toBe('omitted');
    expect(result?.report.structure.counts).toEqual({ chunks: 2, events: 1, entities: 1, chunkEvents: 1, eventEntities: 1 });
  });

  it('an add from onProgress that the callback does not catch refuses the export with OCTX_BUILDER_BUSY, nothing written', async () => {
    const out = join(tempDir(), 's.octx');
    const b = almostComplete(false);
    const e = await b.export({ output: out, onProgress: () => void b.addEntity({ id: id(0x32), name: 'Late', type: 'person' }) }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(isOctxError(e) && e.code).toBe('OCTX_BUILDER_BUSY');
    expect(existsSync(out)).toBe(false);
  });

  it('an add from onProgress after the package is published does not turn the published export into a failure', async () => {
    const out = join(tempDir(), 's.octx');
    const b = almostComplete(false).linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) });
    let thrown = 0;
    // Lets OCTX_BUILDER_BUSY escape only from the last event, sent once the package is published.
    const onProgress = (e: ProgressEvent): void => {
      if (e.phase !== 'fsync' || e.completed !== 1) return;
      thrown++;
      b.addEntity({ id: id(0x32), name: 'Late', type: 'person' });
    };
    // Before: the export rejected while its package stayed published (and its release recorded).
    const result = await expectValidOrRefused(b.export({ output: out, onProgress }), out);
    expect(thrown).toBe(1);
    expect(result?.output).toBe(out);
    expect(result?.degraded).toBe(false);
  });

  it('an embed() running when export() is called: the export has the vectors delivered before it, embed() rejects with OCTX_BUILDER_BUSY', async () => {
    const out = join(tempDir(), 's.octx');
    const b = almostComplete(false).linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) });
    const hashing = new HashingTextEmbedder({ dimensions: 8 });
    // One text per call, a macrotask each: the export starts between two batches.
    const slow: Embedder = { config: hashing.config, embed: async (texts) => (await tick(), hashing.embed(texts)) };
    let exporting: Promise<ExportResult> | undefined;
    const embedding = b.embed('chunks', slow, { batchSize: 1, concurrency: 1, onProgress: (n) => void (n === 1 && (exporting = b.export({ output: out }))) });
    const e = await embedding.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(isOctxError(e) && e.code).toBe('OCTX_BUILDER_BUSY');
    const result = await expectValidOrRefused(exporting!, out);
    // The snapshot holds one of the two chunk vectors: an incomplete target is left out, never padded.
    expect(result?.report.vectors.targets.chunks).toMatchObject({ status: 'omitted', reason: 'incomplete', records: 2, vectors: 1 });
    expect(result?.degradations.map((d) => d.cause)).toEqual(['vectors-incomplete']);
  });

  for (const consumer of ['seed', 'sag-1.7'] as const) {
    it(`a concurrent producer task interleaving add*/link* with awaits (strict, consumer ${consumer}): every export valid or refused, counts match bytes`, async () => {
      const dir = tempDir();
      let exported = 0;
      let busyRounds = 0;
      for (let round = 0; round < 12; round++) {
        const b = almostComplete(true);
        const codes = new Set<string>();
        let stop = false;
        // The producer keeps adding complete units (chunk, event, entity and both links), one call per tick.
        const producer = (async (): Promise<void> => {
          for (let k = 0; !stop && k < 200; k++) {
            const base = 0x1000 + k * 16;
            const calls = [
              () => b.addChunk({ id: id(base + 1), document_id: DOC, ordinal: 10 + k, text: `Unit ${k}.` }),
              () => b.addEvent({ id: id(base + 2), title: `Unit ${k}`, content: 'Happened.' }),
              () => b.addEntity({ id: id(base + 3), name: `Unit ${k}`, type: 'thing' }),
              () => b.linkChunkEvent({ chunk_id: id(base + 1), event_id: id(base + 2) }),
              () => b.linkEventEntity({ event_id: id(base + 2), entity_id: id(base + 3), weight: 1 }),
              // The missing link of chunk 2, late: coverage becomes complete only with it.
              () => b.linkChunkEvent({ chunk_id: id(0x12), event_id: id(base + 2) }),
            ];
            for (const call of calls.slice(0, k % 3 === 0 ? 6 : 5)) {
              try {
                call();
              } catch (e) {
                if (!isOctxError(e)) throw e;
                codes.add(e.code);
              }
              await (round % 2 === 0 ? tick() : Promise.resolve());
            }
          }
        })();
        // Let the producer get part of the way before exporting.
        for (let i = 0; i < round * 3; i++) await tick();
        const output = join(dir, `p${round}.octx`);
        const result = await expectValidOrRefused(b.export({ output, consumer }), output);
        stop = true;
        await producer;
        if (result) exported++;
        // Calls made while the export ran were refused with the typed code, nothing else.
        for (const c of codes) expect(['OCTX_BUILDER_BUSY', 'OCTX_BUILDER_CONSUMED']).toContain(c);
        if (codes.has('OCTX_BUILDER_BUSY')) busyRounds++;
        await b.dispose();
      }
      expect(exported).toBeGreaterThan(0);
      expect(busyRounds).toBeGreaterThan(0);
    });
  }

  it('a second export() while one runs is refused with OCTX_BUILDER_CONSUMED, and every collecting call with OCTX_BUILDER_BUSY', async () => {
    const dir = tempDir();
    const b = almostComplete(false).linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) });
    const running = b.export({ output: join(dir, 'a.octx') });
    await expect(b.export({ output: join(dir, 'b.octx') })).rejects.toMatchObject({ code: 'OCTX_BUILDER_CONSUMED' });
    const calls: (() => unknown)[] = [
      () => b.addDocument({ path: 'late.md', markdown: '# Late\n' }),
      () => b.addChunk({ id: id(0x13), document_id: DOC, ordinal: 2, text: 'Three.' }),
      () => b.addEvent({ id: id(0x22), title: 'Late', content: 'Late.' }),
      () => b.addEntity({ id: id(0x32), name: 'Late', type: 'person' }),
      () => b.linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x22) }),
      () => b.linkEventEntity({ event_id: id(0x22), entity_id: id(0x31) }),
      () => b.addExtensionFile('extensions/com.example.late/0.1/x.txt', 'x'),
      () => b.setVectorConfig({ model: 'example/model', revision: 'r1', dimensions: 2, normalized: false }),
      () => b.addVector('chunks', id(0x11), [1, 0]),
      () => b.reportWarning({ code: 'OCTX_ADAPTER_INPUT_INVALID', severity: 'warning', message: 'late' }),
    ];
    for (const call of calls) expect(failure(call).code).toBe('OCTX_BUILDER_BUSY');
    const result = await expectValidOrRefused(running, join(dir, 'a.octx'));
    expect(result?.report.structure.counts).toEqual({ chunks: 2, events: 1, entities: 1, chunkEvents: 2, eventEntities: 1 });
    expect(result?.manifest.files.map((f) => f.path)).not.toContain('knowledge/late.md');
  });
});
