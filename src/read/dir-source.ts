/**
 * The unpacked directory form of a package ("OCTX Working Directory"): a folder holding
 * `manifest.json`. The tree is walked once with `lstat` (never following links) and every entry
 * must be a directory or a regular file with a single link; names follow the same logical path
 * rules and limits as ZIP entries (OCTX-REFERENCE §3). Files are later opened with O_NOFOLLOW and
 * compared with what the walk saw, so a file swapped for a link, or rewritten, is refused.
 */
import { constants as fsConstants, type Stats } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { OctxError } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import { ListedSource, SizeBudget, VerifyStream, assertSafeName, collect, deferredVerified, safeForMessage, tooLarge, type PackageSource } from './source.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What the walk recorded about one regular file. */
interface DirFile {
  readonly abs: string;
  readonly size: number;
  readonly dev: number;
  readonly ino: number;
  readonly mtimeMs: number;
}

function security(message: string, path?: string): OctxError {
  return OctxError.of({ code: 'OCTX_SECURITY_ERROR', message, ...(path === undefined ? {} : { path: safeForMessage(path) }) });
}

function describeType(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device node';
  return 'a special file';
}

/**
 * Walks a package directory and checks every entry.
 * @throws OctxError `OCTX_SECURITY_ERROR` (link, hard link, special file, unsafe or non-UTF-8
 *   name), `OCTX_RESOURCE_LIMIT`, `OCTX_OPEN_ERROR` (unreadable folder)
 */
export async function openDirectorySource(root: string, limits: ArchiveLimits): Promise<PackageSource> {
  const budget = new SizeBudget(limits);
  const files = new Map<string, DirFile>();
  const order: string[] = [];
  // Breadth-first with an explicit queue: depth is bounded by the path rules, not the JS stack.
  const queue: { abs: string; rel: string }[] = [{ abs: root, rel: '' }];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    let names: Buffer[];
    try {
      names = await readdir(dir.abs, { encoding: 'buffer' });
    } catch (e) {
      throw OctxError.of({ code: 'OCTX_OPEN_ERROR', message: `cannot read folder ${dir.rel || root}: ${(e as Error).message}` });
    }
    names.sort((a, b) => Buffer.compare(a, b));
    for (const raw of names) {
      let name: string;
      try {
        name = strictUtf8.decode(raw);
      } catch {
        throw security(`a file name under ${dir.rel || 'the package root'} is not valid UTF-8`);
      }
      const rel = dir.rel === '' ? name : `${dir.rel}/${name}`;
      assertSafeName(rel, 'the package folder');
      const abs = join(dir.abs, name);
      const st = await lstat(abs);
      budget.entry();
      if (st.isDirectory()) {
        queue.push({ abs, rel });
      } else if (st.isFile()) {
        if (st.nlink > 1) throw security(`${rel} is a hard link (${st.nlink} links); only files with a single link are allowed`, rel);
        budget.file(rel, st.size);
        files.set(rel, { abs, size: st.size, dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs });
        order.push(rel);
      } else {
        throw security(`${rel} is ${describeType(st)}; only regular files and folders are allowed`, rel);
      }
    }
  }
  return new DirectorySource(root, files, order, limits);
}

class DirectorySource extends ListedSource<DirFile> implements PackageSource {
  readonly kind = 'directory' as const;

  constructor(
    path: string,
    files: ReadonlyMap<string, DirFile>,
    order: readonly string[],
    private readonly limits: ArchiveLimits,
  ) {
    super(path, files, order);
  }

  open(name: string): Readable {
    const f = this.entry(name);
    const verify = new VerifyStream({ path: name, size: f.size, sizeCode: 'OCTX_SECURITY_ERROR' });
    return deferredVerified(
      async () => {
        let handle;
        try {
          // O_NOFOLLOW: a file replaced by a symlink after the walk fails here instead of being read.
          // O_NONBLOCK: one replaced by a FIFO does not block open(2) (the stat below refuses it).
          handle = await open(f.abs, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | (fsConstants.O_NONBLOCK ?? 0));
        } catch (e) {
          throw security(`${name} cannot be opened as a regular file: ${(e as Error).message}`, name);
        }
        const st = await handle.stat();
        if (!st.isFile() || st.dev !== f.dev || st.ino !== f.ino || st.size !== f.size || st.nlink > 1 || st.mtimeMs !== f.mtimeMs) {
          await handle.close();
          throw security(`${name} changed while the package was being read`, name);
        }
        // The stream owns the handle from here on and closes it when it ends or is destroyed.
        return handle.createReadStream({ autoClose: true, highWaterMark: 1024 * 1024 });
      },
      verify,
      (e) => (e instanceof OctxError ? e : security(`${name} could not be read: ${(e as Error).message}`, name)),
    );
  }

  async readAll(name: string, maxBytes: number = this.limits.maxFileSize): Promise<Buffer> {
    const size = this.size(name);
    if (size > maxBytes) throw tooLarge(name, size, maxBytes);
    return collect(this.open(name));
  }

  async close(): Promise<void> {
    // Nothing is held open between reads.
  }
}
