import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import type { VectorConfigInput } from '../../src/vectors/config.js';
import { RECOMMENDED_VECTOR_CONFIG_KEYS, computeVectorFingerprint, forbiddenVectorConfigEntries, prepareVectorConfig, vectorConfigIssues } from '../../src/vectors/config.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const GOLDEN = path.resolve(here, '../../fixtures/golden');
const C_FINGERPRINT = 'sha256:ef7eae8ff494be507243324a6aff67ef25ae8c4b400de6a3ca960280b0cf9aba';
const D_FINGERPRINT = 'sha256:dd1e5726d2da64c6ddd5216ca54f85298770a1b888620b1e05121c86118e394e';

function golden(name: string): { bytes: Buffer; json: Record<string, unknown> } {
  const bytes = readFileSync(path.join(GOLDEN, name));
  return { bytes, json: JSON.parse(bytes.toString('utf8')) as Record<string, unknown> };
}

function sha(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
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

const base = { model: 'example/embedding-model', revision: '2026-07-01', dimensions: 1024, normalized: true };

describe('computeVectorFingerprint', () => {
  it('reproduces golden C from the file (SEED example)', () => {
    const { json } = golden('C_vectors_config_seed_example.json');
    expect(json.fingerprint).toBe(C_FINGERPRINT);
    expect(computeVectorFingerprint(json)).toBe(C_FINGERPRINT);
    // Independent of the JCS library: the README's canonical text hashes to the same value.
    expect(sha('{"dimensions":1024,"model":"example/embedding-model","normalized":true,"revision":"2026-07-01"}')).toBe(C_FINGERPRINT);
  });

  it('reproduces golden D (extra settings and a nested object)', () => {
    const { json } = golden('D_vectors_config_extended.json');
    expect(json.fingerprint).toBe(D_FINGERPRINT);
    expect(computeVectorFingerprint(json)).toBe(D_FINGERPRINT);
  });

  it('does not depend on key order or on the fingerprint field', () => {
    const shuffled = { normalized: true, dimensions: 1024, revision: '2026-07-01', model: 'example/embedding-model', fingerprint: 'anything' };
    expect(computeVectorFingerprint(shuffled)).toBe(C_FINGERPRINT);
  });

  it('changes when a pipeline setting is added or changed', () => {
    const withPooling = computeVectorFingerprint({ ...base, pooling: 'mean' });
    expect(withPooling).not.toBe(C_FINGERPRINT);
    expect(computeVectorFingerprint({ ...base, pooling: 'cls' })).not.toBe(withPooling);
    expect(computeVectorFingerprint({ ...base, truncation: { max_tokens: 512 } })).not.toBe(computeVectorFingerprint({ ...base, truncation: { max_tokens: 256 } }));
  });

  it('refuses values JSON cannot carry', () => {
    const e = caught(() => computeVectorFingerprint({ ...base, scale: Number.NaN }));
    expect(e.code).toBe('OCTX_VECTOR_CONFIG_INVALID');
    expect(e.issues[0]?.field).toBe('scale');
  });
});

describe('forbiddenVectorConfigEntries (reference heuristic)', () => {
  const passing = [
    'normalized',
    'max_tokens',
    'tokenizer',
    'pooling',
    'prompt_template',
    'input_template',
    'truncation',
    'max_input_length',
    'query_prefix',
    'document_prefix',
    'precision',
    'keywords',
    'tokens',
    'monkey',
  ];
  const failing: [string, string][] = [
    ['api_key', 'api'],
    ['base_url', 'url'],
    ['apiKey', 'api'],
    ['normalize_embeddings', 'normalize'],
    ['l2Normalize', 'normalize'],
    ['truncation_token_limit', 'token'],
    ['input_key', 'key'],
    ['model_url', 'url'],
    ['distance_metric', 'distance'],
    ['Authorization', 'authorization'],
    ['x-api-host', 'api'],
    ['HEADERS', 'headers'],
    ['apikey', 'apikey'],
    ['BaseURL', 'url'],
    ['APIKey', 'apikey'], // no lower→upper boundary, so one token: caught by the joined form
    ['baseurl', 'baseurl'],
    ['serviceurl', 'serviceurl'],
    ['accessToken', 'token'],
    ['AccessKey', 'key'],
    ['passwordHash', 'password'],
    ['normalization', 'normalization'],
    ['diﬆance', 'distance'], // U+FB06 case-folds to "st" in the reference (Python casefold)
    ['ſecret', 'secret'], // U+017F long s folds to "s"
    // The reference's exact tokens let these through; the SEED's rule (issue 16, item 9) does not.
    ['hostname', 'hostname'],
    ['apis', 'apis'],
    ['urls', 'urls'],
  ];

  it.each(passing)('accepts key %s', (key) => {
    expect(forbiddenVectorConfigEntries({ [key]: 'x' })).toEqual([]);
  });

  it.each(failing)('refuses key %s', (key, word) => {
    const found = forbiddenVectorConfigEntries({ [key]: 'x' });
    expect(found).toHaveLength(1);
    expect(found[0]?.at).toBe(key);
    expect(found[0]?.reason).toContain(`"${word}"`);
  });

  it('treats non-ASCII letters as separators, like the reference', () => {
    // "ı" (dotless i) does not fold to ASCII, so "apı" is the token "ap".
    expect(forbiddenVectorConfigEntries({ apı_x: 1 })).toEqual([]);
    expect(forbiddenVectorConfigEntries({ clé: 1 })).toEqual([]);
  });

  it('searches nested objects and arrays', () => {
    expect(forbiddenVectorConfigEntries({ x: { api_key: 'secret' } })).toEqual([{ at: 'x.api_key', reason: expect.any(String) }]);
    expect(forbiddenVectorConfigEntries({ list: [{ ok: 1 }, { endpoint: 'e' }] }).map((f) => f.at)).toEqual(['list[1].endpoint']);
  });

  it('refuses URI-scheme string values at any depth, without echoing them', () => {
    const found = forbiddenVectorConfigEntries({ source: 'https://user:pw@example.com/m', a: { b: ['ok', 'hf://org/model'] }, c: 'not a url: x', d: '1http://x' });
    expect(found.map((f) => f.at)).toEqual(['source', 'a.b[1]']);
    expect(found[0]?.reason).not.toContain('user:pw');
    expect(found[0]?.reason).toContain('https://');
  });

  it('reports every entry and stops inside a refused key', () => {
    const found = forbiddenVectorConfigEntries({ api_key: { url: 'https://x' }, secret: 1, fine: 2 });
    expect(found.map((f) => f.at)).toEqual(['api_key', 'secret']);
  });

  it('accepts every recommended key, including the nested forms', () => {
    const keys = Object.keys(RECOMMENDED_VECTOR_CONFIG_KEYS);
    expect(keys).toEqual(['input_template', 'pooling', 'truncation', 'max_tokens', 'prompt', 'query_prefix', 'document_prefix', 'tokenizer', 'precision']);
    for (const meaning of Object.values(RECOMMENDED_VECTOR_CONFIG_KEYS)) expect(meaning.length).toBeGreaterThan(10);
    const config = {
      ...base,
      input_template: { chunks: '{text}', events: '{title}\n\n{content}', entities: '{name}' },
      pooling: 'mean',
      truncation: { max_tokens: 512, side: 'right' },
      max_tokens: 512,
      prompt: 'Represent this passage for retrieval:',
      query_prefix: 'query: ',
      document_prefix: 'passage: ',
      tokenizer: 'example/tokenizer@2026-07-01',
      precision: 'float16',
    };
    expect(forbiddenVectorConfigEntries(config)).toEqual([]);
    const prepared = prepareVectorConfig(config);
    expect(vectorConfigIssues(prepared.config)).toEqual([]);
  });
});

describe('vectorConfigIssues', () => {
  const valid = { ...base, fingerprint: C_FINGERPRINT };
  const codes = (value: unknown): [string, string | undefined][] => vectorConfigIssues(value).map((i) => [i.code, i.field]);

  it('accepts golden C and D as stored', () => {
    expect(vectorConfigIssues(golden('C_vectors_config_seed_example.json').json)).toEqual([]);
    expect(vectorConfigIssues(golden('D_vectors_config_extended.json').json)).toEqual([]);
    expect(vectorConfigIssues(valid)).toEqual([]);
  });

  it('refuses a non-object', () => {
    for (const v of [null, [], 'x', 3]) expect(codes(v)).toEqual([['OCTX_VECTOR_CONFIG_INVALID', undefined]]);
  });

  it('locates issues at vectors/config.json by default, or the given path', () => {
    expect(vectorConfigIssues({ ...valid, model: '' })[0]?.path).toBe('vectors/config.json');
    expect(vectorConfigIssues({ ...valid, model: '' }, 'x/config.json')[0]?.path).toBe('x/config.json');
  });

  it('checks model', () => {
    const { model: _m, ...noModel } = valid;
    expect(codes({ ...noModel, fingerprint: computeVectorFingerprint(noModel) })).toEqual([['OCTX_VECTOR_CONFIG_INVALID', 'model']]);
    expect(codes({ ...valid, model: '' })).toContainEqual(['OCTX_VECTOR_CONFIG_INVALID', 'model']);
    expect(codes({ ...valid, model: 7 })).toContainEqual(['OCTX_VECTOR_CONFIG_INVALID', 'model']);
  });

  it('checks revision only when present', () => {
    const { revision: _r, ...noRevision } = base;
    expect(vectorConfigIssues({ ...noRevision, fingerprint: computeVectorFingerprint(noRevision) })).toEqual([]);
    expect(codes({ ...valid, revision: '' })).toContainEqual(['OCTX_VECTOR_CONFIG_INVALID', 'revision']);
    expect(codes({ ...valid, revision: null })).toContainEqual(['OCTX_VECTOR_CONFIG_INVALID', 'revision']);
  });

  it('checks dimensions', () => {
    for (const d of [0, -1, 1.5, '3', null]) expect(codes({ ...valid, dimensions: d })).toContainEqual(['OCTX_VECTOR_CONFIG_INVALID', 'dimensions']);
    expect(codes({ ...valid, dimensions: 65_537 })).toContainEqual(['OCTX_VECTOR_DIMENSION_INVALID', 'dimensions']);
    const max = { ...base, dimensions: 65_536 };
    expect(vectorConfigIssues({ ...max, fingerprint: computeVectorFingerprint(max) })).toEqual([]);
  });

  it('checks normalized', () => {
    expect(codes({ ...valid, normalized: 'true' })).toContainEqual(['OCTX_VECTOR_CONFIG_INVALID', 'normalized']);
    const { normalized: _n, ...noNorm } = valid;
    expect(codes(noNorm)).toContainEqual(['OCTX_VECTOR_CONFIG_INVALID', 'normalized']);
  });

  it('checks fingerprint presence, shape and value', () => {
    expect(codes(base)).toEqual([['OCTX_VECTOR_CONFIG_INVALID', 'fingerprint']]);
    expect(codes({ ...base, fingerprint: C_FINGERPRINT.toUpperCase() })).toEqual([['OCTX_VECTOR_CONFIG_INVALID', 'fingerprint']]);
    expect(codes({ ...base, fingerprint: 'sha256:abc' })).toEqual([['OCTX_VECTOR_CONFIG_INVALID', 'fingerprint']]);
    expect(codes({ ...base, fingerprint: D_FINGERPRINT })).toEqual([['OCTX_VECTOR_FINGERPRINT_MISMATCH', 'fingerprint']]);
    // A setting added after the fingerprint was computed is caught.
    expect(codes({ ...valid, pooling: 'mean' })).toEqual([['OCTX_VECTOR_FINGERPRINT_MISMATCH', 'fingerprint']]);
  });

  it('reports each forbidden entry with its dotted path', () => {
    const config = { ...base, api_key: 'k', nested: { baseUrl: 'b' }, mirror: 'hf://x/y' };
    const issues = vectorConfigIssues({ ...config, fingerprint: computeVectorFingerprint(config) });
    expect(issues.map((i) => [i.code, i.field])).toEqual([
      ['OCTX_VECTOR_CONFIG_FORBIDDEN', 'api_key'],
      ['OCTX_VECTOR_CONFIG_FORBIDDEN', 'nested.baseUrl'],
      ['OCTX_VECTOR_CONFIG_FORBIDDEN', 'mirror'],
    ]);
  });

  it('reports non-JSON values instead of hashing them', () => {
    expect(codes({ ...valid, x: { y: Number.POSITIVE_INFINITY } })).toEqual([['OCTX_VECTOR_CONFIG_INVALID', 'x.y']]);
    expect(codes({ ...valid, when: new Date(0) })).toEqual([['OCTX_VECTOR_CONFIG_INVALID', 'when']]);
  });
});

describe('prepareVectorConfig', () => {
  it('writes golden C byte for byte', () => {
    const { bytes } = golden('C_vectors_config_seed_example.json');
    const prepared = prepareVectorConfig({ ...base });
    expect(prepared.fingerprint).toBe(C_FINGERPRINT);
    expect(prepared.bytes.equals(bytes)).toBe(true);
    expect(prepared.dimensions).toBe(1024);
    expect(prepared.normalized).toBe(true);
  });

  it('gives exact, order-independent bytes: leading keys, sorted rest, sorted nested keys, fingerprint last', () => {
    const jcs = '{"alpha":"x","dimensions":3,"model":"m","normalized":false,"revision":"r","zeta":{"10":[],"9":{},"a":[3,{"x":2,"y":1}],"b":1}}';
    const fp = sha(jcs);
    const expected =
      '{\n' +
      '  "model": "m",\n' +
      '  "revision": "r",\n' +
      '  "dimensions": 3,\n' +
      '  "normalized": false,\n' +
      '  "alpha": "x",\n' +
      '  "zeta": {\n' +
      '    "10": [],\n' +
      '    "9": {},\n' +
      '    "a": [\n' +
      '      3,\n' +
      '      {\n' +
      '        "x": 2,\n' +
      '        "y": 1\n' +
      '      }\n' +
      '    ],\n' +
      '    "b": 1\n' +
      '  },\n' +
      `  "fingerprint": "${fp}"\n` +
      '}\n';
    const a = prepareVectorConfig({ zeta: { b: 1, a: [3, { y: 1, x: 2 }], 9: {}, 10: [] }, normalized: false, alpha: 'x', dimensions: 3, revision: 'r', model: 'm' });
    const b = prepareVectorConfig({ model: 'm', revision: 'r', dimensions: 3, normalized: false, alpha: 'x', zeta: { 10: [], 9: {}, a: [3, { x: 2, y: 1 }], b: 1 } });
    expect(a.fingerprint).toBe(fp);
    expect(a.bytes.toString('utf8')).toBe(expected);
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(a.bytes[0]).toBe(0x7b); // no BOM
    expect(Object.keys(a.config)).toEqual(['model', 'revision', 'dimensions', 'normalized', 'alpha', 'zeta', 'fingerprint']);
    expect(vectorConfigIssues(JSON.parse(a.bytes.toString('utf8')))).toEqual([]);
  });

  it('drops an undefined revision and keeps non-ASCII text raw', () => {
    const input: VectorConfigInput = { model: 'modèle/中文', revision: undefined, dimensions: 2, normalized: true, prompt: 'é\u2028' };
    const prepared = prepareVectorConfig(input);
    const text = prepared.bytes.toString('utf8');
    expect(text).not.toContain('revision');
    expect(text).toContain('"model": "modèle/中文"');
    expect(prepared.fingerprint).toBe(computeVectorFingerprint({ model: 'modèle/中文', dimensions: 2, normalized: true, prompt: 'é\u2028' }));
  });

  it('returns a deep-frozen result', () => {
    const prepared = prepareVectorConfig({ ...base, truncation: { max_tokens: 512, side: 'right' } });
    expect(Object.isFrozen(prepared)).toBe(true);
    expect(Object.isFrozen(prepared.config)).toBe(true);
    expect(Object.isFrozen(prepared.config.truncation)).toBe(true);
    expect(() => {
      (prepared.config as Record<string, unknown>).model = 'other';
    }).toThrow(TypeError);
  });

  it('does not keep references to the caller object', () => {
    const truncation = { max_tokens: 512 };
    const prepared = prepareVectorConfig({ ...base, truncation });
    truncation.max_tokens = 1;
    expect(prepared.config.truncation).toEqual({ max_tokens: 512 });
  });

  it('accepts a matching caller fingerprint and refuses a different one', () => {
    expect(prepareVectorConfig({ ...base, fingerprint: C_FINGERPRINT }).fingerprint).toBe(C_FINGERPRINT);
    const e = caught(() => prepareVectorConfig({ ...base, pooling: 'mean', fingerprint: C_FINGERPRINT }));
    expect(e.code).toBe('OCTX_VECTOR_FINGERPRINT_MISMATCH');
    expect(e.issues).toHaveLength(1);
    expect(e.issues[0]?.field).toBe('fingerprint');
  });

  it('refuses a malformed caller fingerprint as invalid', () => {
    const e = caught(() => prepareVectorConfig({ ...base, fingerprint: 'md5:abc' }));
    expect(e.code).toBe('OCTX_VECTOR_CONFIG_INVALID');
    expect(e.issues[0]?.field).toBe('fingerprint');
  });

  it('throws one issue with its field', () => {
    const e = caught(() => prepareVectorConfig({ ...base, dimensions: 0 }));
    expect(e.code).toBe('OCTX_VECTOR_CONFIG_INVALID');
    expect(e.issues).toEqual([expect.objectContaining({ code: 'OCTX_VECTOR_CONFIG_INVALID', field: 'dimensions', path: 'vectors/config.json' })]);
  });

  it('aggregates several issues', () => {
    const e = caught(() => prepareVectorConfig({ model: '', dimensions: 3, normalized: true, api_key: 'k' }));
    expect(e.code).toBe('OCTX_VECTOR_CONFIG_INVALID');
    expect(e.issues.map((i) => [i.code, i.field])).toEqual([
      ['OCTX_VECTOR_CONFIG_INVALID', 'model'],
      ['OCTX_VECTOR_CONFIG_FORBIDDEN', 'api_key'],
    ]);
    const forbidden = caught(() => prepareVectorConfig({ ...base, api_key: 'k', endpoint: 'e' }));
    expect(forbidden.code).toBe('OCTX_VECTOR_CONFIG_FORBIDDEN');
    expect(forbidden.issues).toHaveLength(2);
    expect(forbidden.message).not.toContain('"k"');
  });

  it('refuses dimensions above the limit with OCTX_VECTOR_DIMENSION_INVALID', () => {
    expect(caught(() => prepareVectorConfig({ ...base, dimensions: 70_000 })).code).toBe('OCTX_VECTOR_DIMENSION_INVALID');
  });
});

describe('forbidden keys in plural, compound and synonym spellings (issue 16, item 9)', () => {
  // Keys a producer legitimately writes: every recommended key, the fingerprint's own fields,
  // input_hash (the vector input digest), and look-alikes of forbidden words.
  const allowed = [
    ...Object.keys(RECOMMENDED_VECTOR_CONFIG_KEYS),
    'model',
    'revision',
    'dimensions',
    'normalized',
    'input_hash',
    'inputHash',
    'max_tokens',
    'maxTokens',
    'tokenizer',
    'tokens',
    'keywords',
    'monkey',
    'ghost_layer',
    'status',
    'series',
    'process',
    'hashing',
    'bias',
    'prompt_template',
    'query_prefix',
    'document_prefix',
    'truncation',
    'precision',
    'pooling',
  ];
  const refused: [string, string][] = [
    ['endpoints', 'endpoints'],
    ['secrets', 'secrets'],
    ['passwd', 'passwd'],
    ['pwd', 'pwd'],
    ['db_passwords', 'passwords'],
    ['urls', 'urls'],
    ['endpoint_urls', 'endpoint'],
    ['model_uri', 'uri'],
    ['modelURI', 'uri'],
    ['model-uris', 'uris'],
    ['hostname', 'hostname'],
    ['hostName', 'host'],
    ['hosts', 'hosts'],
    ['similarity', 'similarity'],
    ['similarity_threshold', 'similarity'],
    ['similarityThreshold', 'similarity'],
    ['similarities', 'similarities'],
    ['distances', 'distances'],
    ['metrics', 'metrics'],
    ['keys', 'keys'],
    ['api_keys', 'api'],
    ['APIKeys', 'apikeys'],
    ['credentials', 'credentials'],
    ['bearer', 'bearer'],
    ['auth.headers', 'auth'],
  ];

  it.each(allowed)('allows %s', (key) => {
    expect(forbiddenVectorConfigEntries({ [key]: 'x' })).toEqual([]);
  });

  it.each(refused)('refuses %s (matched on "%s")', (key, word) => {
    const found = forbiddenVectorConfigEntries({ [key]: 'x' });
    expect(found).toHaveLength(1);
    expect(found[0]!.at).toBe(key);
    expect(found[0]!.reason).toContain(`"${word}"`);
  });

  it('the validator and the builder refuse them with the same code and field', async () => {
    const config = { model: 'm', dimensions: 4, normalized: true, retrieval: { similarity_threshold: 0.7 } };
    const issues = vectorConfigIssues({ ...config, fingerprint: computeVectorFingerprint(config) });
    expect(issues.map((i) => [i.code, i.field])).toEqual([['OCTX_VECTOR_CONFIG_FORBIDDEN', 'retrieval.similarity_threshold']]);
    expect(() => prepareVectorConfig(config)).toThrow(expect.objectContaining({ code: 'OCTX_VECTOR_CONFIG_FORBIDDEN' }));
  });
});
