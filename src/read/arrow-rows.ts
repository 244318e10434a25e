/**
 * The rows of a vector target file, read the one way the SDK reads Arrow: by the validator's
 * reader (`readArrowVectorBatches`: IPC file framing, the schema against the column table, the
 * batch, row, value and dimension limits) with the validator's row checks (`vector-row-checks.ts`:
 * no nulls, finite values). What the validator would report as the file's first issue is thrown
 * here as an `OctxError` with that issue, so `openPackage().vectors()` and the working-folder
 * loader refuse a file with the validator's code and message. Coverage and duplicate ids are not
 * checked here: they need the records (the validator's `VectorTargetChecker`, the builder's
 * `addVector`).
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { OctxError, type OctxIssue } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import type { VectorRow } from '../model/vector-format.js';
import { ByteReader } from './arrow-byte-reader.js';
import { readArrowVectorBatches } from './arrow-file.js';
import { allFinite, hasNulls, nullDigestIssue, rowNullIssue, rowValueIssue } from './vector-row-checks.js';

/** Options of {@link readVectorRows}. */
export interface VectorRowsOptions {
  /** Package path of the file (`vectors/chunks.arrow`), for issues. */
  readonly path: string;
  /** Exact file size in bytes. */
  readonly size: number;
  /** Limits (batches, rows, values, dimension, metadata size). */
  readonly limits: ArchiveLimits;
  /** `config.dimensions`, when known: the schema's width must equal it. */
  readonly expectedDimension?: number;
  /** The last `maxBytes` bytes of the same file, for a file whose schema is only in its footer. */
  readonly tail?: (maxBytes: number) => Promise<Buffer>;
}

function refused(found: OctxIssue): OctxError {
  return OctxError.of(found);
}

/**
 * Yields the rows of the Arrow file streamed by `source`, checked (see the module comment).
 * `vector` views the current batch: copy it to keep it past the next row. The source is read to
 * its end, so a digest computed over the stream completes.
 * @throws OctxError the validator's code of the file's first problem (`OCTX_VECTOR_ARROW_INVALID`,
 *   `OCTX_VECTOR_COLUMNS_REQUIRED`, `OCTX_VECTOR_RECORD_ID_SCHEMA`, `OCTX_VECTOR_VALUE_SCHEMA`,
 *   `OCTX_VECTOR_DIMENSION_INVALID`, `OCTX_VECTOR_COMPRESSION_UNSUPPORTED`, `OCTX_RESOURCE_LIMIT`,
 *   `OCTX_VECTOR_NULL`, `OCTX_VECTOR_VALUE_INVALID`, `OCTX_VECTOR_INPUT_SHA256_INVALID`);
 *   errors of the source propagate unchanged
 */
export async function* readVectorRows(source: AsyncIterable<Buffer>, options: VectorRowsOptions): AsyncGenerator<VectorRow, void, undefined> {
  const { path } = options;
  const reader = new ByteReader(source[Symbol.asyncIterator](), path);
  const batches = readArrowVectorBatches(reader, {
    path,
    size: options.size,
    limits: options.limits,
    onSchema: (layout) => {
      if (layout.inputSha256Problem !== undefined) throw refused({ code: 'OCTX_VECTOR_INPUT_SHA256_INVALID', severity: 'error', path, message: layout.inputSha256Problem });
    },
    ...(options.expectedDimension === undefined ? {} : { expectedDimension: options.expectedDimension }),
    ...(options.tail === undefined ? {} : { tail: options.tail }),
  });
  let rowNo = 0;
  for await (const b of batches) {
    const dim = b.dimension;
    const checkNulls = hasNulls(b);
    const anyBad = !allFinite(b.values);
    const digests = b.inputSha256;
    for (let r = 0; r < b.length; r++, rowNo++) {
      if (checkNulls) {
        const nullIssue = rowNullIssue(b, r, rowNo, path);
        if (nullIssue !== undefined) throw refused(nullIssue);
      }
      if (anyBad) {
        const valueIssue = rowValueIssue(b, r, rowNo, path);
        if (valueIssue !== undefined) throw refused(valueIssue);
      }
      const recordId = b.recordId(r)!;
      const vector = b.values.subarray(r * dim, (r + 1) * dim);
      if (digests === undefined) {
        yield { recordId, vector };
        continue;
      }
      const inputSha256 = digests.text(r);
      if (inputSha256 === null) throw refused(nullDigestIssue(rowNo, recordId, path));
      yield { recordId, vector, inputSha256 };
    }
  }
  await reader.drain();
}

/** The last `maxBytes` bytes of the file at `file` (all of it when shorter), one positioned read. */
async function fileTail(file: string, size: number, maxBytes: number): Promise<Buffer> {
  const length = Math.min(size, maxBytes);
  const handle = await open(file, 'r');
  try {
    const out = Buffer.alloc(length);
    let at = 0;
    while (at < length) {
      const { bytesRead } = await handle.read(out, at, length - at, size - length + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return out.subarray(0, at);
  } finally {
    await handle.close();
  }
}

/**
 * {@link readVectorRows} over a file on disk (a working folder's `vectors/<target>.arrow`):
 * `path` names it in issues.
 */
export async function* readVectorFileRows(file: string, options: Omit<VectorRowsOptions, 'size' | 'tail'>): AsyncGenerator<VectorRow, void, undefined> {
  const size = (await stat(file)).size;
  const stream = createReadStream(file);
  try {
    yield* readVectorRows(stream as AsyncIterable<Buffer>, { ...options, size, tail: (maxBytes) => fileTail(file, size, maxBytes) });
  } finally {
    stream.destroy();
  }
}
