/**
 * Logical path rules of OCTX (reference §2–§3): NFC, relative POSIX, no empty/`.`/`..`
 * segments, no backslash, NUL or drive prefix, and only the payload paths the format allows.
 */
import { RECORD_KINDS, type RecordKind, type VectorTarget } from './record-kinds.js';

/** The five files of `sag-structured/0.1`, in the order the spec lists them (from `RECORD_KINDS` in `model/record-kinds.ts`). */
export const STRUCTURE_PATHS = [
  RECORD_KINDS.chunk.path,
  RECORD_KINDS.event.path,
  RECORD_KINDS.entity.path,
  RECORD_KINDS['chunk-event'].path,
  RECORD_KINDS['event-entity'].path,
] as const;

// Compile-time check that the tuple names every kind's file: a kind added to RECORD_KINDS and not
// here makes `MissingStructurePath` non-empty and this line a type error.
type MissingStructurePath = Exclude<(typeof RECORD_KINDS)[RecordKind]['path'], (typeof STRUCTURE_PATHS)[number]>;
const structurePathsComplete: [MissingStructurePath] extends [never] ? true : never = true;
void structurePathsComplete;

/** The files of `vectors/0.1`. */
export const VECTOR_CONFIG_PATH = 'vectors/config.json';
/** Standard vector target files, keyed by target. */
export const VECTOR_TARGET_PATHS = {
  chunks: 'vectors/chunks.arrow',
  events: 'vectors/events.arrow',
  entities: 'vectors/entities.arrow',
} as const satisfies Readonly<Record<VectorTarget, string>>;

const STANDARD_PATHS: ReadonlySet<string> = new Set<string>([...STRUCTURE_PATHS, VECTOR_CONFIG_PATH, ...Object.values(VECTOR_TARGET_PATHS)]);

/** `extensions/<lower-case reverse-DNS>/<major.minor>/…` exactly as the reference accepts it. */
export const EXTENSION_PATH_PATTERN = /^extensions\/(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\/(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\/.+/;

/** A reverse-DNS extension namespace such as `com.example.pipeline`. */
export const EXTENSION_NAMESPACE_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** Reserved OKF file names: never Concept Documents, at any depth. */
export const RESERVED_DOCUMENT_NAMES: ReadonlySet<string> = new Set(['index.md', 'log.md']);

/**
 * Why `path` is not a safe logical path, or `undefined` when it is one. Does not normalise:
 * a path that changes under NFC is refused.
 */
export function logicalPathProblem(path: string): string | undefined {
  if (typeof path !== 'string' || path.length === 0) return 'path is empty';
  if (path.includes('\0')) return 'path contains NUL';
  if (path.includes('\\')) return 'path contains a backslash';
  if (path.startsWith('/')) return 'path is absolute';
  if (/^[A-Za-z]:/.test(path)) return 'path starts with a drive prefix';
  if (!path.isWellFormed()) return 'path contains a lone UTF-16 surrogate';
  if (path.normalize('NFC') !== path) return 'path is not Unicode NFC';
  for (const seg of path.split('/')) {
    if (seg === '') return 'path has an empty segment';
    if (seg === '.' || seg === '..') return `path has a "${seg}" segment`;
  }
  return undefined;
}

/** A ZIP entry name is at most 65,535 bytes (a 16-bit length field). */
export const MAX_ENTRY_NAME_BYTES = 0xffff;

/**
 * Why a package path cannot be written as a ZIP entry name, or `undefined`. Checked by the
 * producer when a file is added (readers need not apply it: a ZIP cannot carry such a name).
 */
export function entryNameProblem(packagePath: string): string | undefined {
  const bytes = Buffer.byteLength(packagePath, 'utf8');
  return bytes > MAX_ENTRY_NAME_BYTES ? `path is ${bytes} bytes of UTF-8; a ZIP entry name holds at most ${MAX_ENTRY_NAME_BYTES}` : undefined;
}

/** What a payload path is, or `undefined` when OCTX does not allow it as a listed payload. */
export type PayloadKind = 'knowledge' | 'structure' | 'vectors' | 'extension';

/** Classifies a (safe) logical path as a payload kind. */
export function payloadKind(path: string): PayloadKind | undefined {
  if (path.startsWith('knowledge/') && path.endsWith('.md') && path.length > 'knowledge/.md'.length) return 'knowledge';
  if ((STRUCTURE_PATHS as readonly string[]).includes(path)) return 'structure';
  if (STANDARD_PATHS.has(path)) return 'vectors';
  if (EXTENSION_PATH_PATTERN.test(path)) return 'extension';
  return undefined;
}

/** The file name (last segment) of a logical path. */
export function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

/** True for `knowledge/**.md` whose name is not `index.md`/`log.md`. */
export function isConceptPath(path: string): boolean {
  return payloadKind(path) === 'knowledge' && !RESERVED_DOCUMENT_NAMES.has(baseName(path));
}

/**
 * Orders strings by their UTF-8 bytes (= Unicode code point order), as the package digest
 * requires. JavaScript's default sort compares UTF-16 code units and differs for astral
 * characters versus U+E000–U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
