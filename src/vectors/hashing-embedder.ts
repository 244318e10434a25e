/**
 * A feature-hashing text embedder: no network, no model files, byte-identical output on every
 * machine. Useful for tests, demos, offline packages and as a lexical baseline; it captures
 * surface similarity (shared character n-grams and words), not meaning.
 */
import { OctxError } from '../model/errors.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import type { JsonObject } from '../model/json.js';
import { throwIfAborted } from './abort.js';
import type { VectorConfigInput } from './config.js';
import { MAX_VECTOR_DIMENSIONS } from './config.js';
import type { Embedder } from './embedder.js';
import { DEFAULT_INPUT_TEMPLATES, compileInputTemplate } from './template.js';
import type { VectorTarget } from './targets.js';
import { VECTOR_TARGETS, isVectorTarget } from './targets.js';

/** Options of {@link HashingTextEmbedder}. */
export interface HashingTextEmbedderOptions {
  /** Output width (default 384). */
  readonly dimensions?: number;
  /** Shortest character n-gram (default 2). */
  readonly minN?: number;
  /** Longest character n-gram (default 4). */
  readonly maxN?: number;
  /** Hash seed, an unsigned 32-bit integer (default 0). Different seeds give unrelated spaces. */
  readonly seed?: number;
  /**
   * Input template recorded in the config: one string for every target, or per target (missing
   * targets get {@link DEFAULT_INPUT_TEMPLATES}). Default: the defaults, written out explicitly.
   */
  readonly inputTemplate?: string | Partial<Readonly<Record<VectorTarget, string>>>;
}

/** `model` of the hashing embedder's config. */
export const HASHING_EMBEDDER_MODEL = 'octx-export/hashing-text-embedder';
/** `revision` of the algorithm below; bumped on any change that alters output bits. */
export const HASHING_EMBEDDER_REVISION = '1';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const TAG_CHAR = 0x63; // 'c': character n-gram features
const TAG_WORD = 0x77; // 'w': word features
const WHITESPACE = /\s+/gu;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const MAX_N = 16;

/** FNV-1a 32-bit step over one byte. */
function fnvByte(h: number, b: number): number {
  return Math.imul(h ^ b, FNV_PRIME) >>> 0;
}

/** FNV-1a over the UTF-8 encoding of one code point, without materialising the bytes. */
function fnvCodePoint(h: number, cp: number): number {
  if (cp < 0x80) return fnvByte(h, cp);
  if (cp < 0x800) return fnvByte(fnvByte(h, 0xc0 | (cp >>> 6)), 0x80 | (cp & 0x3f));
  if (cp < 0x10000) return fnvByte(fnvByte(fnvByte(h, 0xe0 | (cp >>> 12)), 0x80 | ((cp >>> 6) & 0x3f)), 0x80 | (cp & 0x3f));
  return fnvByte(fnvByte(fnvByte(fnvByte(h, 0xf0 | (cp >>> 18)), 0x80 | ((cp >>> 12) & 0x3f)), 0x80 | ((cp >>> 6) & 0x3f)), 0x80 | (cp & 0x3f));
}

/** MurmurHash3's 32-bit finaliser (a bijection with full avalanche). */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Every key of {@link HashingTextEmbedderOptions}; another one is a misspelling, refused. */
const HASHING_EMBEDDER_OPTION_KEYS = keysOf<HashingTextEmbedderOptions>({ dimensions: true, minN: true, maxN: true, seed: true, inputTemplate: true });

/**
 * A documented feature-hashing embedder (revision `1`):
 *
 * 1. **Text:** Unicode NFKC, then `toLowerCase()` (locale-independent default case mapping),
 *    then every run of whitespace (JavaScript `\s`) becomes one space and the ends are trimmed.
 *    A text that is empty after this (or holds a lone UTF-16 surrogate) is refused with
 *    `OCTX_EMBEDDER_FAILED`: an all-zero vector cannot be normalised.
 * 2. **Features:** every character n-gram for n = `minN`…`maxN` over the code points of that
 *    text (spaces included, so n-grams cross word boundaries; CJK and emoji work per
 *    character; a text shorter than `minN` code points is one n-gram of its own length), plus
 *    every word, a maximal run of letters, marks and numbers (`\p{L}\p{M}\p{N}`). Each
 *    occurrence counts once.
 * 3. **Hash:** FNV-1a 32-bit over the little-endian 4 bytes of `seed`, one tag byte (`c` for
 *    n-grams, `w` for words, so the word "ab" and the 2-gram "ab" differ), then the UTF-8
 *    bytes of the feature; then MurmurHash3's `fmix32` finaliser, giving `m`.
 * 4. **Bucket and sign:** bucket = `m` mod `dimensions`; sign = −1 when the top bit of `m` is
 *    set, else +1 (for widths up to 65 536 the top bit is independent of the remainder); the
 *    sign is added to the bucket.
 * 5. **Normalise:** divide by the L2 norm. If the signed sums cancel to all zero (possible only
 *    for very short texts), the unsigned counts are used instead.
 *
 * **Determinism:** the bucket sums are small integers, exact in float64; the sum of squares is
 * an exact integer; `Math.sqrt` and the division are correctly rounded IEEE-754 operations, and
 * the final store into a `Float32Array` rounds once to nearest-even (exactly `Math.fround`).
 * No step depends on platform, engine or evaluation order, so a text gives the same float32
 * bits everywhere (given the same Unicode NFKC/case data, which is stable for assigned
 * characters).
 *
 * Its {@link config} lists every parameter, including the input template, so the fingerprint
 * is honest.
 */
export class HashingTextEmbedder implements Embedder {
  /** Full pipeline description; deep-frozen. */
  readonly config: VectorConfigInput;
  /** Output width. */
  readonly dimensions: number;
  /** Shortest character n-gram. */
  readonly minN: number;
  /** Longest character n-gram. */
  readonly maxN: number;
  /** Hash seed (unsigned 32-bit). */
  readonly seed: number;

  readonly #charStart: number;
  readonly #wordStart: number;
  /** Scratch: signed bucket sums and code points of the current text (reused: no per-text garbage). */
  readonly #sums: Float64Array;
  #cps = new Int32Array(256);

  /**
   * @throws OctxError `OCTX_VECTOR_DIMENSION_INVALID` for a width outside 1…65 536;
   *   `OCTX_OPTIONS_INVALID` for bad n-gram bounds, seed or template targets;
   *   `OCTX_VECTOR_CONFIG_INVALID` for a template syntax error.
   */
  constructor(options: HashingTextEmbedderOptions = {}) {
    assertKnownKeys(options, HASHING_EMBEDDER_OPTION_KEYS, 'HashingTextEmbedder options');
    const dimensions = options.dimensions ?? 384;
    const minN = options.minN ?? 2;
    const maxN = options.maxN ?? 4;
    const seed = options.seed ?? 0;
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_VECTOR_DIMENSIONS) {
      throw OctxError.of({
        code: 'OCTX_VECTOR_DIMENSION_INVALID',
        field: 'dimensions',
        message: `dimensions must be an integer in 1…${MAX_VECTOR_DIMENSIONS}, got ${String(dimensions)}`,
      });
    }
    if (!Number.isInteger(minN) || !Number.isInteger(maxN) || minN < 1 || maxN < minN || maxN > MAX_N) {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'minN', message: `need integers 1 ≤ minN ≤ maxN ≤ ${MAX_N}, got ${String(minN)}…${String(maxN)}` });
    }
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff) {
      throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'seed', message: `seed must be an unsigned 32-bit integer, got ${String(seed)}` });
    }
    this.dimensions = dimensions;
    this.minN = minN;
    this.maxN = maxN;
    this.seed = seed;
    this.#sums = new Float64Array(dimensions);
    let h = FNV_OFFSET;
    for (let i = 0; i < 4; i++) h = fnvByte(h, (seed >>> (8 * i)) & 0xff);
    this.#charStart = fnvByte(h, TAG_CHAR);
    this.#wordStart = fnvByte(h, TAG_WORD);

    const features: JsonObject = {
      char_ngrams: [minN, maxN],
      words: true,
      hash: 'fnv1a32_fmix32',
      seed,
      sign_hash: true,
      unicode: 'NFKC',
      lowercase: true,
      whitespace: 'collapse',
    };
    const config: VectorConfigInput = {
      model: HASHING_EMBEDDER_MODEL,
      revision: HASHING_EMBEDDER_REVISION,
      dimensions,
      normalized: true,
      input_template: resolveTemplates(options.inputTemplate),
      features,
    };
    this.config = deepFreeze(config);
  }

  /**
   * Embeds one text synchronously (see the class description).
   * @throws OctxError `OCTX_EMBEDDER_FAILED` for an empty text or a lone surrogate.
   */
  embedText(text: string): Float32Array {
    if (typeof text !== 'string' || !text.isWellFormed()) {
      throw OctxError.of({ code: 'OCTX_EMBEDDER_FAILED', message: 'text must be a well-formed string (no lone UTF-16 surrogates)' });
    }
    const s = text.normalize('NFKC').toLowerCase().replace(WHITESPACE, ' ').trim();
    if (s === '') throw OctxError.of({ code: 'OCTX_EMBEDDER_FAILED', message: 'cannot embed an empty (or whitespace-only) text' });

    // Code points of the text, into reusable scratch.
    if (this.#cps.length < s.length) this.#cps = new Int32Array(Math.max(s.length, this.#cps.length * 2));
    const cps = this.#cps;
    let len = 0;
    for (let i = 0; i < s.length;) {
      const cp = s.codePointAt(i) as number;
      cps[len++] = cp;
      i += cp > 0xffff ? 2 : 1;
    }

    const out = new Float32Array(this.dimensions);
    let norm = this.#accumulate(s, cps, len, true);
    if (norm === 0) norm = this.#accumulate(s, cps, len, false);
    if (!(norm > 0)) throw OctxError.of({ code: 'OCTX_EMBEDDER_FAILED', message: 'text produced no features' }); // unreachable: s is non-empty
    const sums = this.#sums;
    for (let i = 0; i < out.length; i++) out[i] = (sums[i] as number) / norm;
    return out;
  }

  /** Embeds `texts` in order; checks `signal` between texts. */
  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array<Float32Array>(texts.length);
    for (let i = 0; i < texts.length; i++) {
      if ((i & 63) === 0) throwIfAborted(options.signal);
      try {
        out[i] = this.embedText(texts[i] as string);
      } catch (e) {
        if (e instanceof OctxError) {
          throw OctxError.of({ code: e.code, field: `texts[${i}]`, message: e.issues[0]?.message ?? e.message });
        }
        throw e;
      }
    }
    return out;
  }

  /** Fills #sums for the text; returns the L2 norm. `signed` false = unsigned counts. */
  #accumulate(s: string, cps: Int32Array, len: number, signed: boolean): number {
    const sums = this.#sums;
    sums.fill(0);
    const dims = this.dimensions;
    const add = (h: number): void => {
      // Finalise first: FNV-1a's low bits depend only on the low bits of the input bytes, so a
      // plain remainder would cluster (two features that differ in one high bit would always
      // share or never share a bucket).
      const m = fmix32(h);
      const b = m % dims;
      sums[b] = (sums[b] as number) + (!signed || m < 0x8000_0000 ? 1 : -1);
    };
    // Character n-grams: one pass per start position, extending the hash code point by code
    // point (FNV-1a is sequential, so the n-gram of length k+1 continues the one of length k).
    const { minN, maxN } = this;
    // A text shorter than minN is one n-gram of its own length, so every non-empty text
    // (even a lone emoji or punctuation mark, which is no word) has at least one feature.
    const low = Math.min(minN, len);
    for (let start = 0; start < len; start++) {
      let h = this.#charStart;
      const stop = Math.min(len, start + maxN);
      for (let j = start; j < stop; j++) {
        h = fnvCodePoint(h, cps[j] as number);
        if (j - start + 1 >= low) add(h);
      }
    }
    // Words.
    WORD.lastIndex = 0;
    for (let m = WORD.exec(s); m !== null; m = WORD.exec(s)) {
      let h = this.#wordStart;
      const end = m.index + m[0].length;
      for (let i = m.index; i < end;) {
        const cp = s.codePointAt(i) as number;
        h = fnvCodePoint(h, cp);
        i += cp > 0xffff ? 2 : 1;
      }
      add(h);
    }
    let sumSq = 0;
    for (let i = 0; i < dims; i++) {
      const v = sums[i] as number;
      sumSq += v * v;
    }
    return Math.sqrt(sumSq);
  }
}

function resolveTemplates(input: HashingTextEmbedderOptions['inputTemplate']): string | JsonObject {
  if (typeof input === 'string') {
    compileInputTemplate(input); // syntax check now, not at the first record
    return input;
  }
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'inputTemplate', message: 'inputTemplate must be a string or an object keyed by target' });
  }
  for (const k of Object.keys(input ?? {})) {
    if (!isVectorTarget(k)) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: `inputTemplate.${k}`, message: `"${k}" is not a vector target` });
  }
  const out: JsonObject = {};
  for (const target of VECTOR_TARGETS) {
    const t = input?.[target] ?? DEFAULT_INPUT_TEMPLATES[target];
    if (typeof t !== 'string') throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: `inputTemplate.${target}`, message: 'a template must be a string' });
    compileInputTemplate(t);
    out[target] = t;
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
