/**
 * `--max-entries <n>` and `--limits <file.json>`: the resource limits of the commands that write
 * a package (build, derive, from-*) and of those that read one (validate, inspect) — a package
 * built with raised limits is read back with the same flags.
 */
import type { OptionSpec, OptionValues } from './args.js';
import { str, usageError } from './args.js';
import { OctxError } from '../model/errors.js';
import { DEFAULT_ARCHIVE_LIMITS, resolveLimits, type ArchiveLimits } from '../model/limits.js';
import { parseStrictJson } from '../read/strict-json.js';
import { readRegularFile } from '../package/regular-file.js';
import { fsReason } from '../model/fs-errors.js';

/** The limit options of the exporting commands. */
export const EXPORT_LIMIT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'max-entries': { type: 'string', value: '<n>', description: 'raise the entries limit (default 10000 files in the package) when every consumer accepts more' },
  limits: { type: 'string', value: '<file.json>', description: 'resource limits as a JSON object, e.g. {"maxEntries": 50000} (keys as in ArchiveLimits; docs/cli.md)' },
};

/** The limit options of the reading commands (validate, inspect). */
export const READ_LIMIT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'max-entries': { type: 'string', value: '<n>', description: 'the entries limit to read with (default 10000): pass what the package was built with' },
  limits: { type: 'string', value: '<file.json>', description: 'resource limits to read with, as a JSON object (the file the package was built with; keys as in ArchiveLimits)' },
};

/** Every limit a `--limits` file may set. */
const LIMIT_NAMES = Object.keys(DEFAULT_ARCHIVE_LIMITS).join(', ');

/** Limits already read for a command line: the builder, the folder loader and the export all ask. */
const readLimits = new WeakMap<OptionValues, Promise<Partial<ArchiveLimits> | undefined>>();

/**
 * The resource limits from `--limits <file.json>` and `--max-entries <n>` (which wins), or
 * undefined for the defaults. The file is read once per command line, however often it is asked.
 * @throws OctxError `OCTX_USAGE_ERROR`
 */
export function cliLimits(values: OptionValues): Promise<Partial<ArchiveLimits> | undefined> {
  let limits = readLimits.get(values);
  if (limits === undefined) {
    limits = readCliLimits(values);
    readLimits.set(values, limits);
  }
  return limits;
}

async function readCliLimits(values: OptionValues): Promise<Partial<ArchiveLimits> | undefined> {
  let limits: Record<string, unknown> | undefined;
  const file = str(values, 'limits');
  if (file !== undefined) {
    let text: string;
    try {
      // Not readFile: a FIFO given as --limits would wait for a writer for ever.
      text = await readRegularFile(file);
    } catch (e) {
      throw usageError(`--limits: cannot read ${file}: ${fsReason(e, file)}`, 'limits');
    }
    const parsed = parseStrictJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
      throw usageError(`--limits ${file} must hold one JSON object such as {"maxEntries": 50000}${parsed.ok ? '' : ` (${parsed.message})`}`, 'limits');
    }
    limits = { ...(parsed.value as Record<string, unknown>) };
  }
  const maxEntries = str(values, 'max-entries');
  if (maxEntries !== undefined) {
    if (!/^[1-9][0-9]{0,14}$/.test(maxEntries)) throw usageError(`--max-entries must be a positive integer (got ${JSON.stringify(maxEntries)})`, 'max-entries');
    limits = { ...limits, maxEntries: Number(maxEntries) };
  }
  if (limits === undefined) return undefined;
  try {
    // Checked here, so that a typo in the file is a usage error before anything is read.
    resolveLimits(limits);
  } catch (e) {
    if (e instanceof OctxError) throw usageError(`--limits ${file ?? ''}: ${e.issues[0]!.message}; known limits: ${LIMIT_NAMES}`, 'limits');
    throw e;
  }
  return limits;
}
