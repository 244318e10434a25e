import { openPackage } from '../../../src/read/index.ts';
import { sourceOf } from '../../../src/read/open-package.ts';
import { createHash } from 'node:crypto';
const pkg = await openPackage(process.argv[2]!);
const src = sourceOf(pkg);
for (const name of ['data/chunks.jsonl', 'vectors/chunks.arrow']) {
  const t0 = performance.now(); const c0 = process.cpuUsage();
  const h = createHash('sha256'); let n = 0;
  for await (const c of src.open(name)) { h.update(c as Buffer); n++; }
  const c = process.cpuUsage(c0);
  console.log(name, 'chunks', n, { wall: Math.round(performance.now() - t0), cpu: Math.round((c.user + c.system) / 1000) });
}
await pkg.close();
