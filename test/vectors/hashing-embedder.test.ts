import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import { computeVectorFingerprint, forbiddenVectorConfigEntries, prepareVectorConfig, vectorConfigIssues } from '../../src/vectors/config.js';
import { HashingTextEmbedder } from '../../src/vectors/hashing-embedder.js';
import { templateForTarget } from '../../src/vectors/template.js';

function bitsHex(v: Float32Array, count: number): string[] {
  return Array.from(new Uint32Array(v.buffer, v.byteOffset, count), (x) => x.toString(16).padStart(8, '0'));
}
function sha(v: Float32Array): string {
  return createHash('sha256')
    .update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))
    .digest('hex');
}
function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}
function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s / (norm(a) * norm(b));
}
function caught(fn: () => unknown): OctxError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OctxError) return e;
    throw e;
  }
  throw new Error('expected an OctxError');
}

const TEXT = 'Open Context packages carry knowledge, structure and vectors in one verifiable archive: documents, chunks, events and entities, each with a stable identity.';

describe('HashingTextEmbedder', () => {
  // Goldens: float32 bits (little-endian words as hex) and the SHA-256 of the whole vector.
  // Cross-checked against an independent Python implementation of the documented algorithm.
  it('reproduces the golden vector of a fixed text (384 dims, defaults)', () => {
    const v = new HashingTextEmbedder().embedText(TEXT);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(384);
    expect(bitsHex(v, 8)).toEqual(['00000000', 'bd2127ac', '00000000', 'bd2127ac', '00000000', '3df1bb82', '00000000', 'bda127ac']);
    expect(sha(v)).toBe('470fc30ac8c913116edb0f5d2df1df2821a3a671e85cf92f7c452c898afc67ba');
  });

  it('reproduces a golden that exercises NFKC, case and whitespace folding (16 dims)', () => {
    const e = new HashingTextEmbedder({ dimensions: 16 });
    const v = e.embedText('Ｆｕｌｌｗｉｄｔｈ  TEXT\tand\nlines');
    expect(bitsHex(v, 8)).toEqual(['3ed105ec', '3e5105ec', 'be5105ec', '3dd105ec', 'be9cc471', 'be5105ec', '3e5105ec', 'bed105ec']);
    expect(sha(v)).toBe('e206e942c13724b32c309a942983ea25e764864d11add57ab401e828a1ed6bfb');
    // Same text after folding → same bits.
    expect(sha(e.embedText('  fullwidth text and lines '))).toBe(sha(v));
  });

  it('is deterministic across instances, calls and batch/single use', async () => {
    const a = new HashingTextEmbedder();
    const b = new HashingTextEmbedder();
    const texts = [TEXT, '关羽过五关斩六将', 'x', TEXT];
    const batch = await a.embed(texts);
    texts.forEach((t, i) => {
      const one = b.embedText(t);
      expect(sha(one)).toBe(sha(batch[i] as Float32Array));
    });
    expect(sha(batch[0] as Float32Array)).toBe(sha(batch[3] as Float32Array));
    expect(batch[0]).not.toBe(batch[3]); // fresh arrays, scratch is internal
  });

  it('produces unit vectors', () => {
    const e = new HashingTextEmbedder();
    for (const t of [TEXT, 'a', 'ab', '😀', '!', '。', '关羽', '1234567890', 'The quick brown fox. '.repeat(200)]) {
      expect(Math.abs(norm(e.embedText(t)) - 1)).toBeLessThan(1e-6);
    }
  });

  it('embeds Chinese text per character, with lexical similarity', () => {
    const e = new HashingTextEmbedder();
    const story = e.embedText('关羽过五关斩六将');
    const related = e.embedText('关羽过五关');
    const unrelated = e.embedText(TEXT);
    expect(Array.from(story).filter((x) => x !== 0).length).toBeGreaterThan(10);
    expect(Math.abs(norm(story) - 1)).toBeLessThan(1e-6);
    expect(cosine(story, related)).toBeGreaterThan(0.5);
    expect(Math.abs(cosine(story, unrelated))).toBeLessThan(0.2);
    expect(sha(story)).toBe('77762d1d9c84ae7a68fe684b43572bd07c8bd31dc3eca3be27a26dd488054fee');
  });

  it('never returns a zero vector: cancelling signed sums fall back to unsigned counts', () => {
    // "丁亏": its one 2-gram and its one word land in the same bucket with opposite signs.
    const v = new HashingTextEmbedder().embedText('丁亏');
    const nonZero = Array.from(v).filter((x) => x !== 0);
    expect(nonZero).toEqual([1]);
    expect(sha(v)).toBe('7a4fc177f8735283eb1145310530dee4eb1b3952d6bb2f21c1c9f76f9594f814');
  });

  it('depends on the seed and the n-gram range', () => {
    const base = new HashingTextEmbedder().embedText(TEXT);
    expect(sha(new HashingTextEmbedder({ seed: 1 }).embedText(TEXT))).not.toBe(sha(base));
    expect(sha(new HashingTextEmbedder({ minN: 3, maxN: 5 }).embedText(TEXT))).not.toBe(sha(base));
  });

  it('refuses empty and malformed texts', async () => {
    const e = new HashingTextEmbedder();
    for (const t of ['', '   \n\t', '\u3000']) expect(caught(() => e.embedText(t)).code).toBe('OCTX_EMBEDDER_FAILED');
    expect(caught(() => e.embedText('a\ud800b')).code).toBe('OCTX_EMBEDDER_FAILED');
    try {
      await e.embed(['ok', '']);
      throw new Error('expected a rejection');
    } catch (err) {
      expect(err).toBeInstanceOf(OctxError);
      expect((err as OctxError).issues[0]).toMatchObject({ code: 'OCTX_EMBEDDER_FAILED', field: 'texts[1]' });
    }
  });

  it('honours an aborted signal', async () => {
    const e = new HashingTextEmbedder();
    await expect(e.embed(['a'], { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'OCTX_ABORTED' });
  });

  it('validates its options', () => {
    expect(caught(() => new HashingTextEmbedder({ dimensions: 0 })).code).toBe('OCTX_VECTOR_DIMENSION_INVALID');
    expect(caught(() => new HashingTextEmbedder({ dimensions: 70_000 })).code).toBe('OCTX_VECTOR_DIMENSION_INVALID');
    expect(caught(() => new HashingTextEmbedder({ minN: 3, maxN: 2 })).code).toBe('OCTX_OPTIONS_INVALID');
    expect(caught(() => new HashingTextEmbedder({ seed: -1 })).code).toBe('OCTX_OPTIONS_INVALID');
    expect(caught(() => new HashingTextEmbedder({ seed: 2 ** 32 })).code).toBe('OCTX_OPTIONS_INVALID');
    expect(caught(() => new HashingTextEmbedder({ inputTemplate: { documents: '{x}' } as never })).code).toBe('OCTX_OPTIONS_INVALID');
    expect(caught(() => new HashingTextEmbedder({ inputTemplate: '{unclosed' })).code).toBe('OCTX_VECTOR_CONFIG_INVALID');
  });
});

describe('HashingTextEmbedder config', () => {
  it('lists every parameter and passes validation once fingerprinted', () => {
    const e = new HashingTextEmbedder();
    expect(e.config).toEqual({
      model: 'octx-export/hashing-text-embedder',
      revision: '1',
      dimensions: 384,
      normalized: true,
      input_template: { chunks: '{text}', events: '{title}\n\n{content}', entities: '{name}' },
      features: {
        char_ngrams: [2, 4],
        words: true,
        hash: 'fnv1a32_fmix32',
        seed: 0,
        sign_hash: true,
        unicode: 'NFKC',
        lowercase: true,
        whitespace: 'collapse',
      },
    });
    expect(forbiddenVectorConfigEntries(e.config)).toEqual([]);
    expect(vectorConfigIssues({ ...e.config, fingerprint: computeVectorFingerprint(e.config) })).toEqual([]);
    const prepared = prepareVectorConfig(e.config);
    expect(vectorConfigIssues(JSON.parse(prepared.bytes.toString('utf8')))).toEqual([]);
    expect(Object.isFrozen(e.config)).toBe(true);
    expect(Object.isFrozen(e.config.features)).toBe(true);
  });

  it('gives a different fingerprint for every different pipeline', () => {
    const fp = (o: ConstructorParameters<typeof HashingTextEmbedder>[0]): string => computeVectorFingerprint(new HashingTextEmbedder(o).config);
    const all = [fp({}), fp({ seed: 7 }), fp({ dimensions: 256 }), fp({ minN: 1 }), fp({ inputTemplate: 'passage: {text}' }), fp({ inputTemplate: { events: '{title}' } })];
    expect(new Set(all).size).toBe(all.length);
    expect(fp({})).toBe(fp({ dimensions: 384, minN: 2, maxN: 4, seed: 0 }));
  });

  it('records the input template so templateForTarget is explicit for every target', () => {
    const partial = new HashingTextEmbedder({ inputTemplate: { events: '{title}: {content}' } });
    expect(templateForTarget(partial.config, 'events')).toBe('{title}: {content}');
    expect(templateForTarget(partial.config, 'chunks')).toBe('{text}');
    expect(templateForTarget(partial.config, 'entities')).toBe('{name}');
    const single = new HashingTextEmbedder({ inputTemplate: 'doc: {text}' });
    expect(single.config.input_template).toBe('doc: {text}');
    expect(templateForTarget(single.config, 'entities')).toBe('doc: {text}');
  });
});
