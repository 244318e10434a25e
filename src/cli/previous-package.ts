/**
 * The one-line change summary of `build` and `derive`: which previous package to compare the new
 * one with (`--previous`, the last release of `--state` while its file is still on disk, or the
 * source of a derivation), and printing the line (`changes since 1.0.0: …`) on stderr.
 */
import { existsSync } from 'node:fs';
import type { ExportResult } from '../builder/package-builder.js';
import { changeLine } from '../read/diff/change-line.js';
import type { CommandContext, OptionSpec, OptionValues } from './args.js';
import { str } from './args.js';
import { formatIssueLine } from './errors.js';
import { requirePackagePath } from './fs-checks.js';

/** `--previous <file.octx>` of `build`. */
export const PREVIOUS_OPTION: Readonly<Record<string, OptionSpec>> = {
  previous: {
    type: 'string',
    value: '<file.octx>',
    description: 'a previous release to compare with: one line on stderr says what changed (default with --state: the last release, while its file is on disk)',
  },
};

/**
 * The package to compare a build with: `--previous`, else the last release recorded in
 * `--state` when its file still exists (also when this build overwrites it).
 * @throws OctxError `OCTX_OPEN_ERROR` when `--previous` names nothing
 */
export async function previousPackage(values: OptionValues): Promise<string | undefined> {
  const given = str(values, 'previous');
  if (given !== undefined) {
    await requirePackagePath(given, 'package');
    return given;
  }
  const state = str(values, 'state');
  if (state === undefined) return undefined;
  let latest: string | undefined;
  // Loaded here, not at start-up: its schema pulls in zod, which every CLI command would pay for.
  const { ProducerState } = await import('../release/producer-state.js');
  try {
    latest = ProducerState.load(state).latestOutput;
  } catch {
    return undefined; // the build itself reports a bad state file
  }
  // Also when this build overwrites it: the export keeps the old package aside for the comparison.
  if (latest === undefined || !existsSync(latest)) return undefined;
  return latest;
}

/** Prints the change line (or why there is none) on stderr; with `--json` it is in `report.changes`. */
export function printChanges(ctx: CommandContext, result: ExportResult): void {
  if (ctx.json) return;
  const changes = result.report.changes;
  if (changes) ctx.io.stderr.write(`${changeLine(changes)}\n`);
  for (const w of result.report.warnings) if (w.field === 'previous') ctx.io.stderr.write(`${formatIssueLine(w, 'warning')}\n`);
}
