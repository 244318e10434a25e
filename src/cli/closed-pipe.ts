/**
 * A closed stdout or stderr pipe (`octx-export validate x.octx --json | head -c 100`): the reader
 * went away, so the rest of the output has nowhere to go. Like other Unix filters the run ends
 * quietly with exit 0 — no `Unhandled 'error' event` stack trace, whichever command was writing.
 * Node reports the failed write as an 'error' event on the stream (asynchronously, often after
 * the command has returned), so the listener is on the streams themselves. Only the executable
 * installs it (`main.ts`): a library must not take over a host's stdio.
 */
import { isStdoutClosed } from './errors.js';

let closed = false;

/** True once stdout or stderr failed with EPIPE (the exit code is then 0). */
export function pipeClosed(): boolean {
  return closed;
}

/**
 * Listens for EPIPE on `process.stdout` and `process.stderr` (once per process): the run goes on
 * to its own end (its `finally` blocks remove temporary files) with its output dropped, and exits 0.
 * Any other stream error is left to the stream's other listeners (the `-o -` writer reports a
 * full disk as `OCTX_IO_ERROR`), and rethrown when there are none, as Node would without this one.
 */
export function endQuietlyOnClosedPipe(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (!isStdoutClosed(e)) {
        if (stream.listenerCount('error') > 1) return;
        throw e;
      }
      closed = true;
      process.exitCode = 0;
    });
  }
}
