/**
 * CPU-profiles one exporter (or validate) child and prints the top self-time functions, plus
 * self time grouped by file/package.
 *
 *   node --import tsx bench/profile.ts --size S|M|L|W [--chunks N] [--target export|collect|validate|baseline] [--top 30]
 *   node --import tsx bench/profile.ts --summarise DIR_OR_FILE.cpuprofile [--top 30]
 *
 * The child runs with `node --cpu-prof` (main thread only: deflate/inflate run on the libuv pool
 * and show up there as idle time; the pool's CPU is in the bench's CPU-time column). Profiles are
 * written to .bench-tmp/profiles/.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BENCH_TMP, ensureDir, parseArgs, parseSize, REPO_ROOT, SIZES } from './common.js';

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function shortUrl(url: string): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) return path.slice(nm + 'node_modules/'.length);
  if (path.startsWith(REPO_ROOT)) return relative(REPO_ROOT, path);
  return path;
}

function group(url: string): string {
  const s = shortUrl(url);
  if (s === '') return '(native / VM)';
  if (s.startsWith('node:')) return s;
  if (!s.includes('/')) return s;
  const parts = s.split('/');
  if (parts[0]!.startsWith('@')) return `${parts[0]}/${parts[1]}`;
  if (parts[0] === 'src' || parts[0] === 'bench') return s;
  return parts[0]!;
}

export function summarise(file: string, top = 30): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
  const total = p.endTime - p.startTime;
  const fn = new Map<string, number>();
  const grp = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    const cf = n.callFrame;
    const key = `${cf.functionName || '(anonymous)'}  ${shortUrl(cf.url)}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const g = cf.functionName.startsWith('(') && cf.url === '' ? cf.functionName : group(cf.url);
    grp.set(g, (grp.get(g) ?? 0) + us);
  }
  const out: string[] = [`profile ${relative(REPO_ROOT, file)}: ${(total / 1e6).toFixed(2)} s sampled (main thread)`, '', 'top self time (functions):'];
  for (const [k, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top))
    out.push(`  ${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
  out.push('', 'self time by file / package:');
  for (const [k, us] of [...grp].sort((a, b) => b[1] - a[1]).slice(0, top))
    out.push(`  ${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
  return out.join('\n');
}

function newestProfile(dir: string): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  return files[0]!;
}

const args = parseArgs(process.argv.slice(2));
const top = Number(args.get('top') ?? 30);
const given = args.get('summarise');
if (given) {
  const file = statSync(given).isDirectory() ? newestProfile(given) : given;
  process.stdout.write(`${summarise(file, top)}\n`);
} else {
  const size = parseSize(args.get('size') ?? 'S');
  const chunks = args.get('chunks') ?? String(SIZES[size]);
  const target = args.get('target') ?? 'export';
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = ensureDir(join(BENCH_TMP, 'profiles', `${target}-${size}-${chunks}-${stamp}`));
  const work = ensureDir(join(BENCH_TMP, 'profile-work'));
  const pkg = join(work, 'package.octx');
  const node = (script: string, extra: string[], profile: boolean): void => {
    const flags = profile ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
    const r = spawnSync(process.execPath, ['--expose-gc', ...flags, '--import', 'tsx', join(REPO_ROOT, 'bench', script), '--size', size, '--chunks', chunks, ...extra], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status})`);
  };
  if (target === 'export') node('export.ts', ['--out', pkg, '--tmp', join(work, 'spill')], true);
  else if (target === 'collect') node('export.ts', ['--out', pkg, '--tmp', join(work, 'spill'), '--collect-only'], true);
  else if (target === 'baseline') node('baseline.ts', ['--out', join(work, 'baseline')], true);
  else if (target === 'validate') {
    node('export.ts', ['--out', pkg, '--tmp', join(work, 'spill')], false);
    node('validate.ts', ['--mode', 'validate', '--file', pkg], true);
  } else throw new Error(`--target must be export, collect, validate or baseline (got ${target})`);
  process.stdout.write(`${summarise(newestProfile(dir), top)}\n`);
}
