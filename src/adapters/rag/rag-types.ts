/** The public types of the RAG adapter: its options, its inputs' callbacks and its report. */
import type { JsonValue } from '../../model/json.js';
import type { AdapterWarnings } from '../shared/adapter-report.js';
import type { InputLocation } from '../shared/input-issues.js';

/** A caller's original document, already converted to Markdown. */
export interface RagOriginalDocument {
  /** The seed 002 `doc_id` it belongs to. */
  readonly docId: string;
  /** The Markdown text (or UTF-8 bytes). Frontmatter it already has is kept. */
  readonly markdown: string | Uint8Array;
  /** Package path under `knowledge/` (default: from `doc_meta.doc_name`). */
  readonly path?: string;
}

/** The `doc_meta` fields a resolver gets. */
export interface RagDocMeta {
  readonly doc_name: string;
  readonly doc_type: string;
}

/** Returns a document's Markdown for a `doc_id`, or `undefined` when there is no original. */
export type RagDocumentResolver = (docId: string, docMeta: RagDocMeta) => string | Uint8Array | undefined | Promise<string | Uint8Array | undefined>;

/** Options of the opt-in document rebuild. */
export interface RebuildDocumentsOptions {
  /** Text put between consecutive chunk texts (default `"\n\n"`). Recorded in the frontmatter. */
  readonly separator?: string;
}

/** Where an input object came from, for error messages (the CLI passes file and line). */
export type RagLocator = (kind: 'chunk' | 'vector', index: number) => InputLocation | undefined;

/** Options of {@link fromRag}. */
export interface FromRagOptions {
  /** Seed 002 Chunk objects. */
  readonly chunks: readonly unknown[];
  /** Seed 002 Vector objects (`vector_id` = `chunk_id`). */
  readonly vectors?: readonly unknown[];
  /** The caller's original documents, as a list or a resolver by `doc_id`. */
  readonly documents?: readonly RagOriginalDocument[] | RagDocumentResolver;
  /**
   * Whether the vectors were L2-normalised when generated. Seed 002 does not say, so it must come
   * from the caller whenever `vectors` are given; it is never guessed.
   */
  readonly normalized?: boolean;
  /**
   * Further embedding-pipeline settings for `vectors/config.json` (`revision`, `pooling`,
   * `input_template`, …). `model` and `dimensions` come from the vectors' `vector_meta`.
   */
  readonly vectorConfig?: Readonly<Record<string, JsonValue>>;
  /**
   * Opt-in: rebuild the body of a document that has no original by joining its chunks' texts in
   * `chunk_index` order. Only allowed when the chunks are a complete, non-overlapping partition
   * (indexes 0…n-1, no hierarchical chunks, no overlapping windows); the rebuild is recorded in
   * the document's frontmatter (`x-rag.body: rebuilt-from-chunks`).
   */
  readonly rebuildDocuments?: boolean | RebuildDocumentsOptions;
  /** Package path for a document (default: `doc_meta.doc_name` with `.md`). */
  readonly documentPath?: (docId: string, docMeta: RagDocMeta) => string;
  /** Frontmatter `type` for documents that have none (default `Document`). */
  readonly documentType?: string;
  /** Locates input objects for error messages. */
  readonly locate?: RagLocator;
  /**
   * Hand complete vectors to the builder (default true). The CLI passes `false` because a
   * seed 002-only package is documents-only; the vectors are still checked and reported.
   */
  readonly addVectors?: boolean;
}

/** One document the adapter added. */
export interface RagDocumentOutcome {
  readonly path: string;
  readonly documentId: string;
  readonly body: 'original' | 'rebuilt-from-chunks';
  readonly chunks: number;
}

/** A count with the first few source ids. */
export interface RagSample {
  readonly count: number;
  readonly sample: readonly string[];
}

/** What happened to the vectors. */
export type RagVectorsOutcome =
  | { readonly status: 'none'; readonly reason: string }
  | {
      /** Every chunk has a fresh status-1 vector from one pipeline. */
      readonly status: 'complete';
      /** Whether they were handed to the builder (`addVectors`, default true). */
      readonly added: boolean;
      readonly target: 'chunks';
      readonly rows: number;
      readonly model: string;
      readonly dimensions: number;
      readonly normalized: boolean;
      readonly fingerprint: string;
      /** Vectors given for chunks that are not in the input (ignored). */
      readonly unknown: RagSample;
    }
  | {
      readonly status: 'omitted';
      readonly reason: 'incomplete' | 'mixed-pipelines';
      readonly message: string;
      readonly given: number;
      readonly fresh: number;
      /** `text_md5` differs from the MD5 of `chunk_text`: the vector embeds other text. */
      readonly stale: RagSample;
      /** `status` 0 (disabled) or 2 (pending update). */
      readonly inactive: RagSample;
      /** Chunks without any vector. */
      readonly missing: RagSample;
      readonly unknown: RagSample;
    };

/** What {@link fromRag} mapped, and what it left out and why. */
export interface RagAdapterReport extends AdapterWarnings {
  /** The distinct `kb_id`s seen (one asset should hold one knowledge base). */
  readonly kbIds: readonly string[];
  readonly documents: { readonly count: number; readonly fromOriginals: number; readonly rebuilt: number; readonly byDocId: Readonly<Record<string, RagDocumentOutcome>> };
  readonly chunks: { readonly count: number };
  /** Source `chunk_id` → OCTX chunk id, for linking real extracted events to the chunks. */
  readonly chunkIds: Readonly<Record<string, string>>;
  readonly vectors: RagVectorsOutcome;
  /**
   * Seed 002 has no events or entities: on its own the result is documents-only. The chunks are
   * in the builder; a caller with a real extraction run can link events to `chunkIds`.
   */
  readonly structure: { readonly status: 'documents-only'; readonly reason: string };
  /** Secret-looking keys dropped from `extend` and unknown fields (paths only). */
  readonly scrubbedKeys: readonly string[];
}
