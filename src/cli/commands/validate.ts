import type { Command } from '../args.js';
import { EXIT_FAILED, EXIT_OK, formatIssueLine } from '../errors.js';
import { requirePackagePath } from '../fs-checks.js';

const SHOWN = 50;

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check a package with the validator and print its report (exit 0 valid, 1 invalid)',
  description: 'Validates every OCTX 0.1 rule: container, manifest, digests, documents, and each declared capability.',
  positionals: [{ name: 'file|dir', description: 'a .octx file or an unpacked package folder' }],
  options: {},
  examples: ['octx-export validate out/three-kingdoms.octx', 'octx-export validate out/three-kingdoms.octx --json'],
  async run(ctx) {
    const target = ctx.positionals[0]!;
    await requirePackagePath(target, 'package');
    const { validatePackage } = await import('../../read/validate-package.js');
    const report = await validatePackage(target);
    if (ctx.json) {
      ctx.io.stdout.write(`${JSON.stringify({ ok: report.valid, command: 'validate', path: target, ...report }, null, 2)}\n`);
      return report.valid ? EXIT_OK : EXIT_FAILED;
    }
    const lines: string[] = [];
    const verdict = report.valid ? (report.fullyValidated ? 'valid (fully validated)' : 'valid (not every declared capability could be checked)') : 'INVALID';
    lines.push(`${target}: ${verdict}`);
    lines.push(`  format        ${report.format.valid ? 'valid' : 'invalid'}`);
    for (const [name, layer] of Object.entries(report.capabilities)) {
      lines.push(`  ${name.padEnd(13)} ${layer.valid === null ? 'not understood' : layer.valid ? 'valid' : 'invalid'}`);
    }
    if (report.packageDigest) lines.push(`  digest        ${report.packageDigest}`);
    for (const i of report.issues.slice(0, SHOWN)) lines.push(`  ${formatIssueLine(i)}`);
    const more = report.issues.length - SHOWN + report.droppedIssues;
    if (more > 0) lines.push(`  … and ${more} more issue(s) (use --json to see the kept ones)`);
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    return report.valid ? EXIT_OK : EXIT_FAILED;
  },
};
