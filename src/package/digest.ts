import { jcsDigest } from '../model/json.js';
import { compareUtf8 } from '../model/paths.js';

/**
 * The OCTX package digest (reference §7): a deep copy of the whole manifest without
 * `release.package_digest`, `files` sorted by the UTF-8 bytes of `path`, RFC 8785 JCS, SHA-256,
 * written `sha256:<hex>`. Unknown fields of the manifest take part, as the spec requires.
 * @throws TypeError when the manifest has no `release` object or `files` array, or holds a
 *   value JCS cannot encode.
 */
export function computePackageDigest(manifest: unknown): string {
  if (typeof manifest !== 'object' || manifest === null) throw new TypeError('manifest is not an object');
  const copy = structuredClone(manifest) as Record<string, unknown>;
  const release = copy.release;
  if (typeof release !== 'object' || release === null || Array.isArray(release)) throw new TypeError('manifest.release is not an object');
  delete (release as Record<string, unknown>).package_digest;
  const files = copy.files;
  if (!Array.isArray(files)) throw new TypeError('manifest.files is not an array');
  files.sort((a: unknown, b: unknown) => compareUtf8(pathOf(a), pathOf(b)));
  return jcsDigest(copy);
}

function pathOf(entry: unknown): string {
  const p = (entry as { path?: unknown } | null)?.path;
  if (typeof p !== 'string') throw new TypeError('a files[] entry has no string path');
  return p;
}
