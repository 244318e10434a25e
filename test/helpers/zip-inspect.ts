import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

/** One central-directory entry, read straight from the bytes (test helper, no ZIP library). */
export interface RawZipEntry {
  name: string;
  nameBytes: Buffer;
  versionMadeBy: number;
  flags: number;
  method: number;
  dosTime: number;
  dosDate: number;
  crc32: number;
  compressedSize: number;
  size: number;
  externalAttributes: number;
  localHeaderOffset: number;
  localFlags: number;
  localMethod: number;
  data: Buffer;
}

/**
 * Parses a ZIP's end-of-central-directory and central directory (ZIP64 aware) and returns every
 * entry with its raw header fields and inflated data.
 */
export function inspectZip(pathOrBytes: string | Buffer): RawZipEntry[] {
  const buf = typeof pathOrBytes === 'string' ? readFileSync(pathOrBytes) : pathOrBytes;
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('no EOCD');
  let count = buf.readUInt16LE(eocd + 10);
  let cdOffset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) {
    const locator = eocd - 20;
    if (buf.readUInt32LE(locator) !== 0x07064b50) throw new Error('no ZIP64 locator');
    const z64 = Number(buf.readBigUInt64LE(locator + 8));
    count = Number(buf.readBigUInt64LE(z64 + 32));
    cdOffset = Number(buf.readBigUInt64LE(z64 + 48));
  }
  const entries: RawZipEntry[] = [];
  let p = cdOffset;
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central header at ${p}`);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const nameBytes = buf.subarray(p + 46, p + 46 + nameLen);
    let compressedSize = buf.readUInt32LE(p + 20);
    let size = buf.readUInt32LE(p + 24);
    let localHeaderOffset = buf.readUInt32LE(p + 42);
    // ZIP64 extra field (id 1) holds the 64-bit values that overflowed.
    let e = p + 46 + nameLen;
    const end = e + extraLen;
    while (e + 4 <= end) {
      const id = buf.readUInt16LE(e);
      const len = buf.readUInt16LE(e + 2);
      if (id === 1) {
        let q = e + 4;
        if (size === 0xffffffff) {
          size = Number(buf.readBigUInt64LE(q));
          q += 8;
        }
        if (compressedSize === 0xffffffff) {
          compressedSize = Number(buf.readBigUInt64LE(q));
          q += 8;
        }
        if (localHeaderOffset === 0xffffffff) {
          localHeaderOffset = Number(buf.readBigUInt64LE(q));
          q += 8;
        }
      }
      e += 4 + len;
    }
    const method = buf.readUInt16LE(p + 10);
    const lh = localHeaderOffset;
    if (buf.readUInt32LE(lh) !== 0x04034b50) throw new Error('bad local header');
    const dataStart = lh + 30 + buf.readUInt16LE(lh + 26) + buf.readUInt16LE(lh + 28);
    const raw = buf.subarray(dataStart, dataStart + compressedSize);
    entries.push({
      name: nameBytes.toString('utf8'),
      nameBytes,
      versionMadeBy: buf.readUInt16LE(p + 4),
      flags: buf.readUInt16LE(p + 8),
      method,
      dosTime: buf.readUInt16LE(p + 12),
      dosDate: buf.readUInt16LE(p + 14),
      crc32: buf.readUInt32LE(p + 16),
      compressedSize,
      size,
      externalAttributes: buf.readUInt32LE(p + 38),
      localHeaderOffset,
      localFlags: buf.readUInt16LE(lh + 6),
      localMethod: buf.readUInt16LE(lh + 8),
      data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** The entry data of `name` as UTF-8 text. */
export function entryText(entries: RawZipEntry[], name: string): string {
  const e = entries.find((x) => x.name === name);
  if (!e) throw new Error(`no entry ${name}`);
  return e.data.toString('utf8');
}
