/**
 * validateCollecting: the validator hands its sink every structure line it parsed (the line's
 * exact bytes, its number and the parsed record) and every Arrow batch it read, so a merge reads a
 * shard once. The report is validatePackage's, and structure workers are not used with a sink
 * (they send back no records).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPackage, PackageBuilder, validatePackage } from 'octx-export';
import { validateCollecting } from '../../src/read/validate-package.js';
import { setStructureWorkers } from '../../src/read/record-scan-pool.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind } from '../../src/model/record-kinds.js';
import type { ValidationSink } from '../../src/read/validation-sink.js';

const id = (kind: number, n: number): string => `01890a5d-ac96-7${kind}00-8000-${n.toString(16).padStart(12, '0')}`;
// Built once for the file (tempDir() folders are removed after each test).
const dir = mkdtempSync(join(tmpdir(), 'octx-sink-'));
let file: string;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const b = new PackageBuilder({ asset: { name: 'Sink', id: id(0, 1) }, release: { version: '1.0.0', createdAt: '2026-03-01T12:00:00Z' } });
  b.setVectorConfig({ model: 'sink-test', dimensions: 3, normalized: false });
  b.addEntity({ id: id(4, 1), name: 'Zoë', type: 'person' });
  for (let d = 0; d < 3; d++) {
    b.addDocument({ path: `d/${d}.md`, markdown: `---\ntype: Note\ntitle: D${d}\noctx:\n  document_id: "${id(1, d)}"\n---\n# D${d}\n` });
    b.addChunk({ id: id(2, d), document_id: id(1, d), ordinal: 0, text: `chunk ${d} ✓` });
    b.addEvent({ id: id(3, d), title: `E${d}`, content: `event ${d}` });
    b.linkChunkEvent({ chunk_id: id(2, d), event_id: id(3, d) });
    b.linkEventEntity({ event_id: id(3, d), entity_id: id(4, 1) });
    b.addVector('chunks', id(2, d), [d, d + 0.5, -d]);
  }
  file = join(dir, 'sink.octx');
  await b.export({ output: file });
});

/** A sink that keeps what it is given: each line's text and number, each vector row. */
function recorder() {
  const lines = new Map<RecordKind, { text: string; line: number; id: unknown }[]>();
  const rows: { target: string; id: string | null; values: number[] }[] = [];
  const sink: ValidationSink = {
    record(kind, record, bytes, start, end, line) {
      const list = lines.get(kind) ?? [];
      list.push({ text: bytes.toString('utf8', start, end), line, id: record.id ?? record.chunk_id ?? record.event_id });
      lines.set(kind, list);
    },
    vectors(target, b) {
      for (let r = 0; r < b.length; r++) rows.push({ target, id: b.recordId(r), values: [...b.values.subarray(r * b.dimension, (r + 1) * b.dimension)] });
    },
  };
  return { sink, lines, rows };
}

describe('validateCollecting', () => {
  it('hands over every structure line byte for byte and every vector row, with the report validatePackage gives', async () => {
    const pkg = await openPackage(file);
    const { sink, lines, rows } = recorder();
    try {
      const report = await validateCollecting(pkg, sink);
      expect(report.valid).toBe(true);
      expect(report.packageDigest).toBe((await validatePackage(file)).packageDigest);
      for (const kind of RECORD_KIND_ORDER) {
        const text = (await pkg.readFile(RECORD_KINDS[kind].path)).toString('utf8');
        const expected = text.split('\n').filter((l) => l.length > 0);
        expect(lines.get(kind)!.map((l) => l.text)).toEqual(expected);
        expect(lines.get(kind)!.map((l) => l.line)).toEqual(expected.map((_, i) => i + 1));
      }
      expect(lines.get('entity')![0]!.text).toContain('Zoë');
      expect(lines.get('chunk')!.map((l) => l.id)).toEqual([id(2, 0), id(2, 1), id(2, 2)]);
      expect(rows).toEqual([0, 1, 2].map((d) => ({ target: 'chunks', id: id(2, d), values: [d, d + 0.5, -d] })));
    } finally {
      await pkg.close();
    }
  });

  it('checks the structure in-thread with a sink even when structure workers are forced on', async () => {
    const before = setStructureWorkers('always');
    const pkg = await openPackage(file);
    const { sink, lines } = recorder();
    try {
      const report = await validateCollecting(pkg, sink);
      expect(report.valid).toBe(true);
      expect(lines.get('event-entity')!.length).toBe(3);
      expect(lines.get('chunk-event')!.map((l) => l.id)).toEqual([id(2, 0), id(2, 1), id(2, 2)]);
    } finally {
      setStructureWorkers(before);
      await pkg.close();
    }
  });
});
