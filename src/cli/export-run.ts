/**
 * What every exporting command shares: the export options, building the PackageBuilder from
 * them, running the export with progress and warnings, and printing the result.
 */
import type { ExportResult, PackageBuilder } from '../builder/package-builder.js';
import type { PackageBuilderOptions } from '../builder/options.js';
import type { CommandContext, OptionSpec, OptionValues } from './args.js';
import { flag, str, usageError } from './args.js';
import { inCliTerms } from './cli-terms.js';
import { formatIssueLine } from './errors.js';
import { prepareOutputTarget, writesToStdout, writeThroughTarget } from './output-target.js';
import { formatBytes } from '../terminal/format-bytes.js';
import { terminalProgress, type TerminalProgress } from '../terminal/progress.js';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { isUuidV7, newId } from '../model/ids.js';
import type { ArchiveLimits } from '../model/limits.js';
import { cliLimits, EXPORT_LIMIT_OPTIONS } from './limits-options.js';
import { degradationName, type Degradation, type StructureCounts } from '../plan/report.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, recordFileStem, type RecordKindSpec } from '../model/record-kinds.js';
import { consumerOption } from './commands/validate.js';
import { CONSUMER_NAMES } from '../consumers/index.js';
import { MAX_COMPRESSION_LEVEL, MIN_COMPRESSION_LEVEL, isCompressionLevel } from '../package/compression-level.js';

/** Options of `build`, `derive` and the adapter commands. */
export const EXPORT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  output: { type: 'string', short: 'o', value: '<file.octx>', description: 'the package to write; - writes it to stdout (after it is verified)', required: true },
  mkdir: { type: 'boolean', description: 'create the missing parent folders of -o (without it they are an error)' },
  name: { type: 'string', value: '<asset name>', description: 'display name of the asset', required: true },
  version: { type: 'string', value: '<x.y.z>', description: 'release version (default 1.0.0, or the next patch with --state)' },
  state: { type: 'string', value: '<file>', description: 'producer state file: keeps the asset id, released versions and record ids stable across runs' },
  'asset-id': {
    type: 'string',
    value: '<uuidv7>',
    description: 'the asset id (a UUIDv7) to keep across builds; without it or --state every build mints a new asset id (a warning)',
  },
  'created-at': { type: 'string', value: '<time>', description: 'release time, UTC (e.g. 2026-07-12T10:00:00Z); default now, or the recorded time of a rebuild' },
  'documents-only': { type: 'boolean', description: 'export only the Markdown knowledge layer' },
  'require-structure': { type: 'boolean', description: 'fail (exit 1) instead of omitting an incomplete structure layer' },
  overwrite: { type: 'boolean', description: 'replace an existing output file' },
  strict: {
    type: 'boolean',
    description: 'fail (exit 1, nothing written) when anything added would be left out (an incomplete structure layer, a vector target) or any warning is reported',
  },
  ...EXPORT_LIMIT_OPTIONS,
  'compression-level': { type: 'string', value: '<0-9>', description: 'zlib level for text entries (default 6; 0 stores everything)' },
  consumer: {
    type: 'string',
    value: '<name>',
    description: `the application the package is for: ${CONSUMER_NAMES.join(', ')} (default seed); sag-1.7 checks its import rules first and leaves vectors out (docs/consumers.md)`,
  },
};

/**
 * Builder options from the command line. Under `--strict`, a build without `--state` or
 * `--asset-id` is refused here, before anything is read: it would mint a new asset id. `limits`
 * (from {@link cliLimits}) gives the builder its `maxFrontmatterBytes`: `addDocument` refuses a
 * larger block itself, so a raised `--limits` value must reach it, not only the export.
 * @throws OctxError `OCTX_USAGE_ERROR`, `OCTX_STRICT_VIOLATION`
 */
export function builderOptions(values: OptionValues, limits?: Partial<ArchiveLimits>): PackageBuilderOptions {
  const version = str(values, 'version');
  const createdAt = str(values, 'created-at');
  const state = str(values, 'state');
  const level = compressionLevel(values);
  const consumer = consumerOption(str(values, 'consumer'));
  const assetId = str(values, 'asset-id');
  if (assetId !== undefined && !isUuidV7(assetId)) {
    throw usageError(`--asset-id must be a canonical lower-case UUIDv7, e.g. ${newId()} (got ${JSON.stringify(assetId)})`, 'asset-id');
  }
  const strict = flag(values, 'strict');
  const identity = identityWarning(values);
  if (strict && identity) {
    const headline = '--strict: the build would mint a new asset id; nothing was read or written';
    throw OctxError.aggregate('OCTX_STRICT_VIOLATION', `${headline}:`, [issue({ code: 'OCTX_STRICT_VIOLATION', message: headline }), { ...identity, severity: 'error' }]);
  }
  return {
    asset: { name: str(values, 'name')!, ...(assetId !== undefined ? { id: assetId } : {}) },
    release: { ...(version !== undefined ? { version } : {}), ...(createdAt !== undefined ? { createdAt } : {}) },
    ...(state !== undefined ? { state } : {}),
    ...(level !== undefined ? { compressionLevel: level } : {}),
    ...(consumer !== undefined ? { consumer } : {}),
    ...(strict ? { strict } : {}),
    ...(limits?.maxFrontmatterBytes !== undefined ? { maxFrontmatterBytes: limits.maxFrontmatterBytes } : {}),
    ...(limits?.maxFrontmatterNodes !== undefined ? { maxFrontmatterNodes: limits.maxFrontmatterNodes } : {}),
  };
}

/** `OCTX_ASSET_ID_EPHEMERAL` when neither `--state` nor `--asset-id` fixes the asset id. */
function identityWarning(values: OptionValues, assetId?: string): OctxIssue | undefined {
  if (str(values, 'state') !== undefined || str(values, 'asset-id') !== undefined) return undefined;
  // After a build the advice names the id this package got, so the next build can keep it.
  const advice = assetId !== undefined ? `pass --asset-id ${assetId} (this package's id) to the next builds` : 'pass --asset-id <uuidv7>';
  return issue({
    code: 'OCTX_ASSET_ID_EPHEMERAL',
    severity: 'warning',
    field: 'asset-id',
    message: `neither --state nor --asset-id was given, so this build mints a new asset id and consumers see every build as a different asset; ${advice} or --state <file>`,
  });
}

/** `loadWorkdir` options from the command line (the limits, checked on the folder's listing first). */
export async function workdirOptions(values: OptionValues): Promise<{ limits?: Partial<ArchiveLimits> }> {
  const limits = await cliLimits(values);
  return limits ? { limits } : {};
}

/** `--compression-level`: an integer 0–9, given to the builder so text is compressed at it while collected. */
function compressionLevel(values: OptionValues): number | undefined {
  const raw = str(values, 'compression-level');
  if (raw === undefined) return undefined;
  // One digit, as the help shows it (`06` is refused, not read as 6).
  const level = /^[0-9]$/.test(raw) ? Number(raw) : Number.NaN;
  if (!isCompressionLevel(level)) {
    throw usageError(`--compression-level must be an integer from ${MIN_COMPRESSION_LEVEL} to ${MAX_COMPRESSION_LEVEL} (got ${JSON.stringify(raw)})`, 'compression-level');
  }
  return level;
}

/** Checks option combinations shared by the exporting commands. */
export function checkExportFlags(values: OptionValues): void {
  if (flag(values, 'documents-only') && flag(values, 'require-structure')) throw usageError('--documents-only and --require-structure exclude each other', 'documents-only');
}

/** The CLI's progress callback: the progress line on a terminal, warnings on stderr (not with `--json`: they are in the report). */
export type CliProgress = TerminalProgress;

/** A progress callback for a command (one per run, shared by loading and exporting). */
export function cliProgress(ctx: CommandContext): CliProgress {
  const line = terminalProgress({ stream: ctx.io.stderr, warnings: false });
  const handler = ((e) => {
    if (e.phase === 'warning') {
      if (!ctx.json) {
        line.done();
        ctx.io.stderr.write(`${formatIssueLine(e.issue, 'warning')}\n`);
      }
      return;
    }
    line(e);
  }) as CliProgress;
  handler.done = () => line.done();
  return handler;
}

/**
 * Exports with progress on a terminal and warnings on stderr (not with `--json`: they are in the
 * report). The builder is disposed on failure. With `-o -` the verified package is then copied
 * to stdout, and the result's `output` is `-`. Then the degradation notice when something added
 * was left out; the warning that the asset id is minted joins the report's warnings.
 */
export async function runExport(
  builder: PackageBuilder,
  ctx: CommandContext,
  overrides: { documentsOnly?: boolean; progress?: CliProgress; previous?: string } = {},
): Promise<ExportResult> {
  const progress = overrides.progress ?? cliProgress(ctx);
  let target;
  let limits;
  try {
    limits = await cliLimits(ctx.values);
    target = await prepareOutputTarget(ctx.values, ctx.json, ctx.io);
  } catch (e) {
    await builder.dispose();
    throw e;
  }
  const result = await writeThroughTarget(target, ctx.io, progress, (output) =>
    builder.export({
      output,
      overwrite: flag(ctx.values, 'overwrite'),
      documentsOnly: overrides.documentsOnly ?? flag(ctx.values, 'documents-only'),
      structure: flag(ctx.values, 'require-structure') ? 'require' : 'auto',
      ...(limits ? { limits } : {}),
      onProgress: progress,
      ...(overrides.previous !== undefined ? { previous: overrides.previous } : {}),
    }),
  );
  // Only once a package exists: on a failed export it would be noise above the error.
  const identity = identityWarning(ctx.values, result.assetId);
  if (identity && !ctx.json) ctx.io.stderr.write(`${formatIssueLine(identity, 'warning')}\n`);
  if (result.degraded && !ctx.json) ctx.io.stderr.write(degradationNotice(result.degradations));
  return identity ? { ...result, report: { ...result.report, warnings: [identity, ...result.report.warnings] } } : result;
}

/**
 * The stderr notice of a degraded package: what was left out, how many records cause it, the
 * first of them, and the flag that makes it fatal.
 */
export function degradationNotice(degradations: readonly Degradation[]): string {
  const lines = ['notice: the package was written WITHOUT part of what was added (degraded):'];
  for (const d of degradations) {
    lines.push(`  - ${d.message} [${d.code}]`);
    if (d.orphans > 0) {
      const first = d.sample.map((s) => `${s.id}${s.path !== undefined ? ` (${s.path})` : ''} ${s.problem}`);
      lines.push(`      ${d.orphans} record(s) cause it; first: ${first.join('; ')}${d.orphans > d.sample.length ? '; …' : ''}`);
    }
  }
  lines.push('  pass --strict to make this an error (exit 1, nothing written); the JSON report (--json) lists every record in report.structure.coverage and report.vectors');
  return `${lines.join('\n')}\n`;
}

/**
 * Every kind of the table with its count: `3 chunks, 2 events, 4 entities, 3 chunk-event and 4
 * event-entity links` (records by their file's name, relations by their kind).
 */
function writtenRecords(counts: StructureCounts): string {
  const records: string[] = [];
  const links: string[] = [];
  for (const kind of RECORD_KIND_ORDER) {
    const row: RecordKindSpec = RECORD_KINDS[kind];
    const n = counts[row.countKey as keyof StructureCounts];
    if (row.role === 'relation') links.push(`${n} ${kind}`);
    else records.push(`${n} ${recordFileStem(kind)}`);
  }
  const linked = links.length > 1 ? `${links.slice(0, -1).join(', ')} and ${links.at(-1)!}` : links.join('');
  return [...records, ...(links.length > 0 ? [`${linked} links`] : [])].join(', ');
}

/** Human summary lines of an export. */
export function exportSummary(result: ExportResult): string[] {
  const { report, manifest } = result;
  const caps = Object.entries(manifest.capabilities ?? {}).map(([name, d]) => `${name}/${(d as { version?: string }).version ?? '?'}`);
  const c = report.structure.counts;
  const lines = [
    `wrote ${result.output === '-' ? 'the package to stdout' : result.output} (${formatBytes(report.archive.size)})`,
    `  asset         ${result.assetId} "${manifest.asset.name}"${manifest.asset.derived_from ? ` (derived from ${manifest.asset.derived_from.asset_id} ${manifest.asset.derived_from.version})` : ''}`,
    `  release       ${result.version} (${manifest.release.created_at})`,
    `  digest        ${result.packageDigest}`,
    `  capabilities  ${caps.length > 0 ? caps.join(', ') : 'none — documents only'}`,
    `  documents     ${report.documents.concepts} concept(s), ${report.documents.reserved} reserved`,
  ];
  const s = report.structure;
  if (s.status === 'written') lines.push(`  structure     written: ${writtenRecords(c)}`);
  else lines.push(`  structure     ${s.status}: ${s.reason}`);
  const targets = Object.entries(report.vectors.targets).flatMap(([name, t]) =>
    t.status === 'written' ? [`${name} written (${t.rows} rows)`] : t.status === 'omitted' ? [`${name} omitted (${t.reason})`] : [],
  );
  lines.push(`  vectors       ${targets.length > 0 ? targets.join(', ') : 'none'}`);
  if (report.vectors.reason !== undefined) lines.push(`                ${report.vectors.reason}`);
  const extensions = manifest.files.filter((f) => f.path.startsWith('extensions/')).map((f) => f.path);
  if (extensions.length > 0) lines.push(`  extensions    ${extensions.join(', ')}`);
  if (result.degraded) lines.push(`  degraded      yes: ${result.degradations.map(degradationName).join(', ')} left out (see the notice on stderr)`);
  return lines;
}

/** The JSON document of an export. */
export function exportJson(command: string, result: ExportResult, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ok: true,
    command,
    output: result.output,
    assetId: result.assetId,
    version: result.version,
    packageDigest: result.packageDigest,
    capabilities: result.manifest.capabilities ?? {},
    degraded: result.degraded,
    degradations: result.degradations,
    ...extra,
    report: result.report,
    manifest: result.manifest,
  };
}

/** Prints either the JSON document or the human lines (on stderr when stdout carries the package). */
export function printOutcome(ctx: CommandContext, json: Record<string, unknown>, lines: readonly string[]): void {
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else (writesToStdout(ctx.values) ? ctx.io.stderr : ctx.io.stdout).write(`${lines.map(inCliTerms).join('\n')}\n`);
}
