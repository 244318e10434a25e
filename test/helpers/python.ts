/**
 * Finding the real Pythons the differential tests ask: one with PyYAML (the reference reader of
 * frontmatter; Debian's `python3-yaml`, which `.ci/run` installs), and one per Unicode version the
 * sag-1.7 profile models (Python 3.11: Unicode 14.0, 3.12: Unicode 15.0).
 *
 * `python3` on PATH may be a pyenv build that does not see Debian's dist-packages, so several
 * interpreters are tried in order. Under CI (`CI` set) a test that finds none fails; elsewhere it
 * is skipped with the reason.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** A Python found: the command to run, its version and its `unicodedata.unidata_version`. */
export interface FoundPython {
  readonly command: string;
  readonly version: string;
  readonly unicode: string;
}

/** Runs `python -c code` and returns its trimmed output, or undefined when it cannot run or fails. */
function ask(command: string, code: string): string | undefined {
  const r = spawnSync(command, ['-c', code], { encoding: 'utf8', timeout: 30_000 });
  return r.error === undefined && r.status === 0 ? r.stdout.trim() : undefined;
}

const PROBE = 'import sys, unicodedata; print(".".join(map(str, sys.version_info[:3])), unicodedata.unidata_version)';

function probe(command: string, extra = ''): FoundPython | undefined {
  const out = ask(command, `${extra}${PROBE}`);
  if (out === undefined) return undefined;
  const [version, unicode] = out.split(' ') as [string, string];
  return { command, version, unicode };
}

/** The pyenv interpreters of this machine, newest first (`~/.pyenv/versions/*`). */
function pyenvPythons(): string[] {
  const root = join(process.env.PYENV_ROOT ?? join(process.env.HOME ?? '/root', '.pyenv'), 'versions');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort()
    .reverse()
    .map((v) => join(root, v, 'bin', 'python3'))
    .filter((p) => existsSync(p));
}

/** A python3 that can `import yaml` (PYTHON_YAML, then PYTHON, python3, /usr/bin/python3). */
export function findPythonWithYaml(): FoundPython | undefined {
  const candidates = [process.env.PYTHON_YAML, process.env.PYTHON, 'python3', '/usr/bin/python3', ...pyenvPythons()].filter((c): c is string => !!c);
  for (const c of candidates) {
    const found = probe(c, 'import yaml; ');
    if (found) return found;
  }
  return undefined;
}

/** A Python whose `unicodedata` is `unicode` (e.g. `15.0.0`): PYTHON_<major><minor> when set, then `python3.X`, then pyenv's. */
export function findPythonWithUnicode(unicode: string, envName: string, names: readonly string[]): FoundPython | undefined {
  const candidates = [process.env[envName], ...names, ...pyenvPythons()].filter((c): c is string => !!c);
  for (const c of candidates) {
    const found = probe(c);
    if (found?.unicode === unicode) return found;
  }
  return undefined;
}
