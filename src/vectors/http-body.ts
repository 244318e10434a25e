/**
 * Reading an HTTP response body with a byte cap, applied while it streams. `fetch` hands out the
 * body already decoded (gzip, deflate, brotli), so the bytes counted here are the decompressed
 * ones: a compression bomb stops at the cap like a plain oversized or endless body, and no more
 * than the cap (plus one network chunk) is ever held.
 */

/** A body read up to a cap. */
export interface CappedBody {
  /** The bytes read: all of them, or the first `limit` when `truncated`. */
  readonly bytes: Uint8Array;
  /** True when the body holds more than `limit` bytes; the rest was not read (the stream is cancelled). */
  readonly truncated: boolean;
}

/**
 * Reads `response`'s body up to `limit` bytes. A longer body is cancelled as soon as it passes
 * the cap (so the connection, and its decompressor, stop), and the first `limit` bytes are
 * returned with `truncated: true`. A declared `Content-Length` above the cap on an unencoded body
 * is refused before anything is read.
 */
export async function readCappedBody(response: Response, limit: number): Promise<CappedBody> {
  const body = response.body;
  if (body === null) return { bytes: new Uint8Array(0), truncated: false };
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const encoded = (response.headers.get('content-encoding') ?? '').trim() !== '';
  if (!encoded && Number.isFinite(declared) && declared > limit) {
    void body.cancel().catch(() => undefined);
    return { bytes: new Uint8Array(0), truncated: true };
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    // Typed by hand: the DOM and Node typings of the stream disagree, and lint sees `any`.
    const step = (await reader.read()) as { done: boolean; value?: Uint8Array };
    const value = step.value;
    if (step.done || value === undefined) break;
    if (total + value.byteLength > limit) {
      chunks.push(value.subarray(0, limit - total));
      total = limit;
      truncated = true;
      // Not awaited: a hostile server must not be able to hold us here.
      void reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    total += value.byteLength;
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, truncated };
}
