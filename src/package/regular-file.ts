/**
 * Reading a path the user named without hanging on it: a FIFO with no writer blocks `open()` (and
 * a character device such as `/dev/zero` never ends), so the file is opened with O_NONBLOCK and
 * checked with fstat before a byte is read. Anything but a regular file is refused with an error
 * whose `code` is `EFTYPE` (what BSD calls "inappropriate file type"), which `fsFailure` treats as
 * a wrong path.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/** The errno-like code of {@link notRegularFile} errors. */
export const NOT_REGULAR_FILE = 'EFTYPE';

/** What a non-regular file is, for messages: `a FIFO`, `a folder`, `a character device`, … */
export function fileKind(s: Pick<Stats, 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice' | 'isSymbolicLink'>): string {
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** The error for a path that exists but is not a regular file (`code` {@link NOT_REGULAR_FILE}). */
export function notRegularFile(path: string, kind: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`it is ${kind}, not a regular file`), { code: NOT_REGULAR_FILE, path });
}

// O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * The bytes of `path`, refusing anything but a regular file before reading.
 * @throws the Node error of `open` (ENOENT, EACCES, ENAMETOOLONG, …), or `EFTYPE`
 */
export async function readRegularBytes(path: string): Promise<Buffer> {
  const fh = await open(path, READ_FLAGS);
  try {
    const s = await fh.stat();
    if (!s.isFile()) throw notRegularFile(path, fileKind(s));
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/**
 * The text of `path` (UTF-8), refusing anything but a regular file before reading.
 * @throws the Node error of `open` (ENOENT, EACCES, ENAMETOOLONG, …), or `EFTYPE`
 */
export async function readRegularFile(path: string): Promise<string> {
  return (await readRegularBytes(path)).toString('utf8');
}

/** {@link readRegularFile}, synchronously. */
export function readRegularFileSync(path: string): string {
  const fd = openSync(path, READ_FLAGS);
  try {
    const s = fstatSync(fd);
    if (!s.isFile()) throw notRegularFile(path, fileKind(s));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
