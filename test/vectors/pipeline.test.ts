import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeArrowTarget } from '../../src/vectors/arrow-writer.js';
import { HashingTextEmbedder, VECTOR_TARGETS, embedAll, prepareVectorConfig, templateForTarget, vectorConfigIssues } from '../../src/vectors/index.js';
import { compileInputTemplate } from '../../src/vectors/template.js';
import { VectorSpill } from '../../src/vectors/vector-spill.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'octx-pipeline-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const events = [
  { id: '019c4444-4444-7444-8444-444444444444', title: 'Passing Five Passes and Slaying Six Generals', content: 'Guan Yu passed a series of checkpoints.' },
  { id: '019c4444-4444-7444-8444-444444444445', title: '过五关斩六将', content: '关羽千里走单骑。' },
  { id: '019c4444-4444-7444-8444-444444444446', title: 'Return', content: 'He found his brother.' },
];

async function exportEvents(outName: string): Promise<{ sha: string; bytes: Buffer }> {
  const embedder = new HashingTextEmbedder({ dimensions: 32 });
  const prepared = prepareVectorConfig(embedder.config);
  const render = compileInputTemplate(templateForTarget(prepared.config, 'events'));
  const spill = new VectorSpill({ file: path.join(dir, `${outName}.spill`), target: 'events', dimensions: prepared.dimensions, normalized: prepared.normalized });
  const indexOf = new Map(events.map((e, i) => [e.id, i]));
  try {
    await embedAll({
      items: events.map((e) => ({ id: e.id, text: render(e, e.id) })),
      embedder,
      batchSize: 2,
      concurrency: 2,
      onBatch: (ids, vectors) => ids.forEach((id, k) => spill.add(indexOf.get(id) ?? -1, id, vectors[k] ?? [])),
    });
    expect(spill.normWarnings.count).toBe(0);
    const outPath = path.join(dir, outName);
    const r = await writeArrowTarget({ spill, rows: events.map((e, i) => ({ recordIndex: i, id: e.id })), outPath });
    return { sha: r.sha256, bytes: readFileSync(outPath) };
  } finally {
    spill.close();
  }
}

describe('vectors pipeline (hashing embedder → spill → Arrow)', () => {
  it('produces a valid config and a deterministic, readable target file', async () => {
    const a = await exportEvents('a.arrow');
    const b = await exportEvents('b.arrow');
    expect(b.bytes.equals(a.bytes)).toBe(true);
    const table = tableFromIPC(a.bytes);
    expect(table.getChild('record_id')?.toArray()).toEqual(events.map((e) => e.id));
    const embedder = new HashingTextEmbedder({ dimensions: 32 });
    const expected = embedder.embedText(`${events[1]?.title ?? ''}\n\n${events[1]?.content ?? ''}`);
    const got = (table.getChild('vector')?.get(1) as { toArray(): Float32Array }).toArray();
    expect(Array.from(got)).toEqual(Array.from(expected));
    const config = JSON.parse(prepareVectorConfig(embedder.config).bytes.toString('utf8')) as unknown;
    expect(vectorConfigIssues(config)).toEqual([]);
    expect(VECTOR_TARGETS).toEqual(['chunks', 'events', 'entities']);
  });
});
