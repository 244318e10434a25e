/**
 * What a caller of the validator may receive of what it decodes, so that a package is read once
 * when the caller needs its content as well as its verdict (a merge of shards). The validator
 * hands over every structure record it parsed and every Arrow batch it read, as it goes, before
 * its verdict is known: a caller keeps nothing of a package the report then calls invalid.
 */
import type { RecordKind } from '../model/record-kinds.js';
import type { VectorTarget } from '../vectors/targets.js';
import type { ArrowVectorBatch } from './arrow-batch.js';

/** Receives the content of a package while it is validated (see the module comment). */
export interface ValidationSink {
  /**
   * One parsed line of a structure file (in file order; also a line whose record breaks its
   * schema). `bytes[start … end)` is the line's UTF-8 text, valid only during the call.
   */
  record(kind: RecordKind, record: Record<string, unknown>, bytes: Buffer, start: number, end: number, line: number): void;
  /** One batch of a vector target, in file order; its buffers are valid only during the call. */
  vectors(target: VectorTarget, batch: ArrowVectorBatch): void;
}
