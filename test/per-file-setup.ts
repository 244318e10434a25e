/**
 * Runs before every test file (vitest `setupFiles`), also where a worker shares its modules
 * between files (the quick lane): per-file hooks belong here, not at the top of a helper module,
 * which runs once per worker there.
 */
import { afterAll, afterEach } from 'vitest';
import { cpuSpent, cpuTime, type CpuTime } from './helpers/cpu-time.js';
import { removeTempDirs } from './helpers/temp.js';

declare module 'vitest' {
  interface TaskMeta {
    /** The CPU the file cost (importing it, its tests and hooks, the processes it started): `npm run test:profile` prints it. */
    cpu?: CpuTime;
  }
}

// Read before the test file is imported: its import is part of its cost.
const started = cpuTime();

afterEach(removeTempDirs);

// vitest reads the first parameter of a hook as a destructured fixture list: an empty one here.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, file) => {
  file.meta.cpu = cpuSpent(started, cpuTime());
});
