/**
 * The Python reference exporter (REF: the `octx` package's `create_octx` / `validate_octx`) on
 * the bench's working folder, when an install of it is named: `OCTX_REF_PYTHONPATH` (put on
 * `PYTHONPATH`; the folder that holds the `octx` package, or a virtualenv's site-packages) and
 * optionally `OCTX_REF_PYTHON` (the interpreter, default `python3`). Without them, or when
 * `import octx` fails, the bench says "REF not found" and goes on: nothing here is needed by a
 * test, and none of REF's code is in this repository.
 *
 * Each REF step runs in a fresh interpreter, measured like the CLI's steps: wall time from spawn
 * to exit, CPU time and peak RSS from the process's own `getrusage` at the end (so both sides
 * include their runtime's start).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { StepResult } from './common.js';

/** A usable REF install: how to start it and the version it reports. */
export interface ReferenceInstall {
  readonly python: string;
  readonly env: NodeJS.ProcessEnv;
  readonly version: string;
}

/** The outcome of looking for REF: an install, or why there is none. */
export type ReferenceProbe = { readonly found: true; readonly install: ReferenceInstall } | { readonly found: false; readonly reason: string };

/** Looks for REF as the environment names it (see the file's header). */
export function probeReference(environment: NodeJS.ProcessEnv = process.env): ReferenceProbe {
  const path = environment.OCTX_REF_PYTHONPATH;
  if (path === undefined || path === '') return { found: false, reason: 'OCTX_REF_PYTHONPATH is not set (point it at a Python install of the reference `octx` package)' };
  const python = environment.OCTX_REF_PYTHON ?? 'python3';
  const env = { ...environment, PYTHONPATH: environment.PYTHONPATH ? `${path}:${environment.PYTHONPATH}` : path };
  const probe = spawnSync(python, ['-c', 'import octx; print(getattr(octx, "__version__", "unknown"))'], { env, encoding: 'utf8', timeout: 60_000 });
  if (probe.error) return { found: false, reason: `${python} did not start: ${probe.error.message}` };
  if (probe.status !== 0)
    return { found: false, reason: `\`import octx\` failed with OCTX_REF_PYTHONPATH=${path}: ${(probe.stderr || '').trim().split('\n').slice(-1)[0] ?? `exit ${probe.status}`}` };
  return { found: true, install: { python, env, version: probe.stdout.trim() } };
}

// Both steps print one JSON line: the result's verdict and the process's own rusage at the end.
const RUSAGE = `
import json, resource
def rusage(extra):
    r = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps(dict(extra, maxRssKiB=r.ru_maxrss, userMs=r.ru_utime * 1000, systemMs=r.ru_stime * 1000)))
`;
const BUILD = `${RUSAGE}
import sys, octx
result = octx.create_octx(sys.argv[1], output=sys.argv[2], name="workdir memory bench", capabilities={"sag-structured": "0.1"})
validation = result.get("validation") if isinstance(result, dict) else getattr(result, "validation", None)
valid = getattr(validation, "valid", None) if validation is not None and not isinstance(validation, dict) else (validation or {}).get("valid")
rusage({"valid": valid})
`;
const VALIDATE = `${RUSAGE}
import sys, octx
report = octx.validate_octx(sys.argv[1])
rusage({"valid": bool(report.valid), "fullyValidated": bool(report.fully_validated)})
`;

/** One REF step in a fresh interpreter. */
function measurePython<S extends string>(
  install: ReferenceInstall,
  source: string,
  args: readonly string[],
  step: S,
  run: number,
): Promise<StepResult<S> & { valid: unknown; output: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(install.python, ['-c', source, ...args], { env: install.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
    p.once('error', reject);
    p.once('close', (code) => {
      const wallMs = performance.now() - t0;
      const line = out.trim().split('\n').pop() ?? '';
      let r: { maxRssKiB: number; userMs: number; systemMs: number; valid?: unknown } | undefined;
      try {
        r = JSON.parse(line) as typeof r;
      } catch {
        r = undefined;
      }
      if (code !== 0 || r === undefined) {
        resolve({ step, run, exitCode: code ?? -1, wallMs, cpuMs: NaN, maxRssMiB: NaN, valid: undefined, output: `${out}\n${err}`.trim().slice(-2000) });
        return;
      }
      resolve({ step, run, exitCode: code, wallMs, cpuMs: r.userMs + r.systemMs, maxRssMiB: r.maxRssKiB / 1024, valid: r.valid, output: '' });
    });
  });
}

/** REF's steps on the working folder. */
export type ReferenceStep = 'ref-build' | 'ref-validate';

/**
 * One REF build and validate of `workdir`, on a copy made before the clock starts (REF keeps its
 * producer state in the folder it builds).
 */
export async function measureReference(
  install: ReferenceInstall,
  workdir: string,
  run: number,
  scratch: string,
  log: (s: string) => void,
): Promise<{ results: StepResult<ReferenceStep>[]; failures: string[] }> {
  const copy = join(scratch, `ref-workdir-${run}`);
  const pkg = join(scratch, `ref-run-${run}.octx`);
  rmSync(copy, { recursive: true, force: true });
  rmSync(pkg, { force: true });
  cpSync(workdir, copy, { recursive: true });
  const results: StepResult<ReferenceStep>[] = [];
  const failures: string[] = [];
  try {
    for (const [step, source, args] of [
      ['ref-build', BUILD, [copy, pkg]],
      ['ref-validate', VALIDATE, [pkg]],
    ] as const) {
      const { output, valid, ...r } = await measurePython(install, source, args, step, run);
      log(
        `  run ${run} ${step.padEnd(12)} ${(r.wallMs / 1000).toFixed(2).padStart(7)} s wall ${(r.cpuMs / 1000).toFixed(2).padStart(7)} s cpu ${r.maxRssMiB.toFixed(0).padStart(5)} MiB peak RSS (REF; valid ${String(valid)})`,
      );
      if (r.exitCode !== 0) {
        failures.push(`run ${run} ${step}: exit ${r.exitCode}: ${output.split('\n').slice(-8).join(' | ').slice(0, 1200)}`);
        break;
      }
      results.push(r);
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(pkg, { force: true });
  }
  return { results, failures };
}
