/**
 * The checks of a ZIP package's headers that yauzl does not make (OCTX-REFERENCE §3.2): raw-name
 * decoding with the UTF-8 flag and the Info-ZIP Unicode Path field, path safety, link and
 * special-file modes, encryption, method, stored sizes, the entry and size budget, the
 * compression ratio, and the local header against the central one.
 */
import type yauzl from 'yauzl';
import { OctxError } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import { assertSafeName, safeForMessage, type SizeBudget } from './source.js';
import { preadExact, preadInto } from './zip-eocd.js';
import { runsOf } from './zip-fd-reader.js';

const LOCAL_HEADER_SIG = 0x04034b50;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const FLAG_UTF8 = 0x0800;
const FLAG_MASKED_HEADERS = 0x2000;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** "Version made by" hosts whose external attributes carry a Unix mode: Unix and macOS. */
const UNIX_HOSTS: ReadonlySet<number> = new Set([3, 19]);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A failure of the archive, `path` naming the entry when there is one. */
export function zipFailure(code: 'OCTX_SECURITY_ERROR' | 'OCTX_ARCHIVE_INVALID' | 'OCTX_ARCHIVE_CORRUPT' | 'OCTX_RESOURCE_LIMIT', message: string, path?: string): OctxError {
  return OctxError.of({ code, message, ...(path === undefined ? {} : { path }) });
}

/** Maps a yauzl error raised while the central directory is read. */
export function mapOpenError(e: unknown): OctxError {
  if (e instanceof OctxError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (/strong encryption/i.test(message)) return zipFailure('OCTX_SECURITY_ERROR', `encrypted entry: ${message}`);
  if (/size mismatch/i.test(message)) return zipFailure('OCTX_ARCHIVE_CORRUPT', message);
  return zipFailure('OCTX_ARCHIVE_INVALID', message);
}

/** Maps an error raised while an entry is streamed: inflate failures and size lies. */
export function mapStreamError(e: unknown): OctxError {
  if (e instanceof OctxError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (/signature|overflows file bounds|unexpected EOF/i.test(message)) return zipFailure('OCTX_ARCHIVE_INVALID', message);
  return zipFailure('OCTX_ARCHIVE_CORRUPT', `entry data unreadable: ${message}`);
}

/** Decodes a raw entry name: strict UTF-8 with bit 11, otherwise ASCII only (§3.2). */
function decodeName(raw: Buffer, flags: number): string {
  if ((flags & FLAG_UTF8) !== 0) {
    try {
      return strictUtf8.decode(raw);
    } catch {
      throw zipFailure('OCTX_ARCHIVE_INVALID', 'an entry name flagged UTF-8 is not valid UTF-8');
    }
  }
  for (const b of raw) {
    if (b >= 0x80) {
      // Without the flag, readers disagree (CP437 vs UTF-8): two tools would see two names.
      throw zipFailure('OCTX_SECURITY_ERROR', `entry name "${safeForMessage(raw.toString('latin1'))}" has non-ASCII bytes but no UTF-8 flag`);
    }
  }
  return raw.toString('latin1');
}

/**
 * Checks one central-directory entry (name, safety, encryption, method, stored size, mode, budget,
 * compression ratio) and returns its name.
 * @throws OctxError `OCTX_ARCHIVE_INVALID`, `OCTX_ARCHIVE_CORRUPT`, `OCTX_SECURITY_ERROR`, `OCTX_RESOURCE_LIMIT`
 */
export function checkCentralEntry(e: yauzl.Entry, limits: ArchiveLimits, budget: SizeBudget): { name: string; isDirectory: boolean } {
  const flags = e.generalPurposeBitFlag;
  const raw = e.fileNameRaw;
  const decoded = decodeName(raw, flags);
  // Info-ZIP Unicode Path field: another reader may show this name instead; refuse a mismatch.
  for (const x of e.extraFields) {
    if (x.id === 0x7075 && x.data.length >= 5 && x.data[0] === 1) {
      let alt: string;
      try {
        alt = strictUtf8.decode(x.data.subarray(5));
      } catch {
        throw zipFailure('OCTX_SECURITY_ERROR', `entry "${safeForMessage(decoded)}" carries an undecodable Unicode Path field`);
      }
      if (alt !== decoded) throw zipFailure('OCTX_SECURITY_ERROR', `entry "${safeForMessage(decoded)}" carries a different Unicode Path name "${safeForMessage(alt)}"`);
    }
  }
  const isDirectory = decoded.endsWith('/');
  const name = isDirectory ? decoded.slice(0, -1) : decoded;
  assertSafeName(name, 'the ZIP archive');
  if ((flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_MASKED_HEADERS)) !== 0) {
    throw zipFailure('OCTX_SECURITY_ERROR', `entry "${name}" is encrypted`, name);
  }
  if (e.compressionMethod !== 0 && e.compressionMethod !== 8) {
    throw zipFailure('OCTX_SECURITY_ERROR', `entry "${name}" uses compression method ${e.compressionMethod}; only STORE (0) and DEFLATE (8) are allowed`, name);
  }
  // Checked here rather than by yauzl (validateEntrySizes is off for the central directory):
  // yauzl checks before the encryption flag is seen, so an encrypted stored entry was reported
  // as "size mismatch 1334 != 1334". The bytes themselves are counted and CRC-checked on read.
  if (e.compressionMethod === 0 && e.compressedSize !== e.uncompressedSize) {
    throw zipFailure('OCTX_ARCHIVE_CORRUPT', `stored entry "${name}": size mismatch, ${e.compressedSize} bytes stored for ${e.uncompressedSize} bytes of content`, name);
  }
  if (UNIX_HOSTS.has(e.versionMadeBy >>> 8)) {
    const type = (e.externalFileAttributes >>> 16) & S_IFMT;
    const expected = isDirectory ? S_IFDIR : S_IFREG;
    if (type !== 0 && type !== expected) {
      const what = type === S_IFLNK ? 'a symbolic link' : type === S_IFDIR ? 'a directory without a trailing slash' : `a special file (mode ${type.toString(8)})`;
      throw zipFailure('OCTX_SECURITY_ERROR', `entry "${name}" is ${what}; only regular files and directories are allowed`, name);
    }
  }
  budget.entry();
  if (!isDirectory) {
    budget.file(name, e.uncompressedSize);
    if (e.compressionMethod === 8 && e.uncompressedSize > 0) {
      const ratio = e.compressedSize === 0 ? Infinity : e.uncompressedSize / e.compressedSize;
      if (ratio > limits.maxCompressionRatio) {
        throw zipFailure(
          'OCTX_RESOURCE_LIMIT',
          `entry "${name}" expands ${ratio === Infinity ? 'from nothing' : `${ratio.toFixed(1)}:1`}, above maxCompressionRatio ${limits.maxCompressionRatio}`,
          name,
        );
      }
    }
  }
  return { name, isDirectory };
}

/** Bytes of a local header its checks read: the fixed part and the name the central directory gives. */
function localHeadLength(e: yauzl.Entry, fileSize: number): number {
  return Math.min(30 + e.fileNameLength, fileSize - e.relativeOffsetOfLocalHeader);
}

/** What the checks need of one local header, taken while its run is in memory (no bytes kept). */
export interface LocalHead {
  readonly signature: number;
  readonly flags: number;
  readonly method: number;
  readonly nameLength: number;
  readonly extraLength: number;
  /** Whether the local name equals the central one (`false` also when it could not be compared: it is read again to say so). */
  readonly nameMatches: boolean;
}

/**
 * The local header of every entry, aligned with `entries`, read in runs of nearby headers in
 * offset order ({@link runsOf}) through one reused buffer. An entry whose header starts past the
 * end of the file gets `undefined` (its check says so).
 */
export async function readLocalHeads(fd: number, entries: readonly yauzl.Entry[], fileSize: number): Promise<(LocalHead | undefined)[]> {
  const heads = new Array<LocalHead | undefined>(entries.length);
  const byOffset = entries
    .map((e, i) => i)
    .filter((i) => entries[i]!.relativeOffsetOfLocalHeader + 30 <= fileSize)
    .sort((a, b) => entries[a]!.relativeOffsetOfLocalHeader - entries[b]!.relativeOffsetOfLocalHeader);
  const startOf = (k: number): number => entries[byOffset[k]!]!.relativeOffsetOfLocalHeader;
  let buffer: Buffer | undefined;
  for (const { first, end, start, stop } of runsOf(byOffset.length, startOf, (k) => startOf(k) + localHeadLength(entries[byOffset[k]!]!, fileSize))) {
    if (buffer === undefined || buffer.length < stop - start) buffer = Buffer.allocUnsafe(Math.max(stop - start, 64 * 1024));
    const run = await preadInto(fd, buffer.subarray(0, stop - start), start);
    for (let k = first; k < end; k++) {
      const e = entries[byOffset[k]!]!;
      const at = e.relativeOffsetOfLocalHeader - start;
      const nameLength = run.readUInt16LE(at + 26);
      const nameEnd = at + 30 + nameLength;
      heads[byOffset[k]!] = {
        signature: run.readUInt32LE(at),
        flags: run.readUInt16LE(at + 6),
        method: run.readUInt16LE(at + 8),
        nameLength,
        extraLength: run.readUInt16LE(at + 28),
        nameMatches: nameLength === e.fileNameLength && nameEnd <= at + localHeadLength(e, fileSize) && run.subarray(at + 30, nameEnd).equals(e.fileNameRaw),
      };
    }
  }
  return heads;
}

/** Checks the local header (`head`, read by {@link readLocalHeads}) against the central one; returns the end of the entry's data. */
export async function checkLocalHeader(fd: number, e: yauzl.Entry, name: string, fileSize: number, head: LocalHead | undefined): Promise<number> {
  const start = e.relativeOffsetOfLocalHeader;
  if (start + 30 > fileSize || head === undefined) throw zipFailure('OCTX_ARCHIVE_INVALID', `entry "${name}" points outside the archive`, name);
  if (head.signature !== LOCAL_HEADER_SIG) throw zipFailure('OCTX_ARCHIVE_INVALID', `entry "${name}" has no local header at its offset`, name);
  const { flags, method, nameLength, extraLength } = head;
  if (flags !== e.generalPurposeBitFlag) {
    throw zipFailure(
      'OCTX_SECURITY_ERROR',
      `entry "${name}": local header flags 0x${flags.toString(16)} differ from the central directory 0x${e.generalPurposeBitFlag.toString(16)}`,
      name,
    );
  }
  if (method !== e.compressionMethod) {
    throw zipFailure('OCTX_SECURITY_ERROR', `entry "${name}": local header method ${method} differs from the central directory ${e.compressionMethod}`, name);
  }
  if (!head.nameMatches) {
    // Read again only to name it (or to fail on an archive that ends inside it).
    const localName = await preadExact(fd, nameLength, start + 30);
    if (!localName.equals(e.fileNameRaw)) {
      throw zipFailure('OCTX_SECURITY_ERROR', `entry "${name}": local header name "${safeForMessage(localName.toString('latin1'))}" differs from the central directory`, name);
    }
  }
  const dataEnd = start + 30 + nameLength + extraLength + e.compressedSize;
  if (dataEnd > fileSize) throw zipFailure('OCTX_ARCHIVE_INVALID', `entry "${name}" data overflows the archive`, name);
  return dataEnd;
}
