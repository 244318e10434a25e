/**
 * Deterministic test bytes from a xorshift32 stream. `textLike` makes every other byte a
 * lower-case letter, so deflate has something to do; otherwise the bytes barely compress.
 */
export function xorshiftBytes(size: number, seed: number, options: { textLike?: boolean } = {}): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = seed | 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = options.textLike && i % 2 === 0 ? 0x61 + ((x >>> 0) % 26) : x & 0xff;
  }
  return out;
}
