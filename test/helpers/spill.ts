import { readFileSync } from 'node:fs';
import type { ByteSegment } from '../../src/package/payload-spill.js';

/** Deterministic mixed CJK/English text that compresses about like real chunks. */
export function mixedText(bytes: number, seed = 1): Buffer {
  const words = ['the', 'event', 'chunk', '事件', '关系', 'knowledge', '文档', 'vector', 'Liu Bei', '曹操', 'river', '赤壁'];
  let x = seed;
  const parts: string[] = [];
  let n = 0;
  while (n < bytes) {
    x = (x * 1103515245 + 12345) >>> 0;
    const w = words[x % words.length]!;
    parts.push(w, x % 17 === 0 ? '\n' : ' ');
    n += Buffer.byteLength(w) + 1;
  }
  return Buffer.from(parts.join('')).subarray(0, bytes);
}

/** The bytes a spill's segments describe (file ranges and in-memory pieces), concatenated. */
export function segmentBytes(segments: readonly ByteSegment[]): Buffer {
  return Buffer.concat(segments.map((s) => ('bytes' in s ? s.bytes : readFileSync(s.file).subarray(s.offset, s.offset + s.length))));
}
