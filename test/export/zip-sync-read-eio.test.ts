/**
 * The ZIP writer now reads small segments with `fs.readSync`.
 * An export whose synchronous segment read fails (EIO, simulated only for the ZIP writer's reads)
 * must fail with `OCTX_IO_ERROR`, leave neither the output nor a temporary file beside it, and
 * leak no descriptor (the builder is disposed, as after any failed export); a new builder exports
 * once the disk reads again.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const io = vi.hoisted(() => ({ failZipReads: false, failed: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  return {
    ...real,
    readSync: (...args: Parameters<typeof real.readSync>): number => {
      if (io.failZipReads && /zip-assembler/.test(new Error().stack ?? '')) {
        io.failed++;
        throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' });
      }
      return (real.readSync as (...a: Parameters<typeof real.readSync>) => number)(...args);
    },
  };
});
const { PackageBuilder, openPackage } = await import('../../src/index.js');

const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd0);

function builder(): InstanceType<typeof PackageBuilder> {
  return new PackageBuilder({ asset: { id: id(1), name: 'E' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
    .addDocument({ path: 'a.md', markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\nOne. Two.\n` })
    .addChunk({ id: id(0x11), document_id: DOC, ordinal: 0, text: 'One.' })
    .addEvent({ id: id(0x21), title: 'Counting', content: 'Someone counted.' })
    .addEntity({ id: id(0x31), name: 'Counter', type: 'person' })
    .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) })
    .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) });
}

describe.runIf(process.platform === 'linux')('export when a synchronous segment read fails', () => {
  it('is OCTX_IO_ERROR, leaves nothing behind, and a new builder exports afterwards', async () => {
    const dir = tempDir();
    const out = join(dir, 'e.octx');
    const b = builder();
    const before = fs.readdirSync('/proc/self/fd').length;
    io.failZipReads = true;
    try {
      await expect(b.export({ output: out })).rejects.toMatchObject({ code: 'OCTX_IO_ERROR', message: expect.stringMatching(/EIO/) });
    } finally {
      io.failZipReads = false;
    }
    expect(io.failed).toBeGreaterThan(0);
    expect(fs.readdirSync(dir)).toEqual([]);
    // The failed export disposes of the builder: its spills are closed too, so fewer descriptors than before.
    expect(fs.readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(before);
    const files = fs.readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        return [fs.readlinkSync(`/proc/self/fd/${fd}`)];
      } catch {
        return [];
      }
    });
    expect(files.filter((f) => f.startsWith(dir) || /\.(jsonl|deflate|octx)/.test(f))).toEqual([]);
    await expect(b.export({ output: out })).rejects.toMatchObject({ code: 'OCTX_BUILDER_CONSUMED' });
    await builder().export({ output: out });
    const pkg = await openPackage(out);
    await pkg.close();
  });
});
