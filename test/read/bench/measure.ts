/**
 * Measures one thing per process so RSS numbers do not mix (run with tsx):
 *   npx tsx test/read/bench/measure.ts baseline|validate <package path>
 * `baseline` opens the package and reads + SHA-256es every entry through the same container
 * reader; `validate` runs validatePackage. Prints wall time, CPU time (user + system: on a busy
 * machine the fairer number) and peak RSS.
 */
import { createHash } from 'node:crypto';
import { openPackage, validatePackage } from '../../../src/read/index.js';
import { sourceOf } from '../../../src/read/open-package.js';

const [mode, path] = process.argv.slice(2);
if (!path || (mode !== 'baseline' && mode !== 'validate')) throw new Error('usage: measure.ts baseline|validate <path>');
const t0 = performance.now();
const c0 = process.cpuUsage();
let summary: unknown;
if (mode === 'baseline') {
  const pkg = await openPackage(path);
  const source = sourceOf(pkg);
  let bytes = 0;
  for (const name of source.names()) {
    const h = createHash('sha256');
    for await (const c of source.open(name)) {
      h.update(c as Buffer);
      bytes += (c as Buffer).length;
    }
    h.digest('hex');
  }
  await pkg.close();
  summary = { bytes };
} else {
  const r = await validatePackage(path);
  summary = { valid: r.valid, fullyValidated: r.fullyValidated, issues: r.issues.slice(0, 3), dropped: r.droppedIssues };
}
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
console.log(
  JSON.stringify({ mode, path, ms: Math.round(ms), cpuMs: Math.round((cpu.user + cpu.system) / 1000), maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024), summary }),
);
