/**
 * Runs before every test file (vitest `setupFiles`), also where a worker shares its modules
 * between files (the quick lane): per-file hooks belong here, not at the top of a helper module,
 * which runs once per worker there.
 */
import { afterEach } from 'vitest';
import { removeTempDirs } from './helpers/temp.js';

afterEach(removeTempDirs);
