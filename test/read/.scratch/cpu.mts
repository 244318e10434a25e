import { validatePackage } from '../../../src/read/index.ts';
const t0 = performance.now(); const c0 = process.cpuUsage();
const r = await validatePackage(process.argv[2]!);
const c = process.cpuUsage(c0);
console.log({ wall: Math.round(performance.now() - t0), user: Math.round(c.user / 1000), sys: Math.round(c.system / 1000), valid: r.valid });
