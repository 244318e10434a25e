/**
 * Issue 16, item 4: a record is read once, at the call. What is checked is exactly what is
 * written: a getter that returns different values on each read cannot publish a value that was
 * never checked (it used to publish an empty chunk text).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, openPackage, validatePackage } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';

const DOC = '019c0000-0000-7000-8000-00000000d0c1';
const GUIDE = `---\ntype: Reference\ntitle: Guide\noctx:\n  document_id: ${DOC}\n---\n\n# Guide\n\nPortable context.\n`;
const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** A value that is `first` on the first read and `later` on every other. */
function shifting<T>(first: T, later: T): { reads: () => number; get: () => T } {
  let n = 0;
  return { reads: () => n, get: () => (n++ === 0 ? first : later) };
}

describe('records are snapshotted once at the call', () => {
  it('writes the checked values of a record whose getters change between reads', async () => {
    const text = shifting('checked text', '');
    const chunkId = shifting(id(0x10), id(0x11));
    const meta = shifting(1, 2);
    const chunk = {
      get id() {
        return chunkId.get();
      },
      document_id: DOC,
      ordinal: 0,
      get text() {
        return text.get();
      },
      'x-meta': {
        get v() {
          return meta.get();
        },
      },
    };
    const title = shifting('Checked title', '   ');
    const event = {
      id: id(0x20),
      get title() {
        return title.get();
      },
      content: 'C',
    };
    const b = new PackageBuilder({ asset: { id: id(1), name: 'Handbook' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
    b.addDocument({ path: 'guide.md', markdown: GUIDE });
    b.addChunk(chunk);
    b.addEvent(event);
    b.addEntity({ id: id(0x30), name: 'N', type: 'thing' });
    b.linkChunkEvent({ chunk_id: id(0x10), event_id: id(0x20) });
    b.linkEventEntity({ event_id: id(0x20), entity_id: id(0x30) });
    expect([text.reads(), chunkId.reads(), meta.reads(), title.reads()]).toEqual([1, 1, 1, 1]);
    const out = join(tempDir(), 'snap.octx');
    await b.export({ output: out, structure: 'require' });
    expect((await validatePackage(out)).issues).toEqual([]);
    const pkg = await openPackage(out);
    try {
      const chunks = [];
      for await (const c of pkg.chunks()) chunks.push(c.record);
      expect(chunks).toEqual([{ id: id(0x10), document_id: DOC, ordinal: 0, text: 'checked text', 'x-meta': { v: 1 } }]);
      const events = [];
      for await (const e of pkg.events()) events.push(e.record);
      expect(events).toEqual([{ id: id(0x20), title: 'Checked title', content: 'C' }]);
    } finally {
      await pkg.close();
    }
  });

  it('still writes inherited and non-enumerable known fields, as before', async () => {
    const proto = { text: 'inherited' };
    const chunk = Object.assign(Object.create(proto) as Record<string, unknown>, { id: id(0x10), document_id: DOC });
    Object.defineProperty(chunk, 'ordinal', { value: 0, enumerable: false });
    const b = new PackageBuilder({ asset: { id: id(1), name: 'Handbook' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
    b.addDocument({ path: 'guide.md', markdown: GUIDE });
    b.addChunk(chunk as never);
    b.addEvent({ id: id(0x20), title: 'T', content: 'C' });
    b.addEntity({ id: id(0x30), name: 'N', type: 'thing' });
    b.linkChunkEvent({ chunk_id: id(0x10), event_id: id(0x20) });
    b.linkEventEntity({ event_id: id(0x20), entity_id: id(0x30) });
    const out = join(tempDir(), 'inherited.octx');
    await b.export({ output: out, structure: 'require' });
    const pkg = await openPackage(out);
    try {
      const chunks = [];
      for await (const c of pkg.chunks()) chunks.push(c.record);
      expect(chunks).toEqual([{ id: id(0x10), document_id: DOC, ordinal: 0, text: 'inherited' }]);
    } finally {
      await pkg.close();
    }
  });
});
