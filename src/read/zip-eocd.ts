/**
 * End-of-central-directory parsing, done by us in addition to yauzl because yauzl takes the last
 * EOCD signature it finds and trusts it: we also refuse an ambiguous EOCD (a second consistent
 * record inside the comment), multi-disk archives, ZIP64 records that disagree with the legacy
 * fields, and a central directory that overlaps the end records (OCTX-REFERENCE §3.2). The
 * central directory size found here is later compared with the headers actually present.
 *
 * Parser differentials: Python's `zipfile` and Info-ZIP take the *last* EOCD
 * signature, read the ZIP64 record right before the locator (not where the locator points),
 * and shift every offset by the gap between the declared end of the central directory and the
 * end records (they assume bytes were prepended). So the layout is pinned: the EOCD is the
 * last signature and its comment reaches exactly the end of the file; the ZIP64 record is 56
 * bytes and ends where the locator begins; the central directory ends exactly where the end
 * records begin. Then every reader finds the same central directory at the same offsets.
 */
import { read as fsRead } from 'node:fs';
import { OctxError } from '../model/errors.js';

/** Where the central directory is, as the end records declare it. */
export interface EndOfCentralDirectory {
  /** Offset of the first central directory header. */
  readonly cdOffset: number;
  /** Byte length of the central directory. */
  readonly cdSize: number;
  /** Declared number of central directory headers. */
  readonly entryCount: number;
  /** Offset of the first end record (ZIP64 EOCD when present, else the EOCD). */
  readonly endRecordsOffset: number;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const EOCD_SIZE = 22;
const ZIP64_EOCD_SIZE = 56;
const EOCD_SIGNATURE_BYTES = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const LOCATOR_SIZE = 20;

function invalid(message: string): OctxError {
  return OctxError.of({ code: 'OCTX_ARCHIVE_INVALID', message });
}

/** Reads exactly `length` bytes at `position`, or fails with `OCTX_ARCHIVE_INVALID`. */
export function preadExact(fd: number, length: number, position: number): Promise<Buffer> {
  return preadInto(fd, Buffer.allocUnsafe(length), position);
}

/** Fills `buf` from `position` of `fd` (see {@link preadExact}); resolves with `buf`. */
export function preadInto(fd: number, buf: Buffer, position: number): Promise<Buffer> {
  const length = buf.length;
  return new Promise((resolve, reject) => {
    let done = 0;
    const step = (): void => {
      if (done === length) {
        resolve(buf);
        return;
      }
      fsRead(fd, buf, done, length - done, position + done, (err, n) => {
        if (err) reject(OctxError.of({ code: 'OCTX_OPEN_ERROR', message: `cannot read the archive: ${err.message}` }));
        else if (n === 0) reject(invalid(`unexpected end of archive at byte ${position + done}`));
        else {
          done += n;
          step();
        }
      });
    };
    step();
  });
}

function u64(buf: Buffer, at: number): number {
  const v = buf.readBigUInt64LE(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid('a ZIP64 field is larger than 2^53');
  return Number(v);
}

/**
 * Finds and checks the end records of a ZIP of `size` bytes open on `fd`.
 * @throws OctxError `OCTX_ARCHIVE_INVALID`
 */
export async function readEndOfCentralDirectory(fd: number, size: number): Promise<EndOfCentralDirectory> {
  if (size < EOCD_SIZE) throw invalid('the file is too small to be a ZIP archive');
  const tailLength = Math.min(size, EOCD_SIZE + 0xffff + LOCATOR_SIZE);
  const tailStart = size - tailLength;
  const tail = await preadExact(fd, tailLength, tailStart);
  const candidates: number[] = [];
  for (let i = tailLength - EOCD_SIZE; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== EOCD_SIG) continue;
    if (i + EOCD_SIZE + tail.readUInt16LE(i + 20) === tailLength) candidates.push(i);
  }
  if (candidates.length === 0)
    throw invalid('no end-of-central-directory record whose comment reaches exactly the end of the file (not a ZIP archive, truncated, or bytes appended)');
  if (candidates.length > 1) throw invalid('ambiguous ZIP: more than one end-of-central-directory record fits');
  const at = candidates[0]!;
  // Other readers take the last signature: one after ours (in the comment) would be their EOCD.
  // Without a comment Python takes the record at the very end first; nothing follows it.
  if (tail.readUInt16LE(at + 20) > 0 && tail.indexOf(EOCD_SIGNATURE_BYTES, at + 1) !== -1) {
    throw invalid('a second end-of-central-directory signature follows the end record (in its comment)');
  }
  const disk = tail.readUInt16LE(at + 4);
  const cdDisk = tail.readUInt16LE(at + 6);
  const entriesOnDisk = tail.readUInt16LE(at + 8);
  let entryCount = tail.readUInt16LE(at + 10);
  let cdSize = tail.readUInt32LE(at + 12);
  let cdOffset = tail.readUInt32LE(at + 16);
  let endRecordsOffset = tailStart + at;

  const locAt = at - LOCATOR_SIZE;
  if (locAt >= 0 && tail.readUInt32LE(locAt) === ZIP64_LOCATOR_SIG) {
    const locDisk = tail.readUInt32LE(locAt + 4);
    const z64Offset = u64(tail, locAt + 8);
    const totalDisks = tail.readUInt32LE(locAt + 16);
    if (locDisk !== 0 || totalDisks > 1) throw invalid('multi-disk ZIP archives are not supported');
    if (z64Offset + ZIP64_EOCD_SIZE > tailStart + locAt) throw invalid('the ZIP64 end record points outside the archive');
    // Python reads the ZIP64 record right before the locator, whatever the locator says.
    if (z64Offset + ZIP64_EOCD_SIZE !== tailStart + locAt) throw invalid('the ZIP64 end record does not end where its locator begins');
    const z = await preadExact(fd, ZIP64_EOCD_SIZE, z64Offset);
    if (z.readUInt32LE(0) !== ZIP64_EOCD_SIG) throw invalid('bad ZIP64 end-of-central-directory signature');
    if (z.readBigUInt64LE(4) !== BigInt(ZIP64_EOCD_SIZE - 12)) throw invalid('the ZIP64 end record has an extensible data sector (or a wrong size)');
    const zDisk = z.readUInt32LE(16);
    const zCdDisk = z.readUInt32LE(20);
    const zEntriesOnDisk = u64(z, 24);
    const zEntries = u64(z, 32);
    const zCdSize = u64(z, 40);
    const zCdOffset = u64(z, 48);
    if (zDisk !== 0 || zCdDisk !== 0 || zEntriesOnDisk !== zEntries) throw invalid('multi-disk ZIP archives are not supported');
    // Legacy fields must either be the ZIP64 escape values or agree with the ZIP64 record;
    // otherwise two readers could see two different central directories.
    const agree = (legacy: number, escape: number, wide: number): boolean => legacy === escape || legacy === wide;
    if (!agree(entryCount, 0xffff, zEntries) || !agree(entriesOnDisk, 0xffff, zEntries) || !agree(cdSize, 0xffffffff, zCdSize) || !agree(cdOffset, 0xffffffff, zCdOffset)) {
      throw invalid('the ZIP64 end record disagrees with the legacy end record');
    }
    if ((disk !== 0 && disk !== 0xffff) || (cdDisk !== 0 && cdDisk !== 0xffff)) throw invalid('multi-disk ZIP archives are not supported');
    entryCount = zEntries;
    cdSize = zCdSize;
    cdOffset = zCdOffset;
    endRecordsOffset = z64Offset;
  } else {
    if (disk !== 0 || cdDisk !== 0 || entriesOnDisk !== entryCount) throw invalid('multi-disk ZIP archives are not supported');
  }
  if (cdOffset + cdSize > endRecordsOffset) throw invalid('the central directory overlaps the end records');
  // A gap here is where another reader would look for (another) central directory.
  if (cdOffset + cdSize !== endRecordsOffset) throw invalid(`${endRecordsOffset - cdOffset - cdSize} bytes lie between the central directory and the end records`);
  return { cdOffset, cdSize, entryCount, endRecordsOffset };
}
