/**
 * Input digests recomputed while the structure JSONL streams by: the
 * validator reads every record of `data/chunks.jsonl` (and events, entities) once anyway to
 * check its rules, so when the vector config declares a recipe this library can recompute
 * (`input_hash` + `input_template`), each record's rendered, normalised text is hashed in that
 * same pass. The Arrow target's `input_sha256` column is later compared with these digests
 * (`VectorTargetChecker.compareInputs`) instead of streaming and parsing the JSONL a second time.
 *
 * Memory: 32 bytes of digest and 4 bytes of line per record of the kind; a record whose text
 * cannot be rendered keeps its reason (rare) instead of a digest.
 */
import { hash } from 'node:crypto';
import { OctxError } from '../model/errors.js';
import { normalizeEmbeddingInput } from '../vectors/input-digest.js';
import type { InputTemplateRenderer } from '../vectors/template.js';

/** Why one record has no digest: its input could not be rendered. */
export interface InputRenderFailure {
  /** The rendered input is above `limits.maxRenderedInputBytes` (a limit, not a mismatch). */
  readonly limit: boolean;
  /** The renderer's message. */
  readonly why: string;
}

/** SHA-256 of each record's rendered input, by record index of one kind. */
export class InputDigests {
  private digests = new Uint8Array(32 * 1024);
  private lines = new Int32Array(1024);
  private readonly failures = new Map<number, InputRenderFailure>();
  /** Records seen (highest index + 1). */
  count = 0;

  /** @param render the config's template for the target, as {@link inputDigestRecipe} builds it */
  constructor(private readonly render: InputTemplateRenderer) {}

  /** Renders, normalises and hashes the record registered at `index` (found at `line`). */
  add(index: number, record: object, id: string, line: number): void {
    if (index + 1 > this.lines.length) {
      const size = Math.max(index + 1, this.lines.length * 2);
      const digests = new Uint8Array(size * 32);
      digests.set(this.digests);
      this.digests = digests;
      const lines = new Int32Array(size);
      lines.set(this.lines);
      this.lines = lines;
    }
    this.lines[index] = line;
    if (index + 1 > this.count) this.count = index + 1;
    let text: string;
    try {
      text = normalizeEmbeddingInput(this.render(record, id));
    } catch (e) {
      this.failures.set(index, { limit: e instanceof OctxError && e.code === 'OCTX_RESOURCE_LIMIT', why: e instanceof Error ? e.message : String(e) });
      return;
    }
    this.digests.set(hash('sha256', text, 'buffer'), index * 32);
  }

  /** JSONL line of the record at `index`. */
  line(index: number): number {
    return this.lines[index]!;
  }

  /** Why the record at `index` has no digest, or `undefined` when it has one. */
  failure(index: number): InputRenderFailure | undefined {
    return this.failures.size === 0 ? undefined : this.failures.get(index);
  }

  /** The 32-byte digest of the record at `index` (a view; valid only when it has no failure). */
  digest(index: number): Uint8Array {
    return this.digests.subarray(index * 32, index * 32 + 32);
  }
}
