/**
 * A 128-bit digest of a string: MurmurHash3 x86_128 (Austin Appleby's public-domain design) over
 * the string's UTF-16 code units, two to a 32-bit word. It stands in for an identity key in the
 * consumer checker's memory (`digest-index.ts`): four 32-bit words, whatever the key's length.
 * Two different keys share a digest with probability about 2^-128 (not a cryptographic bound: a
 * producer could craft a colliding pair, and would only get its own package refused). Computed
 * in JavaScript, with no buffer or hash object per key.
 */

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The code-unit word at `i` (two UTF-16 units, low one first; past the end, `charCodeAt` is NaN and `| 0` makes it 0). */
const word = (s: string, i: number): number => s.charCodeAt(2 * i) | 0 | ((s.charCodeAt(2 * i + 1) | 0) << 16);

/** Writes the digest of `s` into `out` (four 32-bit words) and returns it. */
export function digest128(s: string, out: Uint32Array = new Uint32Array(4), seed = 0x0c7e_0017): Uint32Array {
  let h1 = seed;
  let h2 = seed;
  let h3 = seed;
  let h4 = seed;
  const words = Math.ceil(s.length / 2);
  const blocks = words >> 2;
  for (let b = 0; b < blocks; b++) {
    const u = b * 8;
    let k1 = s.charCodeAt(u) | (s.charCodeAt(u + 1) << 16);
    let k2 = s.charCodeAt(u + 2) | (s.charCodeAt(u + 3) << 16);
    let k3 = s.charCodeAt(u + 4) | (s.charCodeAt(u + 5) << 16);
    let k4 = s.charCodeAt(u + 6) | (s.charCodeAt(u + 7) << 16);
    k1 = Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    h1 ^= k1;
    h1 = (Math.imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h2 ^= k2;
    h2 = (Math.imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
    k3 = Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h3 ^= k3;
    h3 = (Math.imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
    k4 = Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h4 ^= k4;
    h4 = (Math.imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
  }
  // The tail: up to three words (zero-padded), mixed as Murmur's tail bytes are.
  const t = blocks * 4;
  const rest = words - t;
  if (rest >= 3) h3 ^= Math.imul(rotl(Math.imul(word(s, t + 2), C3), 17), C4);
  if (rest >= 2) h2 ^= Math.imul(rotl(Math.imul(word(s, t + 1), C2), 16), C3);
  if (rest >= 1) h1 ^= Math.imul(rotl(Math.imul(word(s, t), C1), 15), C2);
  // The length in code units (not words), so "a" and "a\0" differ.
  const len = s.length;
  h1 ^= len;
  h2 ^= len;
  h3 ^= len;
  h4 ^= len;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  out[0] = h1;
  out[1] = h2;
  out[2] = h3;
  out[3] = h4;
  return out;
}
