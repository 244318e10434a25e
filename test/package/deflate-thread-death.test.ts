/**
 * The shared compressing thread dies in the middle of a builder's background
 * compression (after its first reply). The export must still publish the same bytes as an export
 * that never used the thread, and the blocks the dead worker held must be compressed at export.
 */
// @module-tag heavy (whole builds around a thread that dies: seconds)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import type * as DeflateThreadModule from '../../src/package/deflate-thread.js';
import { tempDir } from '../helpers/temp.js';

const control = vi.hoisted(() => ({ kill: false, killed: 0, started: 0 }));

vi.mock('../../src/package/deflate-thread.js', async (importActual) => {
  const actual = await importActual<typeof DeflateThreadModule>();
  const thread = new actual.DeflateThread((source) => {
    control.started++;
    const w = new Worker(source, { eval: true, execArgv: [] });
    // Dies right after its first batch of replies, while later batches are posted or in hand.
    w.once('message', () => {
      if (!control.kill) return;
      control.killed++;
      void w.terminate();
    });
    return w;
  });
  return { ...actual, deflateOnThread: (raw: Buffer, dictionary: Buffer | undefined, level: number) => thread.deflate(raw, dictionary, level) };
});

const { PackageBuilder } = await import('../../src/index.js');

const hex = (n: number, w: number): string => n.toString(16).padStart(w, '0');
const id = (k: number, i: number): string => `01890a5d-${hex(k, 4)}-7${hex((i >> 12) & 0xfff, 3)}-8${hex(i & 0xfff, 3)}-${hex((i * 2654435761) % 0xffffffffffff, 12)}`;
const WORDS = ['liu', 'bei', 'cao', 'sun', 'quan', 'guan', 'yu', 'zhang', 'fei', 'zhuge', 'liang', 'river', 'battle', 'red', 'cliffs', '赤壁'];

async function exportBig(output: string, mb: number): Promise<Buffer> {
  const b = new PackageBuilder({ asset: { name: 'Big', id: '01890a5d-ac96-7ab2-80e2-4536629c90de' }, release: { version: '1.0.0', createdAt: '2026-01-01T00:00:00Z' } });
  let rng = 12345;
  const r = (): number => (rng = (rng * 1103515245 + 12345) & 0x7fffffff);
  const text = (n: number): string => {
    let s = '';
    while (s.length < n) s += WORDS[r() % 16]! + (r() % 7 === 0 ? '.\n' : ' ');
    return s;
  };
  const ent = id(3, 0);
  b.addEntity({ id: ent, name: 'Kingdoms', type: 'concept' });
  const per = 64 * 1024;
  const n = Math.ceil((mb * 1024 * 1024) / per);
  for (let i = 0; i < n; i++) {
    b.addDocument({ path: `d${i}.md`, markdown: `---\ntype: concept\ntitle: Doc ${i}\noctx:\n  document_id: ${id(4, i)}\n---\n# Doc ${i}\n` });
    const c = id(1, i);
    const e = id(2, i);
    b.addChunk({ id: c, document_id: b.documentId(`d${i}.md`), ordinal: 0, text: text(per) });
    b.addEvent({ id: e, title: `E${i}`, content: text(200) });
    b.linkChunkEvent({ chunk_id: c, event_id: e }).linkEventEntity({ event_id: e, entity_id: ent, weight: 1 });
    if (i % 16 === 0) await b.drain();
  }
  await b.export({ output, overwrite: true });
  return readFileSync(output);
}

describe('the compressing thread dies mid-build', () => {
  it('publishes the same bytes as a build whose thread lived, and later builds use the pool', async () => {
    const dir = tempDir();
    const healthy = await exportBig(join(dir, 'healthy.octx'), 40);
    expect(control.started).toBe(1);
    control.kill = true;
    // The healthy worker idles out after 2 s; a new one starts for this build and dies.
    await new Promise((r) => setTimeout(r, 2300));
    const dying = await exportBig(join(dir, 'dying.octx'), 40);
    expect(control.killed).toBe(1);
    expect(dying.equals(healthy)).toBe(true);
    const after = await exportBig(join(dir, 'after.octx'), 40);
    expect(control.started).toBe(2); // broken: no third worker
    expect(after.equals(healthy)).toBe(true);
  }, 120_000);
});
