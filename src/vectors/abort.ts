/** Internal: the one way the vector modules turn an aborted signal into an error. */
import { OctxError } from '../model/errors.js';

/** An `OCTX_ABORTED` error carrying the signal's reason as `cause`. */
export function abortedError(signal?: AbortSignal): OctxError {
  return new OctxError('OCTX_ABORTED', 'the vector export was cancelled by its AbortSignal', { cause: signal?.reason });
}

/** Throws {@link abortedError} when `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}
