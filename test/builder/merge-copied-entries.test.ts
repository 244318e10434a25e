/**
 * mergePackages copies the shards' deflated document and extension entries as they are: the
 * merged entry's stored bytes are the shard's, its manifest digest is the shard's, and the result
 * is the package a single build of the same content writes (default deflate settings on both
 * sides). An entry that does not pass the reader's checks is never copied.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergePackages, openPackage, PackageBuilder, validatePackage } from 'octx-export';
import { inspectZip, type RawZipEntry } from '../helpers/zip-inspect.js';
import { tempDir } from '../helpers/temp.js';
import { failureAsync } from '../helpers/errors.js';

const OPTIONS = { asset: { name: 'Copied KB', id: '01890a5d-ac96-7000-8000-00000000c0c0' }, release: { version: '1.0.0', createdAt: '2026-03-01T12:00:00Z' } };
const docId = (n: number): string => `01890a5d-ac96-7001-8000-${n.toString(16).padStart(12, '0')}`;
/** Text that deflates well (a few KiB), different per document. */
const markdown = (n: number): string =>
  `---\ntype: Note\ntitle: Doc ${n}\noctx:\n  document_id: "${docId(n)}"\n---\n# Doc ${n}\n\n${Array.from({ length: 60 }, (_, i) => `Line ${i} of document ${n}: the river, the bridge and the ledger.`).join('\n')}\n`;
const EXTENSION = 'extensions/com.example.merge/0.1/notes.txt';
const extension = (n: number): string => `${'note of shard '.repeat(200)}${n}\n`;

function fill(b: PackageBuilder, docs: readonly number[], withExtension: number | undefined): PackageBuilder {
  for (const n of docs) b.addDocument({ path: `docs/doc-${n}.md`, markdown: markdown(n) });
  if (withExtension !== undefined) b.addExtensionFile(`${EXTENSION.replace('notes', `notes-${withExtension}`)}`, extension(withExtension));
  return b;
}

/** The stored (compressed) bytes of every entry, by name. */
function storedBytes(file: string): Map<string, { entry: RawZipEntry; stored: Buffer }> {
  const buf = readFileSync(file);
  const out = new Map<string, { entry: RawZipEntry; stored: Buffer }>();
  for (const e of inspectZip(buf)) {
    const lh = e.localHeaderOffset;
    const start = lh + 30 + buf.readUInt16LE(lh + 26) + buf.readUInt16LE(lh + 28);
    out.set(e.name, { entry: e, stored: buf.subarray(start, start + e.compressedSize) });
  }
  return out;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const manifestFiles = async (file: string): Promise<Map<string, string>> => {
  const pkg = await openPackage(file);
  try {
    return new Map(pkg.listedFiles().map((f) => [f.path, f.sha256]));
  } finally {
    await pkg.close();
  }
};

describe('mergePackages copies deflated entries', () => {
  let dir: string;
  const shards: string[] = [];
  let whole: string;
  // Built once for the file (tempDir() is removed after each test).
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'octx-merge-copied-'));
    for (const [s, docs] of [
      [0, [0, 2, 4]],
      [1, [1, 3]],
    ] as const) {
      const out = join(dir, `shard-${s}.octx`);
      await fill(new PackageBuilder(OPTIONS), docs, s).export({ output: out });
      shards.push(out);
    }
    whole = join(dir, 'whole.octx');
    await fill(fill(new PackageBuilder(OPTIONS), [0, 1, 2, 3, 4], 0), [], 1).export({ output: whole });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes each shard's compressed bytes unchanged, lists the shard's digests, and equals a single build", async () => {
    const out = join(tempDir(), 'merged.octx');
    await mergePackages([shards[1]!, shards[0]!], { output: out });
    const merged = storedBytes(out);
    const digests = await manifestFiles(out);
    let copied = 0;
    for (const shard of shards) {
      const shardDigests = await manifestFiles(shard);
      for (const [name, { entry, stored }] of storedBytes(shard)) {
        if (name === 'manifest.json') continue;
        expect(entry.method).toBe(8);
        const m = merged.get(name)!;
        expect(m.entry.method).toBe(8);
        expect(m.entry.crc32).toBe(entry.crc32);
        expect(m.stored.equals(stored)).toBe(true);
        expect(digests.get(name)).toBe(shardDigests.get(name));
        expect(digests.get(name)).toBe(sha256(m.entry.data));
        copied++;
      }
    }
    expect(copied).toBe(7);
    expect(sha256(readFileSync(out))).toBe(sha256(readFileSync(whole)));
    expect((await validatePackage(out)).valid).toBe(true);
  });

  it('refuses a shard whose deflated entry was tampered with (OCTX_MERGE_SHARD_INVALID), and writes nothing', async () => {
    const bad = join(tempDir(), 'tampered.octx');
    const bytes = Buffer.from(readFileSync(shards[0]!));
    const { stored } = storedBytes(shards[0]!).get('knowledge/docs/doc-2.md')!;
    const at = bytes.indexOf(stored) + Math.floor(stored.length / 2);
    bytes[at] = bytes[at]! ^ 0x10;
    writeFileSync(bad, bytes);
    const out = join(tempDir(), 'never.octx');
    const e = await failureAsync(mergePackages([bad, shards[1]!], { output: out }));
    expect(e.code).toBe('OCTX_MERGE_SHARD_INVALID');
    expect(e.issues.some((i) => i.path === 'knowledge/docs/doc-2.md')).toBe(true);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses to publish when a shard changes after it was read (the copied bytes no longer match)', async () => {
    const d = tempDir();
    const moving = join(d, 'moving.octx');
    writeFileSync(moving, readFileSync(shards[0]!));
    const { stored } = storedBytes(moving).get('knowledge/docs/doc-4.md')!;
    const at = readFileSync(moving).indexOf(stored) + 3;
    const out = join(d, 'never.octx');
    let changed = false;
    const e = await failureAsync(
      mergePackages([moving, shards[1]!], {
        output: out,
        // The first progress event comes from the export, after every shard was read.
        onProgress: () => {
          if (changed) return;
          changed = true;
          const bytes = readFileSync(moving);
          bytes[at] = bytes[at]! ^ 0x01;
          writeFileSync(moving, bytes);
        },
      }),
    );
    expect(changed).toBe(true);
    // The export's verification re-reads the written archive: the changed entry fails it.
    expect(e.code).toBe('OCTX_INTEGRITY_ERROR');
    expect(e.message).toContain('knowledge/docs/doc-4.md');
    expect(existsSync(out)).toBe(false);
  });
});

describe('mergePackages compares shared vectors bit for bit', () => {
  const entity = '01890a5d-ac96-7004-8000-000000000001';
  async function shard(out: string, doc: number, value: number): Promise<string> {
    const b = new PackageBuilder(OPTIONS);
    b.setVectorConfig({ model: 'm/m', dimensions: 2, normalized: false });
    b.addDocument({ path: `docs/doc-${doc}.md`, markdown: markdown(doc) });
    const n = (kind: number): string => `01890a5d-ac96-700${kind}-8000-${doc.toString(16).padStart(12, '0')}`;
    b.addChunk({ id: n(2), document_id: docId(doc), ordinal: 0, text: `Chunk of ${doc}.` });
    b.addEvent({ id: n(3), title: `Event ${doc}`, content: `At the shared place, ${doc}.` });
    b.addEntity({ id: entity, name: 'Shared', type: 'place' });
    b.linkChunkEvent({ chunk_id: n(2), event_id: n(3) });
    b.linkEventEntity({ event_id: n(3), entity_id: entity });
    b.addVector('entities', entity, new Float32Array([value, 1]));
    await b.export({ output: out });
    return out;
  }

  it('writes a vector two shards hold identically once, and refuses one whose values differ in one bit', async () => {
    const d = tempDir();
    const a = await shard(join(d, 'a.octx'), 0, 0.5);
    const same = await shard(join(d, 'same.octx'), 1, 0.5);
    const r = await mergePackages([a, same], { output: join(d, 'ok.octx') });
    expect(r.shared.vectors).toBe(1);
    expect(r.shared.entity).toBe(1);
    const pkg = await openPackage(join(d, 'ok.octx'));
    const rows = [];
    for await (const row of pkg.vectors('entities')) rows.push([row.recordId, [...row.vector]]);
    await pkg.close();
    expect(rows).toEqual([[entity, [0.5, 1]]]);
    // The next float32 above 0.5: one bit of the mantissa.
    const next = new Float32Array(new Uint32Array([new Uint32Array(new Float32Array([0.5]).buffer)[0]! + 1]).buffer)[0]!;
    const other = await shard(join(d, 'other.octx'), 1, next);
    const e = await failureAsync(mergePackages([a, other], { output: join(d, 'never.octx') }));
    expect(e.code).toBe('OCTX_MERGE_RECORD_CONFLICT');
    expect(e.issues[0]!.path).toBe('vectors/entities.arrow');
    expect(existsSync(join(d, 'never.octx'))).toBe(false);
  });
});
