/**
 * Property: a mutated archive (bit flips, truncation, inserted or deleted bytes, edited ZIP header
 * fields) of a valid small package is read with typed results only: validatePackage returns a
 * report (or throws an OctxError), openPackage and its record readers succeed or throw an
 * OctxError — never a raw TypeError/RangeError — and every read ends within a time bound.
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { isOctxError, openPackage, PackageBuilder, validatePackage, type OctxPackage } from '../../src/index.js';
import { createHash } from 'node:crypto';
import { computePackageDigest } from '../../src/package/digest.js';
import { rawZip } from '../read/helpers.js';
import { tempDir } from '../helpers/temp.js';
import { fuzzParameters, fuzzTimeout } from './fuzz-config.js';

const SHORT_RUNS = 80;
/** Content mutations rebuild the archive and reach every parser: ~0.1 s a run. */
const SHORT_CONTENT_RUNS = 40;
/** No read of a package of a few KiB may take longer than this, whatever its bytes. */
const READ_BOUND_MS = 10_000;

const uuid = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

let base: Buffer;
/** The base package's files (manifest first), for content-level mutations. */
let baseFiles: [string, Buffer][];
/** Offsets and widths of every ZIP header field of `base` (local, central, end record). */
let fields: { offset: number; width: 2 | 4 }[];

/** A valid package with documents, the full structure layer, vectors and an extension file. */
async function buildBase(): Promise<Buffer> {
  const dir = tempDir('octx-fuzz-base-');
  const out = join(dir, 'base.octx');
  const doc = uuid(0x100);
  const b = new PackageBuilder({ asset: { id: uuid(1), name: 'Base' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
    .addDocument({ path: 'guide.md', markdown: `---\ntype: Guide\ntags: [a, b]\noctx:\n  document_id: ${doc}\n---\n# Guide\n\nOne. Two.\n` })
    .addDocument({ path: 'index.md', markdown: '---\nokf_version: "0.1"\n---\n# Base\n\n* [Guide](guide.md) - the guide\n' })
    .addExtensionFile('extensions/com.example.fuzz/0.1/notes.txt', 'notes\n')
    .setVectorConfig({ model: 'example/model', revision: 'r1', dimensions: 3, normalized: false });
  for (let i = 0; i < 2; i++) {
    b.addChunk({ id: uuid(0x200 + i), document_id: doc, ordinal: i, text: `Chunk ${i}.` })
      .addEvent({ id: uuid(0x300 + i), title: `Event ${i}`, content: 'It happened.' })
      .addEntity({ id: uuid(0x400 + i), name: `Entity ${i}`, type: 'thing' })
      .linkChunkEvent({ chunk_id: uuid(0x200 + i), event_id: uuid(0x300 + i) })
      .linkEventEntity({ event_id: uuid(0x300 + i), entity_id: uuid(0x400 + i), weight: 0.5 })
      .addVector('chunks', uuid(0x200 + i), [i, 1, 0])
      .addVector('events', uuid(0x300 + i), [i, 0, 1])
      .addVector('entities', uuid(0x400 + i), [1, i, 0]);
  }
  await b.export({ output: out });
  return readFileSync(out);
}

/** Every header field of a ZIP without archive comment (as the SDK writes it). */
function headerFields(zip: Buffer): { offset: number; width: 2 | 4 }[] {
  const out: { offset: number; width: 2 | 4 }[] = [];
  const eocd = zip.length - 22;
  if (zip.readUInt32LE(eocd) !== 0x06054b50) throw new Error('base package has an archive comment or ZIP64 records');
  for (const [at, width] of [
    [8, 2],
    [10, 2],
    [12, 4],
    [16, 4],
    [20, 2],
  ] as const)
    out.push({ offset: eocd + at, width });
  let p = zip.readUInt32LE(eocd + 16);
  const entries = zip.readUInt16LE(eocd + 10);
  for (let i = 0; i < entries; i++) {
    for (const [at, width] of [
      [8, 2],
      [10, 2],
      [16, 4],
      [20, 4],
      [24, 4],
      [28, 2],
      [30, 2],
      [38, 4],
      [42, 4],
    ] as const)
      out.push({ offset: p + at, width });
    const local = zip.readUInt32LE(p + 42);
    for (const [at, width] of [
      [6, 2],
      [8, 2],
      [14, 4],
      [18, 4],
      [22, 4],
      [26, 2],
      [28, 2],
    ] as const)
      out.push({ offset: local + at, width });
    p += 46 + zip.readUInt16LE(p + 28) + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return out;
}

type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: number[] }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'field'; field: number; value: 'zero' | 'one' | 'max' | 'plus' | 'minus' | 'random'; random: number };

const fraction = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fraction, bit: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fraction }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fraction, bytes: fc.array(fc.nat(255), { minLength: 1, maxLength: 8 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fraction, length: fc.integer({ min: 1, max: 16 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('field' as const),
      field: fc.nat(10_000),
      value: fc.constantFrom('zero', 'one', 'max', 'plus', 'minus', 'random'),
      random: fc.nat(0xffffffff),
    }),
  },
);

/** Applies mutations in order (positions are fractions of the current length). */
function mutate(bytes: Buffer, mutations: readonly Mutation[]): Buffer {
  let b = Buffer.from(bytes);
  for (const m of mutations) {
    const at = (f: number): number => Math.min(b.length - 1, Math.floor(f * b.length));
    switch (m.kind) {
      case 'flip': {
        if (b.length === 0) break;
        const i = at(m.at);
        b[i] = b[i]! ^ (1 << m.bit);
        break;
      }
      case 'truncate':
        b = b.subarray(0, Math.floor(m.at * b.length));
        break;
      case 'insert': {
        const i = Math.max(0, at(m.at));
        b = Buffer.concat([b.subarray(0, i), Buffer.from(m.bytes), b.subarray(i)]);
        break;
      }
      case 'delete': {
        const i = Math.max(0, at(m.at));
        b = Buffer.concat([b.subarray(0, i), b.subarray(i + m.length)]);
        break;
      }
      case 'field': {
        const f = fields[m.field % fields.length]!;
        if (f.offset + f.width > b.length) break;
        const max = f.width === 2 ? 0xffff : 0xffffffff;
        const old = f.width === 2 ? b.readUInt16LE(f.offset) : b.readUInt32LE(f.offset);
        const value = { zero: 0, one: 1, max, plus: (old + 1) % (max + 1), minus: (old + max) % (max + 1), random: m.random % (max + 1) }[m.value];
        if (f.width === 2) b.writeUInt16LE(value, f.offset);
        else b.writeUInt32LE(value, f.offset);
        break;
      }
    }
  }
  return b;
}

/** Rejects when `p` takes longer than {@link READ_BOUND_MS}. */
async function bounded<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${READ_BOUND_MS} ms`)), READ_BOUND_MS);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `fn`; anything thrown must be an OctxError. */
async function typed(what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await bounded(what, fn());
  } catch (e) {
    if (isOctxError(e)) return;
    throw new Error(`${what} threw a raw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`, { cause: e });
  }
}

async function readEverything(pkg: OctxPackage): Promise<void> {
  for (const f of pkg.listedFiles()) await typed(`readFile ${f.path}`, () => pkg.readFile(f.path));
  await typed('documents', async () => {
    for await (const d of pkg.documents()) void d;
  });
  for (const it of [() => pkg.chunks(), () => pkg.events(), () => pkg.entities(), () => pkg.chunkEvents(), () => pkg.eventEntities()]) {
    await typed('records', async () => {
      for await (const r of it()) void r;
    });
  }
  await typed('vectorConfig', () => pkg.vectorConfig());
  for (const target of ['chunks', 'events', 'entities'] as const) {
    await typed(`vectors ${target}`, async () => {
      for await (const r of pkg.vectors(target)) void r;
    });
  }
}

/**
 * One listed file's bytes mutated inside a sound container whose manifest lists the new digests
 * (and a recomputed package digest): the mutation reaches the YAML, JSONL, JSON and Arrow readers.
 */
function mutateContent(fileIndex: number, mutations: readonly Mutation[]): Buffer {
  const listed = baseFiles.slice(1);
  const target = listed[fileIndex % listed.length]!;
  const files = listed.map(([path, bytes]): [string, Buffer] => [
    path,
    path === target[0]
      ? mutate(
          bytes,
          mutations.filter((m) => m.kind !== 'field'),
        )
      : bytes,
  ]);
  const manifest = JSON.parse(baseFiles[0]![1].toString('utf8')) as { files: { path: string; sha256: string }[]; release: { package_digest: string } };
  manifest.files = files.map(([path, bytes]) => ({ path, sha256: createHash('sha256').update(bytes).digest('hex') }));
  manifest.release.package_digest = computePackageDigest(manifest);
  return rawZip([{ name: 'manifest.json', data: `${JSON.stringify(manifest)}\n` }, ...files.map(([name, data]) => ({ name, data, method: 8 }))]);
}

/** Hostile JSON values a field may be replaced with (as JSON text). */
const HOSTILE_JSON = [
  'null',
  '-1',
  '0',
  '9007199254740993',
  '1e400',
  '-0',
  '""',
  '"\\ud800"',
  '{}',
  '[]',
  `${'['.repeat(150)}${']'.repeat(150)}`,
  JSON.stringify('x'.repeat(10_000)),
  '"019c0000-0000-7000-8000-000000000200"',
  '{"__proto__": 1}',
  'true',
];

/**
 * One field of one line of a JSON or JSONL file replaced with a hostile value (or removed), the
 * rest kept: the document stays parseable, so the rules behind the parser are what is exercised.
 */
function mutateJsonField(fileIndex: number, line: number, field: number, value: number): Buffer {
  const listed = baseFiles.filter(([path]) => path.endsWith('.json') || path.endsWith('.jsonl'));
  const [path, bytes] = listed[fileIndex % listed.length]!;
  const lines = bytes.toString('utf8').split('\n');
  const i = path.endsWith('.jsonl') ? line % Math.max(1, lines.length - 1) : 0;
  const text = path.endsWith('.jsonl') ? lines[i]! : bytes.toString('utf8');
  const record = JSON.parse(text) as Record<string, unknown>;
  const keys = Object.keys(record);
  const key = keys[field % keys.length]!;
  const hostile = value % (HOSTILE_JSON.length + 1);
  const replaced =
    hostile === HOSTILE_JSON.length
      ? JSON.stringify(Object.fromEntries(Object.entries(record).filter(([k]) => k !== key)))
      : JSON.stringify(record).replace(`${JSON.stringify(key)}:${JSON.stringify(record[key])}`, `${JSON.stringify(key)}:${HOSTILE_JSON[hostile]}`);
  const out = path.endsWith('.jsonl') ? [...lines.slice(0, i), replaced, ...lines.slice(i + 1)].join('\n') : `${replaced}\n`;
  return Buffer.from(out);
}

/** A sound container holding `files` (manifest digests fixed up unless the manifest itself is given). */
function repack(files: [string, Buffer][]): Buffer {
  const manifestGiven = files.find(([path]) => path === 'manifest.json');
  const payloads = files.filter(([path]) => path !== 'manifest.json');
  let manifestBytes: Buffer;
  if (manifestGiven) manifestBytes = manifestGiven[1];
  else {
    const manifest = JSON.parse(baseFiles[0]![1].toString('utf8')) as { files: { path: string; sha256: string }[]; release: { package_digest: string } };
    manifest.files = payloads.map(([path, bytes]) => ({ path, sha256: createHash('sha256').update(bytes).digest('hex') }));
    manifest.release.package_digest = computePackageDigest(manifest);
    manifestBytes = Buffer.from(`${JSON.stringify(manifest)}\n`);
  }
  return rawZip([{ name: 'manifest.json', data: manifestBytes }, ...payloads.map(([name, data]) => ({ name, data, method: 8 }))]);
}

describe('fuzz: mutated archives', () => {
  beforeAll(async () => {
    base = await buildBase();
    fields = headerFields(base);
    const pkg = await openPackage(await writeTemp(base));
    try {
      baseFiles = [['manifest.json', pkg.manifestBytes]];
      for (const f of pkg.listedFiles()) baseFiles.push([f.path, await pkg.readFile(f.path)]);
    } finally {
      await pkg.close();
    }
    const report = await validatePackage(await writeTemp(base));
    expect(report.valid && report.fullyValidated).toBe(true);
  });

  async function writeTemp(bytes: Buffer): Promise<string> {
    const p = join(tempDir('octx-fuzz-read-'), 'm.octx');
    writeFileSync(p, bytes);
    return p;
  }

  it(
    'validatePackage and openPackage give typed results within a time bound',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (mutations) => {
          const path = await writeTemp(mutate(base, mutations));
          await typed('validatePackage', async () => {
            const report = await validatePackage(path);
            // A report always explains itself.
            if (!report.valid) expect(report.issues.some((i) => i.severity === 'error')).toBe(true);
          });
          let pkg: OctxPackage | undefined;
          await typed('openPackage', async () => {
            pkg = await openPackage(path);
          });
          if (pkg) {
            try {
              await readEverything(pkg);
            } finally {
              await pkg.close();
            }
          }
        }),
        fuzzParameters(SHORT_RUNS),
      );
    },
    fuzzTimeout(SHORT_RUNS, 500),
  );

  it(
    'content mutations inside a sound container give typed results within a time bound',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat(100), fc.array(mutation, { minLength: 1, maxLength: 3 }), async (fileIndex, mutations) => {
          const path = await writeTemp(mutateContent(fileIndex, mutations));
          await typed('validatePackage', async () => {
            const report = await validatePackage(path);
            if (!report.valid) expect(report.issues.some((i) => i.severity === 'error')).toBe(true);
          });
          let pkg: OctxPackage | undefined;
          await typed('openPackage', async () => {
            pkg = await openPackage(path);
          });
          if (pkg) {
            try {
              await readEverything(pkg);
            } finally {
              await pkg.close();
            }
          }
        }),
        fuzzParameters(SHORT_CONTENT_RUNS),
      );
    },
    fuzzTimeout(SHORT_CONTENT_RUNS, 500),
  );

  it(
    'hostile values in JSON and JSONL fields give typed results within a time bound',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat(100), fc.nat(100), fc.nat(100), fc.nat(1000), async (fileIndex, line, field, value) => {
          const listed = baseFiles.filter(([path]) => path.endsWith('.json') || path.endsWith('.jsonl'));
          const target = listed[fileIndex % listed.length]![0];
          const mutated = mutateJsonField(fileIndex, line, field, value);
          const path = await writeTemp(
            repack(baseFiles.map(([p, b]): [string, Buffer] => [p, p === target ? mutated : b]).filter(([p]) => p !== 'manifest.json' || target === 'manifest.json')),
          );
          await typed('validatePackage', async () => {
            const report = await validatePackage(path);
            if (!report.valid) expect(report.issues.some((i) => i.severity === 'error')).toBe(true);
          });
          let pkg: OctxPackage | undefined;
          await typed('openPackage', async () => {
            pkg = await openPackage(path);
          });
          if (pkg) {
            try {
              await readEverything(pkg);
            } finally {
              await pkg.close();
            }
          }
        }),
        fuzzParameters(SHORT_CONTENT_RUNS),
      );
    },
    fuzzTimeout(SHORT_CONTENT_RUNS, 500),
  );
});
