import { flag, str, usageError, type Command } from '../args.js';
import { CONSUMER_NAMES, type ConsumerName } from '../../consumers/index.js';
import { EXIT_FAILED, EXIT_OK } from '../errors.js';
import { formatIssue } from '../error-format.js';
import { requirePackagePath } from '../fs-checks.js';
import { terminalProgress } from '../../terminal/progress.js';
import { cliLimits, READ_LIMIT_OPTIONS } from '../limits-options.js';

const SHOWN = 50;

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check a package with the validator and print its report (exit 0 valid, 1 invalid)',
  description: 'Validates every OCTX 0.1 rule: container, manifest, digests, documents, and each declared capability.',
  positionals: [{ name: 'file|dir', description: 'a .octx file or an unpacked package folder' }],
  options: {
    consumer: {
      type: 'string',
      value: '<name>',
      description: `also check what one consumer accepts beyond the format: ${CONSUMER_NAMES.join(', ')} (exit 1 when it would refuse the package; see docs/consumers.md)`,
    },
    manifest: { type: 'boolean', description: 'with --json, also print the whole parsed manifest (left out by default: it lists every file of the package)' },
    ...READ_LIMIT_OPTIONS,
  },
  examplesNote: 'out/three-kingdoms.octx: written by the first example of `octx-export build --help`',
  examples: [
    'octx-export validate out/three-kingdoms.octx',
    'octx-export validate out/three-kingdoms.octx --json',
    'octx-export validate out/three-kingdoms.octx --consumer sag-1.7',
    'octx-export validate out/three-kingdoms.octx --max-entries 50000',
  ],
  async run(ctx) {
    const target = ctx.positionals[0]!;
    await requirePackagePath(target, 'package');
    const { validatePackage } = await import('../../read/validate-package.js');
    const consumer = consumerOption(str(ctx.values, 'consumer'));
    if (flag(ctx.values, 'manifest') && !ctx.json) throw usageError('--manifest adds the manifest to the --json output: add --json, or drop --manifest', 'manifest');
    // A package built with raised limits is read with the same ones.
    const limits = await cliLimits(ctx.values);
    // Progress on a terminal: validate documents, files, structure, vectors (those that apply).
    const progress = terminalProgress({ stream: ctx.io.stderr, warnings: false });
    let report;
    try {
      report = await validatePackage(target, { ...(consumer !== undefined ? { consumer } : {}), ...(limits ? { limits } : {}), onProgress: progress });
    } finally {
      progress.done();
    }
    const ok = report.valid && report.consumer?.compatible !== false;
    if (ctx.json) {
      // The manifest lists every file with its digest: a verdict should not be megabytes long.
      const { manifest, ...verdict } = report;
      const shown = flag(ctx.values, 'manifest') && manifest !== undefined ? { ...verdict, manifest } : verdict;
      ctx.io.stdout.write(`${JSON.stringify({ ok, command: 'validate', path: target, ...shown }, null, 2)}\n`);
      return ok ? EXIT_OK : EXIT_FAILED;
    }
    const lines: string[] = [];
    const verdict = report.valid ? (report.fullyValidated ? 'valid (fully validated)' : 'valid (not every declared capability could be checked)') : 'INVALID';
    lines.push(`${target}: ${verdict}`);
    lines.push(`  format        ${report.format.valid ? 'valid' : 'invalid'}`);
    for (const [name, layer] of Object.entries(report.capabilities)) {
      lines.push(`  ${name.padEnd(13)} ${layer.valid === null ? 'not understood' : layer.valid ? 'valid' : 'invalid'}`);
    }
    if (report.packageDigest) lines.push(`  digest        ${report.packageDigest}`);
    for (const i of report.issues.slice(0, SHOWN)) lines.push(...formatIssue(i, { indent: '  ' }));
    const more = report.issues.length - SHOWN + report.droppedIssues;
    if (more > 0) lines.push(`  … and ${more} more issue(s) (use --json to see the kept ones)`);
    const c = report.consumer;
    if (c) {
      const verdict = c.compatible === null ? 'not checked' : c.compatible ? 'compatible' : 'INCOMPATIBLE';
      lines.push(`  consumer      ${c.name}: ${verdict}`);
      for (const i of c.issues.slice(0, SHOWN)) lines.push(...formatIssue(i, { indent: '  ' }));
      if (c.issues.length > SHOWN) lines.push(`  … and ${c.issues.length - SHOWN} more consumer issue(s) (use --json to see them)`);
    }
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    return ok ? EXIT_OK : EXIT_FAILED;
  },
};

/** `--consumer <name>`: a known profile name. */
export function consumerOption(raw: string | undefined): ConsumerName | undefined {
  if (raw === undefined) return undefined;
  if (!(CONSUMER_NAMES as readonly string[]).includes(raw)) throw usageError(`--consumer must be one of ${CONSUMER_NAMES.join(', ')} (got ${JSON.stringify(raw)})`, 'consumer');
  return raw as ConsumerName;
}
