/**
 * A 128-bit digest of a string: the first 16 bytes of SHA-256 over the string's UTF-16LE code
 * units (so lone surrogates, which Python keeps as distinct characters, stay distinct; UTF-8
 * would turn them all into U+FFFD). It stands in for an identity key in the consumer checker's
 * memory (`digest-index.ts`): four 32-bit words, whatever the key's length. Node's own SHA-256
 * rather than a hand-written hash: two different keys share a digest with probability about
 * 2^-128, and no producer can craft a colliding pair.
 */
import { hash } from 'node:crypto';

/** Writes the digest of `s` into `out` (four 32-bit words, little-endian) and returns it. */
export function digest128(s: string, out: Uint32Array = new Uint32Array(4)): Uint32Array {
  const d = hash('sha256', Buffer.from(s, 'utf16le'), 'buffer');
  out[0] = d.readUInt32LE(0);
  out[1] = d.readUInt32LE(4);
  out[2] = d.readUInt32LE(8);
  out[3] = d.readUInt32LE(12);
  return out;
}
