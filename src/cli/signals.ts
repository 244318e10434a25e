/**
 * Signal cleanup of the `octx-export` executable: on SIGINT, SIGTERM or SIGHUP
 * the temporary output and the builders' spill folders (a plaintext copy of the knowledge base)
 * are removed, the producer state lock is released (else the next run takes it over,
 * which `--strict` refuses), then the signal is raised again so the process ends as the signal says (a shell
 * sees 130 for SIGINT, 143 for SIGTERM). Only the executable installs this: a library must not
 * take over a host's signals (the SDK has `dispose()`). SIGKILL cannot be caught.
 */
import { removeTempOutputsSync } from '../package/atomic-output.js';
import { removeSpillDirsSync } from '../package/spill-dir.js';
import { releaseStateLocksSync } from '../release/state-lock.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Installs the handlers (once per process). */
export function installSignalCleanup(): void {
  for (const signal of SIGNALS) {
    process.once(signal, () => {
      try {
        removeTempOutputsSync();
        removeSpillDirsSync();
        releaseStateLocksSync();
      } finally {
        for (const s of SIGNALS) process.removeAllListeners(s);
        // No listener left: the default action ends the process with this signal.
        process.kill(process.pid, signal);
      }
    });
  }
}
