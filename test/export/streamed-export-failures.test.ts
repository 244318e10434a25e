/** Issue 23 (Arrow files written into the archive; small entries verified in runs), from an independent review: Arrow files streamed into the archive. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PackageBuilder, isOctxError, openPackage, validatePackage } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd0);
const CONFIG = { model: 'example/model', revision: 'r1', dimensions: 4, normalized: true };
const unit = (i: number): number[] => [0, 0, 0, 0].map((_, k) => (k === i % 4 ? 1 : 0));

function graph(level?: number): PackageBuilder {
  return new PackageBuilder({
    asset: { id: id(1), name: 'V' },
    release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' },
    ...(level !== undefined ? { compressionLevel: level } : {}),
  })
    .addDocument({ path: 'a.md', markdown: `---\noctx:\n  document_id: ${DOC}\n---\n# A\n\nOne. Two.\n` })
    .addChunk({ id: id(0x11), document_id: DOC, ordinal: 0, text: 'One.' })
    .addChunk({ id: id(0x12), document_id: DOC, ordinal: 1, text: 'Two.' })
    .addEvent({ id: id(0x21), title: 'Counting', content: 'Someone counted to two.' })
    .addEntity({ id: id(0x31), name: 'Counter', type: 'person' })
    .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) })
    .linkChunkEvent({ chunk_id: id(0x12), event_id: id(0x21) })
    .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) })
    .setVectorConfig(CONFIG)
    .addVector('chunks', id(0x11), unit(0))
    .addVector('chunks', id(0x12), unit(1))
    .addVector('events', id(0x21), unit(2))
    .addVector('entities', id(0x31), unit(3));
}

const fds = (): string[] => readdirSync('/proc/self/fd');

function pyTest(path: string): string {
  return execFileSync('python3', ['-c', 'import sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\nprint(z.testzip())\nprint(len(z.namelist()))', path]).toString();
}

describe('export with streamed Arrow entries', () => {
  for (const level of [undefined, 0]) {
    it(`is a valid ZIP for python and the reader (level ${String(level)})`, async () => {
      const out = join(tempDir(), 'v.octx');
      const r = await graph(level).export({ output: out });
      expect(r.manifest.files.map((f) => f.path)).toContain('vectors/chunks.arrow');
      expect(pyTest(out)).toMatch(/^None\n/);
      expect((await validatePackage(out)).issues).toEqual([]);
      const pkg = await openPackage(out);
      await pkg.close();
    });
  }

  it('progress: arrow -> write -> verify -> fsync, bytes <= totalBytes', async () => {
    const events: { phase: string; completed?: number; total?: number; bytes?: number; totalBytes?: number }[] = [];
    const out = join(tempDir(), 'p.octx');
    const r = await graph().export({ output: out, onProgress: (e) => events.push(e) });
    const phases = events.map((e) => e.phase).filter((p, i, a) => p !== a[i - 1]);
    expect(phases).toEqual(['plan', 'arrow', 'compress', 'write', 'verify', 'fsync']);
    // 'write' counts the non-Arrow entries and the manifest; 'verify' every listed file.
    const last = (phase: string) => events.filter((e) => e.phase === phase).at(-1)!;
    expect(last('write').total).toBe(r.manifest.files.filter((f) => !f.path.endsWith('.arrow')).length + 1);
    expect(last('verify').total).toBe(r.manifest.files.length);
    for (const e of events) if (e.bytes !== undefined && e.totalBytes !== undefined) expect(e.bytes).toBeLessThanOrEqual(e.totalBytes);
    for (const e of events) if (e.completed !== undefined && e.total !== undefined) expect(e.completed).toBeLessThanOrEqual(e.total);
    const i = (p: string) => phases.indexOf(p);
    expect(i('arrow')).toBeGreaterThanOrEqual(0);
    expect(i('arrow')).toBeLessThan(i('write'));
    expect(i('write')).toBeLessThan(i('verify'));
    expect(i('verify')).toBeLessThan(i('fsync'));
  });

  for (const phase of ['arrow', 'write', 'compress']) {
    it(`a listener throwing during '${phase}' fails with its own error, leaves nothing, no fd`, async () => {
      const dir = tempDir();
      const out = join(dir, 'x.octx');
      const before = fds().length;
      const boom = new Error(`listener ${phase}`);
      let err: unknown;
      let seen = false;
      try {
        await graph().export({
          output: out,
          onProgress: (e) => {
            if (e.phase === phase) {
              seen = true;
              throw boom;
            }
          },
        });
      } catch (e) {
        err = e;
      }
      if (!seen) return;
      expect(err).toBe(boom);
      expect(readdirSync(dir)).toEqual([]);
      expect(fds().length).toBeLessThanOrEqual(before);
      const again = join(dir, 'y.octx');
      await graph().export({ output: again });
      expect((await validatePackage(again)).issues).toEqual([]);
    });
  }

  it('abort during arrow: OCTX_ABORTED, nothing left, no fd', async () => {
    const dir = tempDir();
    const out = join(dir, 'x.octx');
    const before = fds().length;
    const ac = new AbortController();
    let err: unknown;
    try {
      await graph().export({ output: out, signal: ac.signal, onProgress: (e) => e.phase === 'arrow' && ac.abort() });
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string }).code).toBe('OCTX_ABORTED');
    expect(readdirSync(dir)).toEqual([]);
    expect(fds().length).toBeLessThanOrEqual(before);
  });

  for (const nth of [1, 2, 3, 4, 5, 6, 8, 10]) {
    it(`ENOSPC on FileHandle write #${nth}: OCTX_IO_ERROR, nothing left, no fd`, async () => {
      const probe = await open(join(tempDir(), 'probe'), 'w');
      const proto = Object.getPrototypeOf(probe) as { write: (...a: unknown[]) => Promise<unknown>; writev: (...a: unknown[]) => Promise<unknown> };
      await probe.close();
      const dir = tempDir();
      const out = join(dir, 'x.octx');
      const before = fds().length;
      const b = graph();
      const realW = proto.write;
      const realV = proto.writev;
      let calls = 0;
      const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write', errno: -28 });
      vi.spyOn(proto, 'write').mockImplementation(function (this: unknown, ...a: unknown[]) {
        return ++calls === nth ? Promise.reject(enospc()) : realW.apply(this, a);
      });
      vi.spyOn(proto, 'writev').mockImplementation(function (this: unknown, ...a: unknown[]) {
        return ++calls === nth ? Promise.reject(enospc()) : realV.apply(this, a);
      });
      let err: unknown;
      try {
        await b.export({ output: out });
      } catch (e) {
        err = e;
      } finally {
        vi.restoreAllMocks();
      }
      expect(calls).toBeGreaterThanOrEqual(nth);
      expect(isOctxError(err), String(err)).toBe(true);
      expect((err as { code?: string }).code).toBe('OCTX_IO_ERROR');
      // The file that could not be written is named (for the Arrow bytes too: the archive).
      expect((err as Error).message).toContain(dir);
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
      expect(fds().length).toBeLessThanOrEqual(before);
    });
  }
});

describe('a listener throwing once during verify', () => {
  for (const at of [1, 3, 9]) {
    it(`throws at verify completed=${at}: the export fails with the listener's own error`, async () => {
      const dir = tempDir();
      const boom = new Error('listener verify once');
      let err: unknown;
      try {
        await graph().export({
          output: join(dir, 'x.octx'),
          onProgress: (e) => {
            if (e.phase === 'verify' && (e as { completed?: number }).completed === at) throw boom;
          },
        });
      } catch (e) {
        err = e;
      }
      expect(err).toBe(boom);
      expect(readdirSync(dir)).toEqual([]);
    });
  }
});
