/**
 * The container abstraction shared by the ZIP and directory readers: a fixed list of regular
 * files with logical paths, each readable as a verified stream. Everything above this layer
 * (manifest, validation, iterators) is the same for both package forms.
 */
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { OctxCode } from '../model/codes.js';
import { OctxError } from '../model/errors.js';
import { logicalPathProblem } from '../model/paths.js';
import type { ArchiveLimits } from '../model/limits.js';

/** Which form a package has. */
export type PackageKind = 'zip' | 'directory';

/**
 * A package container. `names()` lists every regular file (listed in the manifest or not), all
 * of which passed the path, type and limit checks when the source was opened.
 */
export interface PackageSource {
  /** `zip` or `directory`. */
  readonly kind: PackageKind;
  /** The path the source was opened from. */
  readonly path: string;
  /** Logical paths of all regular files, in container order. */
  names(): readonly string[];
  /** True when `name` is a regular file of the container. */
  has(name: string): boolean;
  /**
   * Uncompressed size in bytes (declared by the central directory, or measured by `lstat`).
   * @throws OctxError `OCTX_FILE_MISSING` for an unknown name.
   */
  size(name: string): number;
  /**
   * A stream of the file's bytes that errors (with an {@link OctxError}) when the data is longer
   * or shorter than its size, fails its CRC-32 (ZIP) or changed since the source was opened
   * (directory). Never more than `size(name)` bytes are delivered.
   * @throws OctxError `OCTX_FILE_MISSING` for an unknown name.
   */
  open(name: string): Readable;
  /**
   * The whole file, refused with `OCTX_RESOURCE_LIMIT` before reading when it is larger than
   * `maxBytes` (default: the source's `maxFileSize`).
   */
  readAll(name: string, maxBytes?: number): Promise<Buffer>;
  /**
   * Reads many small files with few reads and gives each one's bytes to `each`, checked as
   * `open()` checks them (size, CRC-32), or the error `open()` would raise for them. The bytes
   * are valid only during the call (a buffer may be reused). ZIP: one positional read per run of
   * adjacent entries, inflated on the calling thread — for many small entries this avoids a
   * stream, an inflater and several pool round trips each. Optional: where it is missing, read
   * with `open()`. An exception of `each` stops the reading and is thrown.
   */
  readMany?(names: readonly string[], each: (name: string, result: Buffer | OctxError) => void): Promise<void>;
  /**
   * Where a ZIP entry's data lies in the archive file, as stored (compressed or not), with the
   * method and the CRC-32 and size its central directory declares: for a writer that copies the
   * entry without inflating it (after reading it through `open`/`readMany`, which check it).
   * Missing for a directory.
   * @throws OctxError `OCTX_FILE_MISSING` for an unknown name.
   */
  storedData?(name: string): StoredData;
  /** Releases the file descriptor. Streams already open keep working until they end. */
  close(): Promise<void>;
}

/** See {@link PackageSource.storedData}. */
export interface StoredData {
  readonly method: 'store' | 'deflate';
  /** Offset of the data's first byte in the archive file. */
  readonly offset: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly crc32: number;
}

/** What {@link VerifyStream} checks. */
export interface VerifyOptions {
  /** Logical path, for errors. */
  readonly path: string;
  /** Exact byte count the data must have. */
  readonly size: number;
  /** Expected CRC-32 (ZIP entries), or `undefined` to skip. */
  readonly crc32?: number;
  /** Code for a size difference: corrupt archive data, or a file that changed under us. */
  readonly sizeCode: OctxCode;
}

/**
 * Pass-through that counts bytes and computes CRC-32 with `zlib.crc32` while data flows. It
 * stops the stream as soon as one byte more than declared arrives (so a lying entry cannot make
 * us read past its declared size), and checks the count and CRC at the end.
 */
export class VerifyStream extends Transform {
  private readonly opts: VerifyOptions;
  private count = 0;
  private crc = 0;

  constructor(opts: VerifyOptions) {
    super({ highWaterMark: 1024 * 1024 });
    this.opts = opts;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.count += chunk.length;
    if (this.count > this.opts.size) {
      cb(OctxError.of({ code: this.opts.sizeCode, path: this.opts.path, message: moreThanDeclared(this.opts.path, this.opts.size) }));
      return;
    }
    if (this.opts.crc32 !== undefined) this.crc = crc32(chunk, this.crc);
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    cb(checkedWhole(this.opts, this.count, this.crc) ?? null);
  }
}

/** The message of data longer than its declared size. */
export function moreThanDeclared(path: string, size: number): string {
  return `${path} holds more than its ${size} declared bytes`;
}

/**
 * The end-of-data checks of {@link VerifyStream} for data of `count` bytes whose CRC-32 is `crc`
 * (shared with readers that see a whole file at once): the size, then the CRC-32; `undefined`
 * when both hold.
 */
export function checkedWhole(opts: VerifyOptions, count: number, crc: number): OctxError | undefined {
  if (count > opts.size) return OctxError.of({ code: opts.sizeCode, path: opts.path, message: moreThanDeclared(opts.path, opts.size) });
  if (count !== opts.size) return OctxError.of({ code: opts.sizeCode, path: opts.path, message: `${opts.path} holds ${count} bytes but ${opts.size} were declared` });
  if (opts.crc32 !== undefined && crc >>> 0 !== opts.crc32 >>> 0)
    return OctxError.of({ code: 'OCTX_ARCHIVE_CORRUPT', path: opts.path, message: `${opts.path} fails its CRC-32 check` });
  return undefined;
}

/**
 * Connects a source stream that is only available asynchronously to a {@link VerifyStream}
 * returned synchronously. Errors of the source are mapped by `mapError` before the consumer sees
 * them, and destroying the returned stream (e.g. `break` out of `for await`) destroys the source.
 */
export function deferredVerified(setup: () => Promise<Readable>, verify: VerifyStream, mapError: (e: unknown) => OctxError): Readable {
  setup().then(
    (src) => {
      if (verify.destroyed) {
        src.destroy();
        return;
      }
      connect(src, verify, mapError);
    },
    (e: unknown) => verify.destroy(mapError(e)),
  );
  return verify;
}

const PREMATURE_CLOSE = 'the data stream closed before its end';

function ignore(): void {}

/**
 * `src.pipe(dest)` with the teardown `pipeline()` gives, without its per-call cost (an
 * AbortController whose AbortError `DOMException`, stack included, is built every time a
 * pipeline finishes — once per entry read):
 * - an error of `src`, or `src` closing before its end, destroys `dest` with `mapError(error)`;
 * - `dest` closing for any reason (finished, failed, or destroyed by its consumer) destroys
 *   `src`, so nothing keeps reading;
 * - an error of `dest` that nobody listens to does not crash the process (as with `pipeline()`,
 *   the consumer sees it when it reads `dest`).
 */
export function connect(src: Readable, dest: Transform, mapError: (e: unknown) => Error = (e) => e as Error): void {
  let ended = false;
  src.once('end', () => {
    ended = true;
  });
  // Registered before pipe() so the mapped error is the one `dest` is destroyed with.
  src.on('error', (e: unknown) => dest.destroy(mapError(e)));
  src.once('close', () => {
    if (!ended && !dest.destroyed) dest.destroy(mapError(new Error(PREMATURE_CLOSE)));
  });
  dest.on('error', ignore);
  dest.once('close', () => {
    if (!src.destroyed) src.destroy();
  });
  src.pipe(dest);
}

/** Collects a stream into one buffer. */
export async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    parts.push(chunk as Buffer);
    total += (chunk as Buffer).length;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
}

/** One entry as a container reader saw it, before the collision checks. */
export interface RawEntryName {
  /** Logical path without a trailing slash. */
  readonly name: string;
  /** Directory entry (ZIP name ending in `/`, or a folder). */
  readonly isDirectory: boolean;
}

/**
 * Refuses an unsafe entry name with `OCTX_SECURITY_ERROR`: empty, NUL, backslash, absolute,
 * drive prefix, not NFC, empty/`.`/`..` segments (OCTX-REFERENCE §3.2).
 */
export function assertSafeName(name: string, where: string): void {
  const problem = logicalPathProblem(name);
  if (problem !== undefined) {
    throw OctxError.of({ code: 'OCTX_SECURITY_ERROR', path: safeForMessage(name), message: `unsafe entry name in ${where}: ${problem}` });
  }
}

/**
 * Refuses duplicate names, including a file whose name is also a directory (explicit directory
 * entry or the parent folder of another file), with `OCTX_SECURITY_ERROR`.
 */
export function assertNoCollisions(entries: readonly RawEntryName[]): void {
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const e of entries) {
    if (e.isDirectory) {
      if (dirs.has(e.name) || files.has(e.name)) throw collision(e.name);
      dirs.add(e.name);
    } else {
      if (files.has(e.name) || dirs.has(e.name)) throw collision(e.name);
      files.add(e.name);
    }
  }
  // Implied parent folders: `a/b.md` makes `a` a directory, which a file `a` would collide with.
  for (const name of files) {
    for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
      if (files.has(name.slice(0, i))) throw collision(name.slice(0, i));
    }
  }
}

function collision(name: string): OctxError {
  return OctxError.of({
    code: 'OCTX_SECURITY_ERROR',
    path: safeForMessage(name),
    message: `duplicate entry name "${safeForMessage(name)}" (a name may appear once, as a file or as a directory)`,
  });
}

/** A name made printable for messages (control characters escaped). */
export function safeForMessage(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Refuses a container whose sizes exceed the limits (`OCTX_RESOURCE_LIMIT`). */
export class SizeBudget {
  private total = 0;
  private count = 0;
  constructor(private readonly limits: ArchiveLimits) {}

  /** Counts one entry (file or directory) against `maxEntries`. */
  entry(): void {
    this.count += 1;
    if (this.count > this.limits.maxEntries) {
      throw OctxError.of({ code: 'OCTX_RESOURCE_LIMIT', message: `more than ${this.limits.maxEntries} entries (limit maxEntries)` });
    }
  }

  /** Counts one file's size against `maxFileSize` and `maxTotalUncompressed`. */
  file(name: string, size: number): void {
    if (size > this.limits.maxFileSize) {
      throw OctxError.of({
        code: 'OCTX_RESOURCE_LIMIT',
        path: safeForMessage(name),
        message: `${safeForMessage(name)} is ${size} bytes, above maxFileSize ${this.limits.maxFileSize}`,
      });
    }
    this.total += size;
    if (this.total > this.limits.maxTotalUncompressed) {
      throw OctxError.of({
        code: 'OCTX_RESOURCE_LIMIT',
        path: safeForMessage(name),
        message: `total uncompressed size exceeds maxTotalUncompressed ${this.limits.maxTotalUncompressed}`,
      });
    }
  }
}

/**
 * What the two containers share once their listing is read (the central directory, the walked
 * folder): the entries by name, in the listing's order, and the refusal of a name not listed.
 */
export abstract class ListedSource<F extends { readonly size: number }> {
  constructor(
    readonly path: string,
    protected readonly files: ReadonlyMap<string, F>,
    private readonly order: readonly string[],
  ) {}

  /** The names, in the listing's order. */
  names(): readonly string[] {
    return this.order;
  }

  /** Whether the listing has `name`. */
  has(name: string): boolean {
    return this.files.has(name);
  }

  /** The size the listing gives `name`. */
  size(name: string): number {
    return this.entry(name).size;
  }

  /** The listed entry of `name`; `OCTX_FILE_MISSING` when there is none. */
  protected entry(name: string): F {
    const f = this.files.get(name);
    if (!f) throw missing(name);
    return f;
  }
}

/** `OCTX_FILE_MISSING` for a name the container does not hold. */
export function missing(name: string): OctxError {
  return OctxError.of({ code: 'OCTX_FILE_MISSING', path: name, message: `${name} is not in the package` });
}

/** `OCTX_RESOURCE_LIMIT` for a file too large to be read into memory. */
export function tooLarge(name: string, size: number, maxBytes: number): OctxError {
  return OctxError.of({ code: 'OCTX_RESOURCE_LIMIT', path: name, message: `${name} is ${size} bytes, above the ${maxBytes}-byte read limit` });
}
