/**
 * The whole structure suite (structure.test.ts) again, with every structure file checked on a
 * worker thread whatever its size: the reports must be the ones the in-thread check gives. Slow
 * by nature (a worker per file, hundreds of workers), so in the slow lane (`npm run test:slow`,
 * run by CI after `npm test`); structure-workers.test.ts keeps the worker-specific cases in the
 * default lane.
 */
import { afterAll } from 'vitest';
import { overrideStructureWorkerFile, setStructureWorkers } from '../../src/read/record-scan-pool.js';
import { compiledModule } from '../helpers/compiled-sources.js';

const previous = setStructureWorkers('always');
// From this run's compiled sources: under tsx each worker would compile its module graph again.
overrideStructureWorkerFile(await compiledModule('src/read/record-scan-worker.ts'));
afterAll(() => {
  setStructureWorkers(previous);
  overrideStructureWorkerFile(undefined);
});

await import('./structure.test.js');
