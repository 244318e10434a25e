/**
 * Synthetic but realistic corpus, generated record by record from a seeded PRNG (mulberry32):
 * nothing is held in memory beyond the current document and the list of entity ids, so the
 * same stream can feed the exporter and the baseline and both see byte-identical content.
 *
 * Shape (per issue):
 * - documents of varied length: chunk count per document is log-normal with mean 40 (1…400);
 *   the Markdown body is the document's chunks joined by blank lines under a `# title`, with a
 *   complete frontmatter (`type`, `title`, `octx.document_id`), so the builder keeps the bytes
 *   as given and the baseline can produce the identical file;
 * - chunks of 200–1,500 characters (uniform) of mixed Chinese and English text (≈60 % Chinese
 *   sentences, with English terms inside Chinese sentences), Zipf-like word frequencies;
 * - ≈0.3 events and ≈0.1 entities per chunk (cumulative targets, exact up to rounding);
 * - relations with full coverage: every chunk has a primary event of its document (20 % of
 *   chunks a second one), every event has ≥1 chunk and 1–3 entities, every entity ≥1 event;
 * - a two-level event hierarchy: ≈35 % of each document's events are top level, the others are
 *   `level: 1` children of a top-level event of the same document;
 * - one L2-normalised float32 vector per chunk, event and entity (384 dimensions by default);
 * - counts per chunk, chunk length and dimensions are per size (CorpusSpec, bench/common.ts SIZE_SPECS);
 * - ids are UUIDv7-shaped (version 7, RFC variant), unique by construction (a sequence number
 *   in the timestamp and rand_a bits) and deterministic for a seed.
 */

/** Per-record field order is the order the SDK writes (RECORD_FIELDS), so JSON.stringify of
 *  these objects yields exactly the JSONL line the exporter writes. */
export interface ChunkRec {
  readonly id: string;
  readonly document_id: string;
  readonly ordinal: number;
  readonly text: string;
}
export interface EventRec {
  readonly id: string;
  readonly title: string;
  readonly content: string;
  readonly summary: string;
  readonly category: string;
  readonly parent_id?: string;
  readonly level?: number;
}
export interface EntityRec {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly description: string;
}
export interface ChunkEventRec {
  readonly chunk_id: string;
  readonly event_id: string;
}
export interface EventEntityRec {
  readonly event_id: string;
  readonly entity_id: string;
  readonly weight: number;
}
export interface DocumentRec {
  /** Path relative to `knowledge/`. */
  readonly path: string;
  readonly id: string;
  readonly markdown: string;
}
export type Target = 'chunks' | 'events' | 'entities';

/** Receives the corpus in generation order. Vectors are reused buffers: copy synchronously. */
export interface CorpusSink {
  document(doc: DocumentRec): void;
  chunk(r: ChunkRec): void;
  event(r: EventRec): void;
  entity(r: EntityRec): void;
  chunkEvent(l: ChunkEventRec): void;
  eventEntity(l: EventEntityRec): void;
  vector(target: Target, id: string, v: Float32Array): void;
  /** After each document's records (an await point for sinks with backpressure). */
  endDocument?(): void | Promise<void>;
}

/**
 * What to generate. Every field but `chunks` and `seed` defaults to the S/M/L shape, and a
 * default draws exactly the random numbers it always did, so S/M/L bytes never change.
 */
export interface CorpusSpec {
  readonly chunks: number;
  readonly seed: number;
  /** Vector dimensions of all three targets (default {@link DIMENSIONS}). */
  readonly dimensions?: number;
  /** Cumulative events per chunk (default {@link EVENTS_PER_CHUNK}). */
  readonly eventsPerChunk?: number;
  /** Cumulative entities per chunk (default {@link ENTITIES_PER_CHUNK}). */
  readonly entitiesPerChunk?: number;
  /** Chunk text length in characters, uniform in [min, max] (default 200–1,500). */
  readonly chunkChars?: { readonly min: number; readonly max: number };
  /**
   * Where every text field draws its words from: `mixed` (default), the Zipf-like Chinese and
   * English vocabulary of thousands of words; `low`, {@link LOW_WORDS} only (repetitive text,
   * cheap to deflate).
   */
  readonly vocabulary?: 'mixed' | 'low';
}

export interface CorpusCounts {
  documents: number;
  chunks: number;
  events: number;
  entities: number;
  chunkEvents: number;
  eventEntities: number;
  vectors: number;
}

export const DIMENSIONS = 384;
export const EVENTS_PER_CHUNK = 0.3;
export const ENTITIES_PER_CHUNK = 0.1;
export const MEAN_CHUNKS_PER_DOCUMENT = 40;

/** The vector config every side uses for `dimensions` (fingerprinted by the SDK). */
export function vectorConfig(dimensions: number = DIMENSIONS) {
  return { model: `bench/synthetic-${dimensions}`, revision: '1', dimensions, normalized: true, pooling: 'mean' } as const;
}

/** The vector config of the 384-dimension sizes. */
export const VECTOR_CONFIG = vectorConfig(DIMENSIONS);

/** mulberry32: tiny, fast, good enough for synthetic data; state is a plain field for speed. */
export class Rng {
  s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** Standard normal (Box–Muller, one value per call). */
  gauss(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

// ── vocabulary (fixed, independent of --seed) ─────────────────────────────────────────────

const EN_COMMON = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her ' +
  'she there been one all we their has would when if so no what can more out up into time only new about data model system ' +
  'user network service query index vector release package document event entity search cache storage cluster version'
).split(' ');
const EN_SYLLABLES = 'ka ri to mo na shi ven tal or pe lin dor ax el um qua ser ti ban cor mi ra ge sol tra phi on ex der bra'.split(' ');
const EN_PROPER = 'Alice Bob Chen Li Wang Zhang Liu Yang Huang Zhao Zhou Wu Xu Sun Ma Zhu Hu Guo He Lin Smith Jones Taylor Brown Müller Garcia Tanaka Kim Nguyen Patel'.split(' ');
const ENTITY_TYPES = ['PERSON', 'ORGANIZATION', 'LOCATION', 'PRODUCT', 'TECHNOLOGY', 'CONCEPT', 'EVENT', 'WORK'];
const EVENT_CATEGORIES = ['decision', 'release', 'incident', 'meeting', 'discovery', 'migration', 'battle', 'agreement', 'publication', 'policy'];
const CJK_START = 0x4e00;
const CJK_SPAN = 0x9fa5 - 0x4e00;

function buildVocab(): { zh: string[]; en: string[] } {
  const r = new Rng(0x5eed1234);
  // 2,500 "common" characters scattered over the CJK block.
  const chars: string[] = [];
  for (let i = 0; i < 2500; i++) chars.push(String.fromCharCode(CJK_START + ((i * 7919 + 13) % CJK_SPAN)));
  const zh: string[] = [];
  for (let i = 0; i < 4000; i++) {
    const len = 1 + (r.next() < 0.7 ? 1 : r.int(3)); // mostly two-character words
    let w = '';
    for (let k = 0; k < len; k++) w += chars[Math.floor(chars.length * r.next() ** 2)]!;
    zh.push(w);
  }
  const en: string[] = [...EN_COMMON];
  while (en.length < 3000) {
    const n = 1 + r.int(3);
    let w = '';
    for (let k = 0; k < n; k++) w += EN_SYLLABLES[r.int(EN_SYLLABLES.length)]!;
    en.push(w);
  }
  return { zh, en };
}
const VOCAB = buildVocab();
const ZH = VOCAB.zh;
const EN = VOCAB.en;

/** Zipf-like pick: low indexes (frequent words) dominate. */
function pick(rng: Rng, list: readonly string[]): string {
  const x = rng.next();
  return list[Math.floor(list.length * x * x)]!;
}

function zhSentence(rng: Rng): string {
  const n = 4 + rng.int(14);
  let s = '';
  for (let i = 0; i < n; i++) {
    if (rng.next() < 0.08) s += ` ${pick(rng, EN)} `;
    else s += pick(rng, ZH);
    if (i > 0 && i < n - 1 && rng.next() < 0.12) s += '，';
  }
  return `${s}。`;
}

function enSentence(rng: Rng): string {
  const n = 5 + rng.int(14);
  let s = pick(rng, EN);
  s = s.charAt(0).toUpperCase() + s.slice(1);
  for (let i = 1; i < n; i++) s += ` ${pick(rng, EN)}`;
  return `${s}. `;
}

/**
 * A fixed pool of sentences (built once from the fixed vocabulary seed). Chunk text draws whole
 * sentences from it: ~30 draws per chunk instead of ~400 word draws, which keeps generation a
 * small share of the run. With 65,536 sentences, a repeat inside deflate's 32 KiB window is
 * rare (~1 %), so compressibility stays that of word-level text.
 */
const SENTENCE_POOL_SIZE = 65_536;
const SENTENCES: string[] = (() => {
  const r = new Rng(0x5e47e4ce);
  const out: string[] = [];
  for (let i = 0; i < SENTENCE_POOL_SIZE; i++) {
    const s = r.next() < 0.6 ? zhSentence(r) : enSentence(r);
    // Built with +=, so a rope: flatten once here, not on every join below.
    out.push(Buffer.from(s, 'utf8').toString('utf8'));
  }
  return out;
})();

/** Text of `length` characters: whole sentences drawn from `pool` (of {@link SENTENCE_POOL_SIZE}). */
function poolText(rng: Rng, length: number, pool: readonly string[]): string {
  const parts: string[] = [];
  let n = 0;
  while (n < length) {
    const s = pool[rng.u32() & (SENTENCE_POOL_SIZE - 1)]!;
    parts.push(s);
    n += s.length;
  }
  return parts.join('').slice(0, length).trim();
}

function mixedText(rng: Rng, length: number): string {
  return poolText(rng, length, SENTENCES);
}

/** The vocabulary of `vocabulary: 'low'` corpora: 15 words. */
export const LOW_WORDS: readonly string[] = 'data model system user query index vector release package document event entity search cache storage'.split(' ');

/** Sentences of 5–18 words of {@link LOW_WORDS}, built once; drawn like {@link SENTENCES}. */
const LOW_SENTENCES: string[] = (() => {
  const r = new Rng(0x10c4b);
  const out: string[] = [];
  for (let i = 0; i < SENTENCE_POOL_SIZE; i++) {
    const n = 5 + r.int(14);
    const words: string[] = [];
    for (let k = 0; k < n; k++) words.push(LOW_WORDS[r.int(LOW_WORDS.length)]!);
    out.push(`${words.join(' ')}. `);
  }
  return out;
})();

/** Text of `length` characters from the low vocabulary. */
function lowText(rng: Rng, length: number): string {
  return poolText(rng, length, LOW_SENTENCES);
}

/** A title or name of three low-vocabulary words. */
function lowPhrase(rng: Rng): string {
  return `${LOW_WORDS[rng.int(LOW_WORDS.length)]!} ${LOW_WORDS[rng.int(LOW_WORDS.length)]!} ${LOW_WORDS[rng.int(LOW_WORDS.length)]!}`;
}

function shortPhrase(rng: Rng): string {
  return rng.next() < 0.6 ? `${pick(rng, ZH)}${pick(rng, ZH)}${pick(rng, ZH)}` : `${pick(rng, EN)} ${pick(rng, EN)} ${pick(rng, EN)}`;
}

function entityName(rng: Rng, seq: number): string {
  // A sequence suffix keeps names varied like real entity tables; realism, not uniqueness.
  const base = rng.next() < 0.5 ? `${pick(rng, ZH)}${pick(rng, ZH)}` : `${EN_PROPER[rng.int(EN_PROPER.length)]!} ${pick(rng, EN)}`;
  return `${base} ${seq % 997}`;
}

// ── ids ───────────────────────────────────────────────────────────────────────────────────

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const hex4 = (n: number): string => HEX2[(n >>> 8) & 255]! + HEX2[n & 255]!;
const hex8 = (n: number): string => HEX2[n >>> 24]! + HEX2[(n >>> 16) & 255]! + HEX2[(n >>> 8) & 255]! + HEX2[n & 255]!;
const BASE_MS = Date.UTC(2026, 0, 1);

/** Canonical lowercase UUIDv7, unique per `seq`: 4,096 ids per millisecond, counter in rand_a. */
export function seqUuidV7(rng: Rng, seq: number): string {
  const ms = BASE_MS + Math.floor(seq / 4096);
  const msHi = Math.floor(ms / 65536) >>> 0;
  const msLo = ms % 65536;
  const a = rng.u32();
  const b = rng.u32();
  return `${hex8(msHi)}-${hex4(msLo)}-${hex4(0x7000 | (seq & 0xfff))}-${hex4(0x8000 | (a & 0x3fff))}-${hex4(a >>> 16)}${hex8(b)}`;
}

/** Fills `v` with a random L2-normalised vector. */
function fillVector(rng: Rng, v: Float32Array): void {
  let s = rng.s;
  let ss = 0;
  for (let i = 0; i < v.length; i++) {
    let t = (s = (s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const x = ((t ^ (t >>> 14)) >>> 0) / 2147483648 - 1;
    v[i] = x;
    ss += x * x;
  }
  rng.s = s;
  const inv = 1 / Math.sqrt(ss);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
}

// ── the generator ─────────────────────────────────────────────────────────────────────────

/**
 * Streams the corpus into `sink`, one document at a time. Per document, the order is: the
 * document, its chunks (each followed by its vector), its events (top level first), the
 * entities it introduces, then its chunk→event and event→entity links.
 */
export async function generateCorpus(spec: CorpusSpec, sink: CorpusSink): Promise<CorpusCounts> {
  const rng = new Rng(spec.seed ^ 0x9e3779b9);
  const dims = spec.dimensions ?? DIMENSIONS;
  const eventsPerChunk = spec.eventsPerChunk ?? EVENTS_PER_CHUNK;
  const entitiesPerChunk = spec.entitiesPerChunk ?? ENTITIES_PER_CHUNK;
  const minChars = spec.chunkChars?.min ?? 200;
  const charSpan = (spec.chunkChars?.max ?? 1500) - minChars + 1;
  // A low-vocabulary corpus draws its words from a second generator, after the mixed text's
  // draws are made and dropped: ids, lengths, counts and links stay exactly W's.
  const lowRng = spec.vocabulary === 'low' ? new Rng(spec.seed ^ 0x10c4b) : undefined;
  const text = (r: Rng, length: number): string => {
    const mixed = mixedText(r, length);
    return lowRng ? lowText(lowRng, length) : mixed;
  };
  const phrase = (r: Rng): string => {
    const mixed = shortPhrase(r);
    return lowRng ? lowPhrase(lowRng) : mixed;
  };
  const vec = new Float32Array(dims);
  const counts: CorpusCounts = { documents: 0, chunks: 0, events: 0, entities: 0, chunkEvents: 0, eventEntities: 0, vectors: 0 };
  const entityIds: string[] = [];
  let seq = 0;
  const texts: string[] = [];
  const chunkIds: string[] = [];
  const eventIds: string[] = [];

  while (counts.chunks < spec.chunks) {
    // ── document and chunks
    const lognormal = Math.exp(0.9 * rng.gauss() - 0.405); // mean 1
    const n = Math.min(spec.chunks - counts.chunks, Math.max(1, Math.min(400, Math.round(MEAN_CHUNKS_PER_DOCUMENT * lognormal))));
    const d = counts.documents;
    const docId = seqUuidV7(rng, seq++);
    const title = `Doc ${d} ${phrase(rng)}`;
    texts.length = 0;
    chunkIds.length = 0;
    for (let i = 0; i < n; i++) {
      texts.push(text(rng, minChars + rng.int(charSpan)));
      chunkIds.push(seqUuidV7(rng, seq++));
    }
    const markdown = `---\ntype: "Document"\ntitle: ${JSON.stringify(title)}\noctx:\n  document_id: "${docId}"\n---\n\n# ${title}\n\n${texts.join('\n\n')}\n`;
    sink.document({ path: `topic-${String(d % 50).padStart(2, '0')}/doc-${String(d).padStart(7, '0')}.md`, id: docId, markdown });
    counts.documents++;
    for (let i = 0; i < n; i++) {
      const id = chunkIds[i]!;
      sink.chunk({ id, document_id: docId, ordinal: i, text: texts[i]! });
      fillVector(rng, vec);
      sink.vector('chunks', id, vec);
    }
    counts.chunks += n;
    counts.vectors += n;

    // ── events: two-level hierarchy within the document
    const e = Math.min(n, Math.max(1, Math.floor(counts.chunks * eventsPerChunk) - counts.events));
    const top = Math.max(1, Math.round(e * 0.35));
    eventIds.length = 0;
    for (let k = 0; k < e; k++) {
      const id = seqUuidV7(rng, seq++);
      eventIds.push(id);
      const base = {
        id,
        title: phrase(rng),
        content: text(rng, 80 + rng.int(240)),
        summary: text(rng, 30 + rng.int(60)),
        category: EVENT_CATEGORIES[rng.int(EVENT_CATEGORIES.length)]!,
      };
      const rec: EventRec = k < top ? base : { ...base, parent_id: eventIds[rng.int(top)]!, level: 1 };
      sink.event(rec);
      fillVector(rng, vec);
      sink.vector('events', id, vec);
    }
    counts.events += e;
    counts.vectors += e;

    // ── entities introduced by this document (the first document introduces at least one)
    const fresh = Math.max(counts.entities === 0 ? 1 : 0, Math.floor(counts.chunks * entitiesPerChunk) - counts.entities);
    const firstFresh = entityIds.length;
    for (let j = 0; j < fresh; j++) {
      const id = seqUuidV7(rng, seq++);
      entityIds.push(id);
      const mixedName = entityName(rng, counts.entities + j);
      const name = lowRng ? `${lowPhrase(lowRng)} ${(counts.entities + j) % 997}` : mixedName;
      sink.entity({ id, name, type: ENTITY_TYPES[rng.int(ENTITY_TYPES.length)]!, description: text(rng, 40 + rng.int(120)) });
      fillVector(rng, vec);
      sink.vector('entities', id, vec);
    }
    counts.entities += fresh;
    counts.vectors += fresh;

    // ── chunk → event links: a primary event per chunk (covers every event), 20 % a second one
    for (let i = 0; i < n; i++) {
      const primary = Math.floor((i * e) / n);
      sink.chunkEvent({ chunk_id: chunkIds[i]!, event_id: eventIds[primary]! });
      counts.chunkEvents++;
      if (e > 1 && rng.next() < 0.2) {
        let other = rng.int(e - 1);
        if (other >= primary) other++;
        sink.chunkEvent({ chunk_id: chunkIds[i]!, event_id: eventIds[other]! });
        counts.chunkEvents++;
      }
    }

    // ── event → entity links: fresh entities spread over the events (covers every entity),
    //    then each event is topped up to 1–3 distinct entities from the whole pool
    const chosen: number[][] = eventIds.map(() => []);
    for (let j = 0; j < fresh; j++) chosen[j % e]!.push(firstFresh + j);
    for (let k = 0; k < e; k++) {
      const mine = chosen[k]!;
      const want = Math.max(mine.length, 1 + rng.int(3));
      let guard = 0;
      while (mine.length < want && guard++ < 20) {
        const x = rng.next();
        const idx = Math.floor(entityIds.length * x * x);
        if (!mine.includes(idx)) mine.push(idx);
      }
      for (const idx of mine) {
        sink.eventEntity({ event_id: eventIds[k]!, entity_id: entityIds[idx]!, weight: Math.round(rng.next() * 1000) / 1000 });
        counts.eventEntities++;
      }
    }
    const p = sink.endDocument?.();
    if (p) await p;
  }
  return counts;
}

/** Records as the benchmark counts them: documents + every JSONL line. */
export function recordCount(c: CorpusCounts): number {
  return c.documents + c.chunks + c.events + c.entities + c.chunkEvents + c.eventEntities;
}
