/**
 * Issue 16, item 3: a spill write that fails while records are collected (disk full) poisons the
 * builder: the failed call throws `OCTX_IO_ERROR`, every later call and `export()` refuse with
 * that same error, and nothing is published — even after space is freed.
 *
 * The failure is injected: `writeSync` of `node:fs` fails with ENOSPC while `failWrites` is set.
 */
import { existsSync, readdirSync } from 'node:fs';
import type * as NodeFs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PackageBuilder } from '../../src/index.js';
import { OctxError } from '../../src/model/errors.js';
import { tempDir } from '../helpers/temp.js';

const fsState = vi.hoisted(() => ({ failWrites: false }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof NodeFs>();
  const writeSync = ((...args: Parameters<typeof fs.writeSync>) => {
    if (fsState.failWrites) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    return (fs.writeSync as (...a: unknown[]) => number)(...args);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const DOC = '019c0000-0000-7000-8000-00000000d0c1';
const GUIDE = `---\ntype: Reference\ntitle: Guide\noctx:\n  document_id: ${DOC}\n---\n\n# Guide\n\nPortable context.\n`;
const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

describe('a failed spill write poisons the builder', () => {
  it('refuses every later call and export() with the original OCTX_IO_ERROR, and publishes nothing', async () => {
    const dir = tempDir();
    const spills = join(dir, 'spills');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(spills);
    const b = new PackageBuilder({ asset: { id: id(1), name: 'Handbook' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' }, tempDir: spills });
    b.addDocument({ path: 'guide.md', markdown: GUIDE });
    const text = 'x'.repeat(200_000);
    for (let i = 0; i < 3; i++) b.addChunk({ id: id(0x100 + i), document_id: DOC, ordinal: i, text });

    // The disk fills: the chunk that makes the buffer reach 1 MiB cannot be flushed.
    fsState.failWrites = true;
    let original: Error | undefined;
    try {
      for (let i = 3; i < 20; i++) b.addChunk({ id: id(0x100 + i), document_id: DOC, ordinal: i, text });
    } catch (e) {
      original = e as Error;
    }
    expect(original).toBeInstanceOf(OctxError);
    expect(original).toMatchObject({ code: 'OCTX_IO_ERROR' });

    // Space is freed: the builder still refuses, with the same error.
    fsState.failWrites = false;
    expect(() => b.addChunk({ id: id(0x200), document_id: DOC, ordinal: 100, text: 'later' })).toThrow(original);
    expect(() => b.addEvent({ id: id(0x201), title: 't', content: 'c' })).toThrow(original);
    expect(() => b.addDocument({ path: 'other.md', markdown: '# Other\n' })).toThrow(original);
    expect(() => b.addExtensionFile('extensions/com.example.x/0.1/a.txt', 'a')).toThrow(original);
    const out = join(dir, 'out.octx');
    await expect(b.export({ output: out })).rejects.toBe(original);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((n) => n !== 'spills')).toEqual([]);

    // dispose() still cleans up.
    await b.dispose();
    expect(readdirSync(spills)).toEqual([]);
  });
});
