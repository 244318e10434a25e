/**
 * `octx-export diff`: what changed between two packages, as a readable summary or the JSON of
 * `diffPackages`, with `git diff --exit-code` semantics on request.
 */
import { diffKey, type DocumentChanges, type IdSamples, type LinkPair, type PackageDiff, type RecordChangeCounts } from '../../read/diff/diff-result.js';
import { RECORD_KIND_ORDER, recordFileStem } from '../../model/record-kinds.js';
import { VECTOR_TARGETS } from '../../vectors/targets.js';
import type { Command } from '../args.js';
import { flag, str, usageError } from '../args.js';
import { EXIT_FAILED, EXIT_OK, reportError } from '../errors.js';
import { requirePackagePath } from '../fs-checks.js';
import { cliLimits, READ_LIMIT_OPTIONS } from '../limits-options.js';
import { terminalProgress } from '../../terminal/progress.js';
import { formatBytes } from '../../terminal/format-bytes.js';

/** Documents listed per category in the text summary (the JSON lists them all). */
const SHOWN = 10;

const counts = (c: RecordChangeCounts): string => `+${c.added} -${c.removed} ~${c.changed} (${c.unchanged} unchanged)`;

/** `first: + a, b; - c; ~ d` for the sample ids of a category (nothing when none changed). */
function firstIds(
  s: IdSamples | { added: readonly LinkPair[]; removed: readonly LinkPair[]; changed: readonly LinkPair[] },
  extra: readonly [string, readonly string[]][] = [],
): string {
  const name = (x: string | LinkPair): string => (typeof x === 'string' ? x : `${x[0]}→${x[1]}`);
  const parts = ([['+', s.added], ['-', s.removed], ['~', s.changed], ...extra] as [string, readonly (string | LinkPair)[]][])
    .filter(([, ids]) => ids.length > 0)
    .map(([sign, ids]) => `${sign} ${ids.map(name).join(', ')}`);
  return parts.length > 0 ? `\n${INDENT}first: ${parts.join('; ')}` : '';
}

function documentLines(d: DocumentChanges): string[] {
  const lines = [row('documents', `+${d.added.length} -${d.removed.length} ~${d.changed.length} →${d.moved.length} (${d.unchanged} unchanged)`)];
  const list = <T>(sign: string, items: readonly T[], show: (x: T) => string): void => {
    for (const x of items.slice(0, SHOWN)) lines.push(`${INDENT}${sign} ${show(x)}`);
    if (items.length > SHOWN) lines.push(`${INDENT}${sign} … and ${items.length - SHOWN} more (--json lists them all)`);
  };
  const ref = (x: { id: string | null; path: string }): string => `${x.path}${x.id !== null ? ` (${x.id})` : ''}`;
  list('+', d.added, ref);
  list('-', d.removed, ref);
  list('~', d.changed, ref);
  list('→', d.moved, (m) => `${m.from} → ${m.to} (${m.id})`);
  return lines;
}

/** One summary line: the label in a column wide enough for `event-entities`. */
const row = (label: string, text: string): string => `  ${label.padEnd(15)} ${text}`;
/** Continuation lines line up under the text. */
const INDENT = ' '.repeat(18);

/** The human summary of a diff. */
export function diffLines(r: PackageDiff): string[] {
  const side = (s: PackageDiff['old']): string => `${s.assetId ?? '?'} "${s.assetName ?? '?'}" ${s.version ?? '?'} (${formatBytes(s.size)}, ${s.packageDigest ?? '?'})`;
  const lines = [`diff ${r.old.path} → ${r.new.path}`, row('old', side(r.old)), row('new', side(r.new)), row('relation', r.relation), ...documentLines(r.documents)];
  const e = r.extensions;
  if (e.added.length + e.removed.length + e.changed.length > 0) {
    lines.push(row('extensions', [...e.added.map((p) => `+ ${p}`), ...e.removed.map((p) => `- ${p}`), ...e.changed.map((p) => `~ ${p}`)].join(', ')));
  }
  const s = r.samples;
  // One line per kind of the table, named by its file (`chunk-events`).
  for (const kind of RECORD_KIND_ORDER) lines.push(row(recordFileStem(kind), counts(r.records[diffKey(kind)]) + firstIds(s[diffKey(kind)])));
  for (const t of VECTOR_TARGETS) {
    const v = r.vectors[t];
    if (v.added + v.removed + v.changed + v.unchanged === 0 && !v.configChanged) continue;
    const notes = [v.stale > 0 ? `${v.stale} stale: record changed, vector did not` : '', v.configChanged ? 'config changed' : ''].filter(Boolean);
    lines.push(row(`vectors ${t}`, `${counts(v)}${notes.length > 0 ? ` [${notes.join('; ')}]` : ''}${firstIds(s.vectors[t], [['stale', s.vectors[t].stale]])}`));
  }
  const c = r.capabilities;
  if (c.added.length + c.removed.length > 0) lines.push(row('capabilities', [...c.added.map((n) => `+${n}`), ...c.removed.map((n) => `-${n}`)].join(' ')));
  lines.push(row('result', r.hasChanges ? 'changed' : 'no changes'));
  return lines;
}

/** `octx-export diff <old.octx> <new.octx>`: the summary, `--json` (the `diffPackages` result), `--exit-code`. */
export const diffCommand: Command = {
  name: 'diff',
  summary: 'show what changed between two packages (two releases, or a derived asset and its source)',
  description: [
    'Compares by identity: documents by octx.document_id (a renamed file is moved), records by id,',
    'links by their id pair, vector rows by record id. A record is changed when its canonical JSON',
    'differs; a vector row when its values or input_sha256 differ; a stale vector is an unchanged row',
    'of a changed record. Streams both packages (bounded memory). Exit codes as git diff: 0 (with',
    '--exit-code: 0 only when nothing changed, 1 when anything did), 2 when a package cannot be read',
    '(or holds an id twice) and for usage errors: a script can tell "changed" from "trouble".',
  ].join('\n'),
  positionals: [
    { name: 'old.octx', description: 'the older package (a .octx file or an unpacked package folder)' },
    { name: 'new.octx', description: 'the newer package' },
  ],
  options: {
    'exit-code': { type: 'boolean', description: 'exit 1 when anything changed, 0 when nothing did (as `git diff --exit-code`)' },
    'sample-size': { type: 'string', value: '<n>', description: 'record ids shown per category (default 10, at most 1000)' },
    ...READ_LIMIT_OPTIONS,
  },
  examples: ['octx-export diff out/three-kingdoms.octx out/three-kingdoms-notes.octx', 'octx-export diff out/three-kingdoms.octx out/kb.octx --json --exit-code'],
  async run(ctx) {
    try {
      return await runDiff(ctx);
    } catch (e) {
      // As git: 1 means "the packages differ", so trouble is always above it.
      const code = reportError(e, ctx.io, { json: ctx.json, debug: ctx.debug, command: 'diff' });
      return code === EXIT_OK ? code : Math.max(code, EXIT_TROUBLE);
    }
  },
};

/** Exit code of `diff` when a package cannot be compared (git: above 1). */
export const EXIT_TROUBLE = 2;

async function runDiff(ctx: Parameters<Command['run']>[0]): Promise<number> {
  const [oldPath, newPath] = ctx.positionals as [string, string];
  await requirePackagePath(oldPath, 'package');
  await requirePackagePath(newPath, 'package');
  const rawSample = str(ctx.values, 'sample-size');
  if (rawSample !== undefined && (!/^(0|[1-9][0-9]{0,3})$/.test(rawSample) || Number(rawSample) > 1000))
    throw usageError(`--sample-size must be an integer from 0 to 1000 (got ${JSON.stringify(rawSample)})`, 'sample-size');
  const { diffPackages } = await import('../../read/diff/diff-packages.js');
  const limits = await cliLimits(ctx.values);
  const progress = terminalProgress({ stream: ctx.io.stderr, warnings: false });
  let result: PackageDiff;
  try {
    result = await diffPackages(oldPath, newPath, {
      onProgress: progress,
      ...(limits ? { limits } : {}),
      ...(rawSample !== undefined ? { sampleSize: Number(rawSample) } : {}),
    });
  } finally {
    progress.done();
  }
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify({ ok: true, command: 'diff', ...result }, null, 2)}\n`);
  else ctx.io.stdout.write(`${diffLines(result).join('\n')}\n`);
  return flag(ctx.values, 'exit-code') && result.hasChanges ? EXIT_FAILED : EXIT_OK;
}
