/**
 * Property: whatever a hostile embeddings server answers (the items in any order; indices that are
 * missing, strings, null, fractions, negative, out of range, huge or repeated; items missing or
 * extra; wrong widths; values that are not finite float32; padded bodies around the size cap;
 * gzip, deflate or brotli; chunked or with a length; redirects on the same origin, to another
 * origin, or in a loop; error statuses), `HttpEmbedder.embed` either returns exactly the right
 * vector for each text (the server's vector encodes the text it was computed from, so a wrong
 * assignment shows) or throws a typed OctxError with the code the answer deserves. And nothing,
 * ever, reaches the server on the other origin.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpEmbedder, OctxError } from 'octx-export';
import { startEmbeddingsServer, vectorOf, type EmbeddingsServer } from '../helpers/embeddings-server.js';
import { fuzzParameters, fuzzTimeout } from './fuzz-config.js';

const SHORT_RUNS = 80;
const DIMS = 4;
const KEY = 'sk-fuzz-0123456789';
const HEADER_KEY = 'azure-fuzz-9876543210';

let main: EmbeddingsServer;
let other: EmbeddingsServer;
beforeAll(async () => {
  main = await startEmbeddingsServer();
  other = await startEmbeddingsServer();
});
afterAll(async () => {
  await main.close();
  await other.close();
});
afterEach(() => {
  main.received.length = 0;
  other.received.length = 0;
});

const INDEX_FAULTS = ['string', 'null', 'missing', 'fraction', 'negative', 'out-of-range', 'huge', 'repeated', 'boolean'] as const;
const VALUE_FAULTS = ['string', 'null', 'too-big', 'boolean'] as const;
const REDIRECTS = ['none', 'same-307', 'same-308', 'same-twice', 'same-302', 'same-303', 'loop', 'other-307', 'other-308', 'other-302', 'other-host'] as const;

/** `arbitrary` in `percent` % of the runs, else null (so that most runs carry one fault, not all of them). */
const sometimes = <T>(percent: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(null) }, { weight: percent, arbitrary });

const scenario = fc.record({
  // Distinct texts: two equal texts have equal vectors, and a swap between them would not show.
  texts: fc.uniqueArray(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 6 }),
  /** Sort keys that shuffle the answer's items. */
  order: fc.array(fc.nat(1000), { minLength: 6, maxLength: 6 }),
  knownDimensions: fc.boolean(),
  /** On one item (`at`) or on every item (`all`: the answer of a server that never sends proper indices). */
  indexFault: sometimes(35, fc.record({ kind: fc.constantFrom(...INDEX_FAULTS), at: fc.nat(5), all: fc.boolean() })),
  countFault: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'drop', 'extra'),
  widthFault: sometimes(10, fc.record({ at: fc.nat(5), delta: fc.constantFrom(-1, 1, 3) })),
  valueFault: sometimes(10, fc.record({ kind: fc.constantFrom(...VALUE_FAULTS), at: fc.nat(5), k: fc.nat(DIMS - 1) })),
  /** Leading whitespace: nothing, a little, or around and over the cap. */
  pad: fc.constantFrom(0, 0, 0, 0, 100, 70_000, 300_000, 1_200_000),
  explicitCap: fc.constantFrom(undefined, 256 * 1024),
  encoding: fc.constantFrom('identity', 'gzip', 'deflate', 'br'),
  chunked: fc.boolean(),
  redirect: fc.oneof({ weight: 3, arbitrary: fc.constant('none' as const) }, { weight: 2, arbitrary: fc.constantFrom(...REDIRECTS) }),
  status: fc.oneof({ weight: 9, arbitrary: fc.constant(200) }, { weight: 1, arbitrary: fc.constantFrom(400, 401, 404) }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** The answer's items for `input`, with the scenario's faults applied. */
function items(s: Scenario, input: string[]): Record<string, unknown>[] {
  const n = input.length;
  const order = input.map((_, i) => i).sort((a, b) => s.order[a]! - s.order[b]! || a - b);
  const out: Record<string, unknown>[] = order.map((i) => ({ object: 'embedding', index: i, embedding: vectorOf(input[i]!, DIMS) }));
  const faulty = s.indexFault === null ? [] : s.indexFault.all ? out.map((_, i) => i) : [s.indexFault.at % n];
  // All indices are read before any is changed: `repeated` copies the next item's original one.
  const originals = out.map((item) => item.index as number);
  for (const at of faulty) {
    const item = out[at]!;
    const index = originals[at]!;
    switch (s.indexFault!.kind) {
      case 'string':
        item.index = String(index);
        break;
      case 'null':
        item.index = null;
        break;
      case 'missing':
        delete item.index;
        break;
      case 'fraction':
        item.index = index + 0.5;
        break;
      case 'negative':
        item.index = -1 - index;
        break;
      case 'out-of-range':
        item.index = n + index;
        break;
      case 'huge':
        item.index = 2 ** 53 + 2;
        break;
      case 'repeated':
        // n = 1: nothing to repeat, out of range instead; on every item: all 0 (shifting them all would be a valid, lying permutation).
        item.index = n === 1 ? 1 : s.indexFault!.all ? 0 : originals[(at + 1) % n]!;
        break;
      case 'boolean':
        item.index = true;
        break;
    }
  }
  // Unknown width, one item: a single other width is a legitimate width, not a fault.
  if (s.widthFault !== null && (s.knownDimensions || n > 1)) {
    const item = out[s.widthFault.at % n]!;
    const v = item.embedding as number[];
    item.embedding = s.widthFault.delta < 0 ? v.slice(0, DIMS - 1) : [...v, ...vectorOf('pad', s.widthFault.delta)];
  }
  if (s.valueFault !== null) {
    const v = [...(out[s.valueFault.at % n]!.embedding as unknown[])];
    v[s.valueFault.k % v.length] = { string: '0.5', null: null, 'too-big': 1e300, boolean: true }[s.valueFault.kind];
    out[s.valueFault.at % n]!.embedding = v;
  }
  if (s.countFault === 'drop') out.splice(0, 1);
  if (s.countFault === 'extra') out.push({ object: 'embedding', index: n, embedding: vectorOf('extra', DIMS) });
  return out;
}

/** Whether the scenario breaks the answer itself (not counting size, status or redirects). */
function broken(s: Scenario, n: number): boolean {
  return s.indexFault !== null || s.countFault !== 'none' || (s.widthFault !== null && (s.knownDimensions || n > 1)) || s.valueFault !== null;
}

const encode = (body: Buffer, encoding: string): Buffer =>
  encoding === 'gzip' ? gzipSync(body) : encoding === 'deflate' ? deflateSync(body) : encoding === 'br' ? brotliCompressSync(body) : body;

/** The default cap, as the README documents it. */
const defaultCap = (texts: number, dims: number | undefined): number => 1024 * 1024 + texts * (512 + 48 * (dims ?? 65_536));

function install(s: Scenario): { bodyBytes: () => number } {
  let bodyBytes = 0;
  const otherPort = new URL(other.origin).port;
  const redirectTo: Record<string, string> = {
    'same-307': '/v1/final',
    'same-308': '/v1/final',
    'same-twice': '/v1/hop',
    'same-302': '/v1/final',
    'same-303': '/v1/final',
    loop: '/v1/embeddings',
    'other-307': `${other.baseURL}/embeddings`,
    'other-308': `${other.baseURL}/embeddings`,
    'other-302': `${other.baseURL}/embeddings`,
    'other-host': `http://localhost:${otherPort}/v1/embeddings`,
  };
  const statusOf = (r: string): number => (r.endsWith('302') ? 302 : r.endsWith('303') ? 303 : r.endsWith('308') ? 308 : 307);
  main.handler = (req, res) => {
    if (s.redirect !== 'none' && req.path === '/v1/embeddings') return void res.writeHead(statusOf(s.redirect), { location: redirectTo[s.redirect]! }).end();
    if (s.redirect === 'same-twice' && req.path === '/v1/hop') return void res.writeHead(308, { location: '/v1/final' }).end();
    const plain = Buffer.from(
      s.status === 200 ? ' '.repeat(s.pad) + JSON.stringify({ object: 'list', model: 'fuzz', data: items(s, req.input) }) : JSON.stringify({ error: { message: 'refused' } }),
    );
    bodyBytes = plain.length;
    const body = encode(plain, s.encoding);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (s.encoding !== 'identity') headers['content-encoding'] = s.encoding;
    if (!s.chunked) headers['content-length'] = String(body.length);
    res.writeHead(s.status, headers);
    if (!s.chunked) return void res.end(body);
    for (let at = 0; at < body.length; at += 16 * 1024) res.write(body.subarray(at, at + 16 * 1024));
    res.end();
  };
  // Answers correctly, so that a request that got here would succeed: only its absence passes.
  other.handler = (req, res) => void res.writeHead(200).end(JSON.stringify({ data: req.input.map((t, index) => ({ index, embedding: vectorOf(t, DIMS) })) }));
  return { bodyBytes: () => bodyBytes };
}

describe('fuzz: HttpEmbedder against a hostile embeddings server', () => {
  it(
    'returns the right vector for every text or throws the typed error the answer deserves; nothing reaches another origin',
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          main.received.length = 0;
          other.received.length = 0;
          const served = install(s);
          const embedder = new HttpEmbedder({
            baseURL: main.baseURL,
            model: 'fuzz',
            apiKey: KEY,
            headers: { 'api-key': HEADER_KEY },
            ...(s.knownDimensions ? { dimensions: DIMS } : {}),
            normalized: false,
            batchSize: 8,
            maxRetries: 0,
            timeoutMs: 10_000,
            ...(s.explicitCap !== undefined ? { maxResponseBytes: s.explicitCap } : {}),
          });
          const outcome = await embedder.embed(s.texts).then(
            (vectors) => ({ vectors }),
            (error: unknown) => ({ error }),
          );

          expect(other.received).toEqual([]);
          const redirectRefused = !['none', 'same-307', 'same-308', 'same-twice'].includes(s.redirect);
          const cap = s.explicitCap ?? defaultCap(s.texts.length, s.knownDimensions ? DIMS : undefined);
          let expected: string | undefined;
          if (redirectRefused) expected = 'OCTX_EMBEDDER_RESPONSE_INVALID';
          else if (s.status !== 200) expected = 'OCTX_EMBEDDER_FAILED';
          else if (served.bodyBytes() > cap || broken(s, s.texts.length)) expected = 'OCTX_EMBEDDER_RESPONSE_INVALID';

          if ('vectors' in outcome) {
            expect(expected).toBeUndefined();
            expect(outcome.vectors.map((v) => Array.from(v))).toEqual(s.texts.map((t) => Array.from(Float32Array.from(vectorOf(t, DIMS)))));
          } else {
            expect(outcome.error).toBeInstanceOf(OctxError);
            const e = outcome.error as OctxError;
            expect([e.code, e.message]).toEqual([expected, expect.stringContaining(`${main.baseURL}/embeddings`) as string]);
            expect(e.message).not.toContain(KEY);
            expect(e.message).not.toContain(HEADER_KEY);
          }
          // Every request went to the main origin, with the key.
          for (const r of main.received) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
        }),
        fuzzParameters(SHORT_RUNS),
      );
    },
    fuzzTimeout(SHORT_RUNS, 200),
  );
});
