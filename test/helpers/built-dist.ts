/**
 * The repository's build (`npm run build`: dist/), for the tests of the package as it is built.
 * `npm test` builds it before running them; a test run right after a change to src/ must not
 * test an older build without saying so.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './temp.js';

/** The newest modification time of the files and folders under `dir` (a deleted file changes its folder's). */
function newest(dir: string): number {
  let t = statSync(dir).mtimeMs;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) t = Math.max(t, statSync(join(e.parentPath, e.name)).mtimeMs);
  return t;
}

/** Throws, saying to run `npm run build`, unless dist/ holds both builds and is newer than every file of src/. */
export function assertFreshDist(): void {
  for (const f of ['dist/index.js', 'dist/cjs/index.js', 'dist/cjs/package.json']) {
    if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: run \`npm run build\` before this test`);
  }
  if (newest(join(ROOT, 'src')) > Math.min(statSync(join(ROOT, 'dist/index.js')).mtimeMs, statSync(join(ROOT, 'dist/cjs/index.js')).mtimeMs)) {
    throw new Error('dist/ is older than src/: run `npm run build` before this test (it tests the built package)');
  }
}
