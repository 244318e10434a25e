/**
 * A 128-bit digest of a string: MurmurHash3 x86_128 (Austin Appleby's public-domain design) over
 * the string's UTF-16 code units, two to a 32-bit word. It stands in for an identity key in the
 * consumer checker's memory: 8 UTF-16 units, whatever the key's length. Two different keys share
 * a digest with probability about 2^-128 (not a cryptographic bound: a producer could craft a
 * pair, and then only refuse its own package), about 40x faster than SHA-256 through node:crypto
 * for short keys, which matters at a million entities.
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

/** The code-unit word at `i` (two UTF-16 units, little end first; 0 past the end). */
const word = (s: string, i: number): number => (i * 2 < s.length ? s.charCodeAt(i * 2) : 0) | ((i * 2 + 1 < s.length ? s.charCodeAt(i * 2 + 1) : 0) << 16);

/** The digest of `s` as 8 UTF-16 code units (for a Map key). */
export function digest128(s: string, seed = 0x0c7e_0017): string {
  let h1 = seed;
  let h2 = seed;
  let h3 = seed;
  let h4 = seed;
  const words = Math.ceil(s.length / 2);
  const blocks = words >> 2;
  for (let b = 0; b < blocks; b++) {
    let k1 = word(s, b * 4);
    let k2 = word(s, b * 4 + 1);
    let k3 = word(s, b * 4 + 2);
    let k4 = word(s, b * 4 + 3);
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
  return String.fromCharCode(h1 & 0xffff, h1 >>> 16, h2 & 0xffff, h2 >>> 16, h3 & 0xffff, h3 >>> 16, h4 & 0xffff, h4 >>> 16);
}
