/**
 * `validatePackage` on an exported package, and its read floor (issue 23: "inflate + SHA-256 of
 * every entry"; bench/series.ts prints validatePackage / read floor, wall and CPU, paired).
 *
 *   node --expose-gc --import tsx bench/validate.ts --mode validate --file PKG.octx --size S [--limits raised]
 *   node --expose-gc --import tsx bench/validate.ts --mode floor    --file PKG.octx --size S
 *
 * `validate`: `validatePackage(file)` with default options (what export() runs as its post-write
 * verification, and what a consumer runs).
 *
 * `floor`: the least work any full verification must do: read every entry with yauzl, inflate the
 * deflated ones on the libuv pool (256 KiB output chunks, as the SDK reader), SHA-256 every payload's bytes, and compare with
 * `manifest.json`'s `files[]`. Four entries are in flight at once (validatePackage reads up to
 * eight documents at once). No CRC-32, no parsing, no record or vector checks.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { validatePackage } from 'octx-export';
import { isMain, measure, parseArgs, parseSize, RAISED_LIMITS, type SizeName } from './common.js';

const FLOOR_INFLIGHT = 4;

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, zip) => (err ? reject(err) : resolve(zip))));
}

function listEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const out: yauzl.Entry[] = [];
    zip.on('entry', (e: yauzl.Entry) => {
      out.push(e);
      zip.readEntry();
    });
    zip.once('end', () => resolve(out));
    zip.once('error', reject);
    zip.readEntry();
  });
}

async function hashEntry(zip: yauzl.ZipFile, e: yauzl.Entry): Promise<{ sha256: string; bytes: Buffer | undefined; lines: number }> {
  // Raw bytes inflated here with output chunks sized like the SDK reader's (up to 256 KiB; yauzl's
  // own inflater uses 16 KiB, which costs more pool round trips): the floor must stay a floor.
  const raw = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(e, { decompress: e.compressionMethod === 8 ? false : null }, (err, s) => (err ? reject(err) : resolve(s))),
  );
  const stream = e.compressionMethod === 8 ? raw.pipe(createInflateRaw({ chunkSize: Math.max(64, Math.min(256 * 1024, e.uncompressedSize + 1)) })) : raw;
  if (stream !== raw) raw.once('error', (err) => stream.destroy(err));
  const h = createHash('sha256');
  const keep = e.fileName === 'manifest.json' ? ([] as Buffer[]) : undefined;
  // Records are counted (newlines of the JSONL files, native indexOf) so the floor can report
  // records/s for a package it did not write; negligible next to inflate + SHA-256.
  const jsonl = e.fileName.endsWith('.jsonl');
  let lines = 0;
  for await (const chunk of stream) {
    const b = chunk as Buffer;
    h.update(b);
    keep?.push(b);
    if (jsonl) for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
  }
  return { sha256: h.digest('hex'), bytes: keep ? Buffer.concat(keep) : undefined, lines };
}

/** Read + inflate + SHA-256 of every entry, checked against the manifest. */
export async function runFloor(file: string) {
  const zip = await openZip(file);
  try {
    const entries = (await listEntries(zip)).filter((e) => !e.fileName.endsWith('/'));
    const digests = new Map<string, string>();
    let manifestBytes: Buffer | undefined;
    let payloadBytes = 0;
    let records = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < entries.length) {
        const e = entries[next++]!;
        const r = await hashEntry(zip, e);
        if (r.bytes) manifestBytes = r.bytes;
        else {
          digests.set(e.fileName, r.sha256);
          payloadBytes += e.uncompressedSize;
          records += r.lines + (e.fileName.startsWith('knowledge/') ? 1 : 0);
        }
      }
    };
    await Promise.all(Array.from({ length: FLOOR_INFLIGHT }, worker));
    if (!manifestBytes) throw new Error('no manifest.json');
    const manifest = JSON.parse(manifestBytes.toString('utf8')) as { files: { path: string; sha256: string }[] };
    let mismatches = 0;
    for (const f of manifest.files) if (digests.get(f.path) !== f.sha256) mismatches++;
    if (mismatches > 0 || manifest.files.length !== digests.size)
      throw new Error(`floor: ${mismatches} digest mismatches, ${manifest.files.length} listed vs ${digests.size} entries`);
    return { entries: entries.length, payloadBytes, records };
  } finally {
    zip.close();
  }
}

export async function runValidate(file: string, raisedLimits = false) {
  const report = await validatePackage(file, raisedLimits ? { limits: { ...RAISED_LIMITS } } : {});
  const issues = report.issues.slice(0, 5).map((i) => `${i.code}: ${i.message}`.slice(0, 300));
  return { valid: report.valid, fullyValidated: report.fullyValidated, issueCount: report.issues.length, issues };
}

if (isMain(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  const size: SizeName = parseSize(args.get('size'));
  const seed = Number(args.get('seed') ?? 1);
  const file = args.get('file');
  if (!file) throw new Error('--file PKG.octx is required');
  const mode = args.get('mode') ?? 'validate';
  if (mode === 'floor') {
    await measure('validate-floor', size, seed, async () => {
      const r = await runFloor(file);
      return { records: r.records, payloadBytes: r.payloadBytes, extra: { entries: r.entries } };
    });
  } else {
    const payloadBytes = Number(args.get('payload-bytes') ?? 0);
    const records = Number(args.get('records') ?? 0);
    await measure('validate', size, seed, async () => {
      const r = await runValidate(file, args.get('limits') === 'raised');
      return { records, payloadBytes, extra: r };
    });
  }
}
