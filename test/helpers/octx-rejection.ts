/** The typed rejection a test expects: `await octxRejection(p)` returns the `OctxError` to inspect. */
import { expect } from 'vitest';
import { OctxError } from '../../src/model/errors.js';

/** The `OctxError` `p` rejects with (fails the test when it resolves or rejects otherwise). */
export async function octxRejection(p: Promise<unknown>): Promise<OctxError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(OctxError);
    return e as OctxError;
  }
  throw new Error('expected a rejection');
}
