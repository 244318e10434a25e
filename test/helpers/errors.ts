import { isOctxError, type OctxError } from '../../src/index.js';

/** The OctxError `fn` throws; fails the test when it returns or throws something else. */
export function failure(fn: () => unknown): OctxError {
  try {
    fn();
  } catch (e) {
    if (isOctxError(e)) return e;
    throw e;
  }
  throw new Error('expected an OctxError, but the call succeeded');
}

/** The OctxError a promise rejects with; fails the test when it resolves or rejects otherwise. */
export async function failureAsync(p: Promise<unknown>): Promise<OctxError> {
  try {
    await p;
  } catch (e) {
    if (isOctxError(e)) return e;
    throw e;
  }
  throw new Error('expected an OctxError, but the promise resolved');
}
