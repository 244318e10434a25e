import type { ResolvedExportOptions } from '../export/export-collected.js';
import { z } from 'zod';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { isUuidV7, UUID_V7_PATTERN } from '../model/ids.js';
import { isSemVer } from '../model/semver.js';
import { toOctxTime } from '../model/time.js';
import type { DerivedFrom } from '../package/manifest.js';
import type { ProgressEvent } from '../plan/report.js';
import { DEFAULT_ARCHIVE_LIMITS, resolveLimits, type ArchiveLimits } from '../model/limits.js';
import { DEFAULT_COMPRESSION_LEVEL } from '../package/compression-level.js';
import { compressionLevelSchema } from '../package/compression-level-schema.js';
import { CONSUMER_NAMES, type ConsumerName } from '../consumers/index.js';
import { unknownKeyIssues } from '../model/option-keys.js';
import type { IdLedgerStore } from '../release/ledger-store.js';

/** Options of `new PackageBuilder(options)`. */
export interface PackageBuilderOptions {
  /** The Asset: its display name and, for later releases, its stable id (minted when absent). */
  readonly asset: {
    readonly name: string;
    readonly id?: string;
    /** For a Derived Asset: the direct source release (`asset.derived_from`). */
    readonly derivedFrom?: DerivedFrom;
  };
  /** The Release. `version` defaults to `1.0.0` (or the next version from `state`). */
  readonly release?: {
    readonly version?: string;
    /** Release time; default: now (UTC, whole seconds), or the time recorded in `state` for a rebuild. */
    readonly createdAt?: Date | string;
  };
  /** Producer state file (asset id, released versions, id ledger); see `ProducerState`. */
  readonly state?: string;
  /**
   * A shared id ledger (`octx-export/distributed`'s `RedisIdLedgerStore`, or any
   * {@link IdLedgerStore}): shard builds on several machines then give one producer key one id.
   * `builder.ids` fetches from it (`await builder.ids.reserve(...)`) instead of minting locally;
   * the state file, if any, keeps the releases, and its ids are only proposals to the store.
   */
  readonly ledger?: IdLedgerStore;
  /** Where record payloads are spilled while collecting (default: the OS temp folder). */
  readonly tempDir?: string;
  /** `type` given to documents whose frontmatter has none (default `Document`). */
  readonly defaultDocumentType?: string;
  /**
   * zlib level for text entries, 0–9 (default 6; 0 stores everything). Text is compressed on the
   * thread pool while records are added, at this level; `export({ compressionLevel })` may choose
   * another one, at the cost of compressing again.
   */
  readonly compressionLevel?: number;
  /**
   * The application the package is for (default `seed`: the format's rules only). `sag-1.7`
   * checks SAG v1.7's import rules at export and leaves vectors out; see docs/consumers.md.
   * `export({ consumer })` overrides it.
   */
  readonly consumer?: ConsumerName;
  /**
   * Largest frontmatter block `addDocument` accepts, in UTF-8 bytes (default 1 MiB, the readers'
   * default `limits.maxFrontmatterBytes`). A larger block is refused with
   * `OCTX_FRONTMATTER_TOO_LARGE` before it is parsed; readers with default limits refuse it too.
   * Raising it alone is not enough: pass the same value as `export({ limits: { maxFrontmatterBytes } })`
   * (a block above the export's limit is refused by the planner with `OCTX_RESOURCE_LIMIT`, naming
   * the document), and readers need it in their `limits` to read the package.
   */
  readonly maxFrontmatterBytes?: number;
  /**
   * Most YAML nodes a frontmatter block `addDocument` accepts (default 50,000, the readers' default
   * `limits.maxFrontmatterNodes`; counted as that limit says). A block with more is refused with
   * `OCTX_FRONTMATTER_TOO_COMPLEX` before it is parsed. As with `maxFrontmatterBytes`, raising it
   * alone is not enough: the export's and the readers' `limits` must allow it too.
   */
  readonly maxFrontmatterNodes?: number;
  /**
   * Nothing may be left out and nothing may warn (default false). A record field that looks like a
   * misspelt known one (`parentId`, `sumary`) is refused at the `add*` call with
   * `OCTX_RECORD_FIELD_SUSPECT`; at export, any degradation (an omitted structure layer or vector
   * target: `result.degradations`) or warning refuses the export with `OCTX_STRICT_VIOLATION`,
   * listing them all as `issues`, and nothing is written. `export({ strict })` overrides it.
   */
  readonly strict?: boolean;
}

/** Options of `builder.export(options)`. */
export interface ExportOptions {
  /** The `.octx` file to write. */
  readonly output: string;
  /** Replace an existing file at `output` (default false: refuse with `OCTX_OUTPUT_EXISTS`). */
  readonly overwrite?: boolean;
  /** Export only the Markdown knowledge layer (no structure, no vectors). */
  readonly documentsOnly?: boolean;
  /**
   * `auto` (default): write the structure layer only when coverage is complete, else omit it and
   * report why. `require`: throw `OCTX_STRUCTURE_INCOMPLETE` instead of omitting it.
   */
  readonly structure?: 'auto' | 'require';
  /**
   * zlib level for text entries, 0–9 (default: the builder's `compressionLevel`, 6 unless set).
   * Arrow files are always stored.
   */
  readonly compressionLevel?: number;
  /** Progress and warning events. */
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Cancels the export; nothing is left at the output path. */
  readonly signal?: AbortSignal;
  /**
   * Resource limits the package must fit (default: the reference's `ArchiveLimits`, which
   * consumers enforce on open). Raise them only when every consumer is configured likewise.
   */
  readonly limits?: Partial<ArchiveLimits>;
  /**
   * How the written archive is checked before it is published. `integrity` (default) re-reads
   * every entry through the safe reader (CRC, sizes, names), re-hashes it against `files[]` and
   * recomputes the package digest, in one pass: the content itself was checked while it was
   * collected and planned. `full` also runs the whole package validator over the result (every
   * rule of the format and of each declared capability) — about twice the cost.
   */
  readonly verify?: 'full' | 'integrity';
  /**
   * The application the package is for (default: the builder's `consumer`, else `seed`). Under
   * `sag-1.7` every rule of that profile is checked before a byte is written: a record SAG would
   * refuse fails the export with `OCTX_CONSUMER_INCOMPATIBLE` naming every such record; a value
   * SAG would change is a warning. See docs/consumers.md.
   */
  readonly consumer?: ConsumerName;
  /**
   * `keep` writes complete vector targets; `omit` leaves every vector out. Default: the
   * consumer's policy (`keep` for `seed`, `omit` for `sag-1.7`, which never reads them).
   */
  readonly vectors?: 'keep' | 'omit';
  /**
   * Refuse the export with `OCTX_STRICT_VIOLATION` (nothing written, the state file untouched)
   * when it would leave out anything that was added (`result.degraded`) or report any warning;
   * the error's `issues` list them. Default: the builder's `strict`, else false.
   */
  readonly strict?: boolean;
  /**
   * A previous package of this asset (the last release, or the source of a derived asset): once
   * the new package is published it is compared with it (`diffPackages`, read with `limits`) and
   * `result.report.changes` holds the counts. A previous package that cannot be read is a warning
   * in `report.warnings`, never a failed export.
   */
  readonly previous?: string;
}

const consumerSchema = z.enum(CONSUMER_NAMES as [ConsumerName, ...ConsumerName[]], { error: `must be one of ${CONSUMER_NAMES.join(', ')}` });

const derivedFromSchema = z.strictObject({
  asset_id: z.string().regex(UUID_V7_PATTERN, { error: 'must be a canonical lowercase UUIDv7' }),
  version: z.string().refine(isSemVer, { error: 'must be SemVer 2.0.0' }),
  package_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, { error: 'must be sha256:<64 lowercase hex>' }),
});

const builderOptionsSchema = z.object({
  asset: z.object({
    name: z.string({ error: 'must be a string' }).refine((s) => s.trim().length > 0 && s.isWellFormed(), { error: 'must be a non-empty string' }),
    id: z.string().optional(),
    derivedFrom: derivedFromSchema.optional(),
  }),
  release: z
    .object({
      version: z.string({ error: 'must be a string' }).optional(),
      createdAt: z.union([z.date(), z.string()], { error: 'must be a Date or an OCTX UTC time string' }).optional(),
    })
    .optional(),
  state: z.string().min(1).optional(),
  ledger: z
    .custom<IdLedgerStore>((v) => typeof v === 'object' && v !== null && typeof (v as IdLedgerStore).claim === 'function' && typeof (v as IdLedgerStore).description === 'string', {
      error: 'must be an IdLedgerStore ({ description, claim(kind, keys, proposals) })',
    })
    .optional(),
  tempDir: z.string().min(1).optional(),
  defaultDocumentType: z
    .string()
    .refine((s) => s.trim().length > 0, { error: 'must be non-empty' })
    .optional(),
  compressionLevel: compressionLevelSchema.optional(),
  consumer: consumerSchema.optional(),
  maxFrontmatterBytes: z.number().int().positive().optional(),
  maxFrontmatterNodes: z.number().int().positive().optional(),
  strict: z.boolean({ error: 'must be true or false' }).optional(),
});

const exportOptionsSchema = z.object({
  output: z.string({ error: 'must be a file path' }).min(1, { error: 'must be a file path' }),
  overwrite: z.boolean().optional(),
  documentsOnly: z.boolean().optional(),
  structure: z.enum(['auto', 'require']).optional(),
  compressionLevel: compressionLevelSchema.optional(),
  onProgress: z.function().optional(),
  signal: z
    .custom<AbortSignal>((v) => v instanceof AbortSignal || (typeof v === 'object' && v !== null && 'aborted' in v && 'addEventListener' in v), { error: 'must be an AbortSignal' })
    .optional(),
  limits: z.record(z.string(), z.number()).optional(),
  verify: z.enum(['full', 'integrity']).optional(),
  consumer: consumerSchema.optional(),
  vectors: z.enum(['keep', 'omit']).optional(),
  strict: z.boolean({ error: 'must be true or false' }).optional(),
  previous: z.string({ error: 'must be a package path' }).min(1, { error: 'must be a package path' }).optional(),
});

/**
 * Option keys that other parts of the SDK handle before or after these schemas (listed so a
 * known key is never refused as a misspelling): `strict` is checked by the export's strict mode.
 */
const HANDLED_ELSEWHERE = ['strict'] as const;

/** Every key `new PackageBuilder(options)` accepts, per nesting level. */
export const BUILDER_OPTION_KEYS: readonly string[] = [...Object.keys(builderOptionsSchema.shape), ...HANDLED_ELSEWHERE];
const ASSET_KEYS = Object.keys(builderOptionsSchema.shape.asset.shape);
const RELEASE_KEYS = ['version', 'createdAt'];
/** Every key `builder.export(options)` accepts. */
export const EXPORT_OPTION_KEYS: readonly string[] = [...Object.keys(exportOptionsSchema.shape), ...HANDLED_ELSEWHERE];

/** Unknown keys of builder options (top level, `asset`, `release`). */
export function builderOptionKeyIssues(input: unknown, extraKeys: readonly string[] = []): OctxIssue[] {
  if (input === null || typeof input !== 'object') return [];
  const o = input as Record<string, unknown>;
  return [
    ...unknownKeyIssues(o, [...BUILDER_OPTION_KEYS, ...extraKeys]),
    ...unknownKeyIssues(o.asset, ASSET_KEYS, 'asset'),
    ...unknownKeyIssues(o.release, RELEASE_KEYS, 'release'),
  ];
}

function zodIssues(error: z.ZodError, prefix: string): OctxIssue[] {
  return error.issues.map((zi) => {
    const field = [prefix, ...zi.path.map(String)].filter(Boolean).join('.');
    return issue({ code: 'OCTX_OPTIONS_INVALID', field, message: `${field} ${zi.message}` });
  });
}

/** Builder options after validation, with defaults that do not depend on state. */
export interface ResolvedBuilderOptions {
  readonly assetName: string;
  readonly assetId?: string;
  readonly derivedFrom?: DerivedFrom;
  readonly version?: string;
  readonly createdAt?: string;
  readonly state?: string;
  readonly ledger?: IdLedgerStore;
  readonly tempDir?: string;
  readonly defaultDocumentType?: string;
  readonly compressionLevel: number;
  readonly consumer?: ConsumerName;
  readonly maxFrontmatterBytes: number;
  readonly maxFrontmatterNodes: number;
  readonly strict: boolean;
}

/**
 * Validates builder options at the API boundary (zod), then the OCTX formats.
 * @throws OctxError `OCTX_OPTIONS_INVALID`, `OCTX_ID_INVALID`, `OCTX_VERSION_INVALID`,
 *   `OCTX_RELEASE_CREATED_AT_INVALID` or `OCTX_ASSET_INVALID`.
 */
export function resolveBuilderOptions(input: unknown): ResolvedBuilderOptions {
  const unknown = builderOptionKeyIssues(input);
  if (unknown.length > 0) throw OctxError.aggregate('OCTX_OPTIONS_INVALID', 'PackageBuilder options are invalid:', unknown);
  const parsed = builderOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error, '');
    throw OctxError.aggregate('OCTX_OPTIONS_INVALID', 'PackageBuilder options are invalid:', issues);
  }
  const o = parsed.data;
  if (o.asset.id !== undefined && !isUuidV7(o.asset.id)) {
    throw OctxError.of({
      code: 'OCTX_ID_INVALID',
      field: 'asset.id',
      recordId: o.asset.id,
      message: `asset.id must be a canonical lowercase UUIDv7 (got ${JSON.stringify(o.asset.id)})`,
    });
  }
  if (o.asset.derivedFrom && o.asset.id !== undefined && o.asset.derivedFrom.asset_id === o.asset.id) {
    throw OctxError.of({ code: 'OCTX_ASSET_INVALID', field: 'asset.derivedFrom.asset_id', message: 'a Derived Asset needs its own asset id, different from its source' });
  }
  if (o.release?.version !== undefined && !isSemVer(o.release.version)) {
    throw OctxError.of({
      code: 'OCTX_VERSION_INVALID',
      field: 'release.version',
      message: `release.version must be SemVer 2.0.0 without a "v" prefix, like 1.0.0 or 1.1.0-rc.1 (got ${JSON.stringify(o.release.version)})`,
    });
  }
  let createdAt: string | undefined;
  if (o.release?.createdAt !== undefined) {
    createdAt = toOctxTime(o.release.createdAt);
    if (createdAt === undefined) {
      throw OctxError.of({
        code: 'OCTX_RELEASE_CREATED_AT_INVALID',
        field: 'release.createdAt',
        message: `release.createdAt must be a valid Date or a UTC time like 2026-07-12T10:00:00Z (got ${JSON.stringify(o.release.createdAt)})`,
      });
    }
  }
  return {
    assetName: o.asset.name,
    ...(o.asset.id !== undefined ? { assetId: o.asset.id } : {}),
    ...(o.asset.derivedFrom ? { derivedFrom: o.asset.derivedFrom } : {}),
    ...(o.release?.version !== undefined ? { version: o.release.version } : {}),
    ...(createdAt !== undefined ? { createdAt } : {}),
    ...(o.state !== undefined ? { state: o.state } : {}),
    ...(o.ledger !== undefined ? { ledger: o.ledger } : {}),
    ...(o.tempDir !== undefined ? { tempDir: o.tempDir } : {}),
    ...(o.defaultDocumentType !== undefined ? { defaultDocumentType: o.defaultDocumentType } : {}),
    compressionLevel: o.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL,
    ...(o.consumer !== undefined ? { consumer: o.consumer } : {}),
    maxFrontmatterBytes: o.maxFrontmatterBytes ?? DEFAULT_ARCHIVE_LIMITS.maxFrontmatterBytes,
    maxFrontmatterNodes: o.maxFrontmatterNodes ?? DEFAULT_ARCHIVE_LIMITS.maxFrontmatterNodes,
    strict: o.strict ?? false,
  };
}

export type { ResolvedExportOptions };

/**
 * Validates export options (zod) and applies defaults.
 * @throws OctxError `OCTX_OPTIONS_INVALID`
 */
export function resolveExportOptions(input: unknown): ResolvedExportOptions {
  const unknown = unknownKeyIssues(input, EXPORT_OPTION_KEYS);
  if (unknown.length > 0) throw OctxError.aggregate('OCTX_OPTIONS_INVALID', 'export options are invalid:', unknown);
  const parsed = exportOptionsSchema.safeParse(input);
  if (!parsed.success) throw OctxError.aggregate('OCTX_OPTIONS_INVALID', 'export options are invalid:', zodIssues(parsed.error, ''));
  const o = parsed.data;
  return {
    output: o.output,
    overwrite: o.overwrite ?? false,
    documentsOnly: o.documentsOnly ?? false,
    structure: o.structure ?? 'auto',
    ...(o.compressionLevel !== undefined ? { compressionLevel: o.compressionLevel } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress as (event: ProgressEvent) => void } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    limits: resolveLimits(o.limits),
    verify: o.verify ?? 'integrity',
    ...(o.limits ? { customLimits: o.limits } : {}),
    ...(o.consumer !== undefined ? { consumer: o.consumer } : {}),
    ...(o.vectors !== undefined ? { vectors: o.vectors } : {}),
    ...(o.strict !== undefined ? { strict: o.strict } : {}),
  };
}
