/**
 * File names of a folder build, checked as the walk lists them: a name that is not UTF-8 is shown
 * by its bytes (it is refused: read as text it names no file), and paths that differ only by
 * letter case are warned about (one file on a case-insensitive file system).
 */
import { issue, type OctxIssue } from '../model/errors.js';

/**
 * `OCTX_PATH_CASE_COLLISION` warnings for files (sorted) whose paths differ only by letter case,
 * each naming the later one and the first. Paths equal after NFC are refused by `addDocument`.
 */
export function caseCollisions(files: readonly string[]): OctxIssue[] {
  const first = new Map<string, string>();
  const out: OctxIssue[] = [];
  for (const rel of files) {
    const key = rel.normalize('NFC').toLowerCase();
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, rel);
    else if (earlier.normalize('NFC') !== rel.normalize('NFC')) {
      out.push(
        issue({
          code: 'OCTX_PATH_CASE_COLLISION',
          severity: 'warning',
          path: rel,
          message: `${rel} and ${earlier} differ only by letter case: one file on a case-insensitive file system (macOS, Windows), where unpacking the package loses one`,
        }),
      );
    }
  }
  return out;
}

/** A file name's bytes, the UTF-8 runs as text and every other byte as `\xNN`. */
export function bytesShown(name: Buffer): string {
  let out = '';
  let i = 0;
  while (i < name.length) {
    const n = utf8SequenceLength(name, i);
    if (n > 0) {
      out += name.subarray(i, i + n).toString('utf8');
      i += n;
    } else {
      out += `\\x${name[i]!.toString(16).padStart(2, '0')}`;
      i++;
    }
  }
  return out;
}

/** The length of the well-formed UTF-8 sequence at `i`, or 0. */
function utf8SequenceLength(b: Buffer, i: number): number {
  for (const n of [1, 2, 3, 4]) {
    if (i + n > b.length) return 0;
    const part = b.subarray(i, i + n);
    if (Buffer.from(part.toString('utf8'), 'utf8').equals(part)) return n;
  }
  return 0;
}
