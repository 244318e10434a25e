/**
 * Resource limits for reading untrusted packages (OCTX-REFERENCE §16.3, `ArchiveLimits`).
 *
 * Every bound is checked before the bytes it protects are allocated or decoded, so a hostile
 * package cannot make the reader use more memory or time than these numbers allow.
 */
import { OctxError } from './errors.js';
import { suggestKey } from './option-keys.js';

/** The bounds a reader enforces. All are positive integers except the ratio (positive finite). */
export interface ArchiveLimits {
  /** ZIP entries / directory-walk entries (files and folders); also `files.length + 1`. */
  readonly maxEntries: number;
  /** Bytes of any single file (declared and actual), and of one Arrow metadata message. */
  readonly maxFileSize: number;
  /** Total uncompressed bytes of all entries. */
  readonly maxTotalUncompressed: number;
  /** Per ZIP entry `uncompressed / compressed`. */
  readonly maxCompressionRatio: number;
  /** Bytes of one JSONL line (without its line terminator). */
  readonly maxJsonlLineSize: number;
  /** Lines of one JSONL file. */
  readonly maxJsonlRecords: number;
  /** JSON nesting depth (manifest, records, vector config). */
  readonly maxJsonDepth: number;
  /** YAML frontmatter nesting depth. */
  readonly maxYamlDepth: number;
  /**
   * Bytes of one YAML frontmatter block (between its `---` fences). Not in the reference's
   * table: a YAML parser needs tens of times its input in memory, so a block above this is
   * refused (`OCTX_FRONTMATTER_TOO_LARGE`) before it is decoded or parsed.
   */
  readonly maxFrontmatterBytes: number;
  /**
   * YAML nodes of one frontmatter block, counted on the lexer's tokens as every scalar and every
   * `-`, `?`, `:`, `,`, `[`, `{` indicator (a `key: value` pair counts 3, a flow list item 2).
   * Not in the reference's table: the parsed form of a 1 MiB block of `[1,1,1,…]` (a million such
   * tokens) needed over 850 MiB, so the tokens are counted before anything is parsed or composed,
   * and a block above this is refused (`OCTX_FRONTMATTER_TOO_COMPLEX`).
   */
  readonly maxFrontmatterNodes: number;
  /**
   * UTF-16 code units of one record's embedding input rendered with the vector config's
   * `input_template` (the text whose digest `input_sha256` holds). Not in the reference's table:
   * a template of many placeholders multiplies a record's text, so rendering stops at this bound
   * (`OCTX_RESOURCE_LIMIT`, naming the record) instead of building the string.
   */
  readonly maxRenderedInputBytes: number;
  /** Largest vector width in an Arrow target. */
  readonly maxArrowDimension: number;
  /** Dictionary + record batches of one Arrow file. */
  readonly maxArrowBatches: number;
  /** Rows of one Arrow file. */
  readonly maxArrowRows: number;
  /** Rows × dimension of one Arrow file. */
  readonly maxArrowValues: number;
  /** Issues kept in a validation report (the count of dropped issues is still reported). */
  readonly maxIssues: number;
}

const MiB = 1024 * 1024;

/** The reference defaults (§16.3). Servers are advised to pass lower values. */
export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxEntries: 10_000,
  maxFileSize: 512 * MiB,
  maxTotalUncompressed: 4 * 1024 * MiB,
  maxCompressionRatio: 200,
  maxJsonlLineSize: 16 * MiB,
  maxJsonlRecords: 1_000_000,
  maxJsonDepth: 100,
  maxYamlDepth: 100,
  maxFrontmatterBytes: 1 * MiB,
  maxFrontmatterNodes: 50_000,
  maxRenderedInputBytes: 4 * MiB,
  maxArrowDimension: 65_536,
  maxArrowBatches: 100_000,
  maxArrowRows: 10_000_000,
  maxArrowValues: 100_000_000,
  maxIssues: 1_000,
});

const KNOWN_KEYS: ReadonlySet<string> = new Set(Object.keys(DEFAULT_ARCHIVE_LIMITS));

/**
 * Fills `partial` with the defaults and checks every value: positive safe integers, except
 * `maxCompressionRatio` (positive finite number). Unknown keys are refused too, so a typo such as
 * `maxEntry` cannot silently leave the default in force.
 * @throws OctxError `OCTX_OPTIONS_INVALID`
 */
export function resolveLimits(partial: Partial<ArchiveLimits> | undefined = {}): ArchiveLimits {
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'limits', message: 'limits must be an object' });
  }
  const out: Record<string, number> = { ...DEFAULT_ARCHIVE_LIMITS };
  for (const [key, value] of Object.entries(partial)) {
    if (!KNOWN_KEYS.has(key)) {
      const guess = suggestKey(key, KNOWN_KEYS);
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: `limits.${key}`, message: `unknown limit "${key}"${guess === undefined ? '' : `; did you mean "${guess}"?`}` });
    }
    if (value === undefined) continue;
    const ok =
      key === 'maxCompressionRatio' ? typeof value === 'number' && Number.isFinite(value) && value > 0 : typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
    if (!ok) {
      const want = key === 'maxCompressionRatio' ? 'a positive finite number' : 'a positive integer';
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: `limits.${key}`, message: `limit ${key} must be ${want} (got ${String(value)})` });
    }
    out[key] = value;
  }
  return Object.freeze(out) as unknown as ArchiveLimits;
}
