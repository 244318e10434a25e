/**
 * Streaming reader for the vector targets: Arrow IPC **file** format (OCTX-REFERENCE §10.6).
 *
 * apache-arrow can read the file format only by loading the whole file (`RecordBatchReader.from`
 * on a byte stream that starts with the `ARROW1` magic buffers everything, and the random-access
 * reader needs a file handle). So the framing is done here, one message at a time: the magic is
 * checked and dropped, every message header is decoded with `Message.decode` and checked (one
 * schema first — or none, as apache-arrow's own file writer does, which the IPC file format allows:
 * then the schema is read from the footer, through a second read of the file's tail —, only
 * schema/dictionary/record-batch messages, **no body compression** — checked
 * on the header before the body is touched — and the batch/row/value limits), and the verified
 * messages are handed to apache-arrow's streaming `RecordBatchReader`, which decodes one record
 * batch at a time. After the end-of-stream marker the footer is read and must list exactly the
 * batches that were streamed, at the offsets where they were found, so a reader that trusts the
 * footer (pyarrow) sees the same data as this one.
 *
 * Its parts: the bytes (`arrow-byte-reader.ts`), the footer (`arrow-footer.ts`), the schema
 * against the column table (`arrow-schema-check.ts`), one batch's columns (`arrow-batch.ts`).
 * The validator checks the batches' rows itself (`vectors-check.ts`); every other reader takes
 * checked rows from `arrow-rows.ts`.
 */
import { Message, MessageHeader, RecordBatchReader, type Schema } from 'apache-arrow';
import type { OctxCode } from '../model/codes.js';
import { OctxError } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import type { ByteReader } from './arrow-byte-reader.js';
import { toBatch, type ArrowVectorBatch, type DataLike } from './arrow-batch.js';
import { MAGIC_TAIL, MAX_FOOTER_BYTES, footerSchemaMessage, footerTail, parseFooterBlocks, sameBlocks, type Block } from './arrow-footer.js';
import { checkVectorSchema, type ArrowVectorSchema } from './arrow-schema-check.js';

/** The file magic at the start: `ARROW1` and two padding bytes. */
const MAGIC_HEAD = Buffer.from('ARROW1\0\0', 'latin1');
const EOS = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/** Options of {@link readArrowVectorBatches}. */
export interface ArrowReadOptions {
  /** Package path, for issues. */
  readonly path: string;
  /** Exact file size in bytes. */
  readonly size: number;
  /** Limits (batches, rows, values, dimension, metadata size). */
  readonly limits: ArchiveLimits;
  /** `config.dimensions`, when known: the schema's width must equal it. */
  readonly expectedDimension?: number;
  /** Called once with the checked schema layout, before the first batch. */
  readonly onSchema?: (layout: ArrowVectorSchema) => void;
  /**
   * Assemble record-batch bodies in a small ring of reused buffers instead of a fresh allocation
   * per batch. For consumers that are done with a batch before asking for the next (the
   * validator): large short-lived buffers are external memory to V8, and allocating one per
   * batch triggered a full mark-compact every ~100 ms. The ring has room for apache-arrow's
   * one-message read-ahead, and every batch is checked to still own its buffer.
   */
  readonly pooledBodies?: boolean;
  /**
   * The last `maxBytes` bytes of the same file (all of it when shorter), read again. A file whose
   * first message is not the schema — apache-arrow's own `RecordBatchFileWriter` and
   * `tableToIPC(table, 'file')` write the schema only in the footer, which the IPC file format
   * allows — is read with the footer's schema, fetched through this. Without it such a file is
   * refused (`OCTX_VECTOR_ARROW_INVALID`) unless it has no batch before its footer.
   */
  readonly tail?: (maxBytes: number) => Promise<Buffer>;
}

function problem(code: OctxCode, path: string, message: string): OctxError {
  return OctxError.of({ code, path, message });
}

/**
 * Reads a vector target from a byte stream and yields its record batches one at a time (only
 * the current batch is in memory; the next is read when the consumer asks for it).
 * @throws OctxError with a vector code (`OCTX_VECTOR_ARROW_INVALID`,
 *   `OCTX_VECTOR_COMPRESSION_UNSUPPORTED`, `OCTX_VECTOR_COLUMNS_REQUIRED`,
 *   `OCTX_VECTOR_RECORD_ID_SCHEMA`, `OCTX_VECTOR_VALUE_SCHEMA`, `OCTX_VECTOR_DIMENSION_INVALID`)
 *   or `OCTX_RESOURCE_LIMIT`, all with `path`; errors of the byte source propagate unchanged.
 */
export async function* readArrowVectorBatches(reader: ByteReader, options: ArrowReadOptions): AsyncGenerator<ArrowVectorBatch, void, undefined> {
  const { path, size, limits } = options;
  const head = await reader.read(Math.min(8, size));
  if (size < 8 + 10 || !head.equals(MAGIC_HEAD)) {
    const isStream = head.length >= 4 && head.readInt32LE(0) === -1;
    throw problem(
      'OCTX_VECTOR_ARROW_INVALID',
      path,
      isStream ? 'this is the Arrow IPC stream format; vector targets must use the IPC file format (ARROW1 magic)' : 'not an Arrow IPC file (no ARROW1 magic)',
    );
  }

  let dimension = 0;
  let rows = 0;
  let batchCount = 0;
  const recordBlocks: Block[] = [];
  const dictBlocks: Block[] = [];
  let footerChecked = false;
  /** Pooled body tickets of record batches not yet handed out, in order. */
  const tickets: { slot: number; generation: number }[] = [];

  async function* messages(): AsyncGenerator<Uint8Array, void, undefined> {
    let schemaSeen = false;
    for (;;) {
      const offset = reader.position;
      if (size - offset < 10) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow file ends without a footer');
      const marker = await reader.read(4);
      let footerBytes: Buffer;
      let sawEos = false;
      if (marker.readInt32LE(0) !== -1) {
        // No end-of-stream marker: the footer starts here.
        footerBytes = Buffer.concat([marker, await reader.readRest(MAX_FOOTER_BYTES)]);
      } else {
        const metaLength = (await reader.read(4)).readInt32LE(0);
        if (metaLength === 0) {
          sawEos = true;
          footerBytes = await reader.readRest(MAX_FOOTER_BYTES);
        } else {
          if (metaLength < 0 || metaLength > size - reader.position) throw problem('OCTX_VECTOR_ARROW_INVALID', path, `bad Arrow message length ${metaLength}`);
          if (metaLength > limits.maxFileSize) throw problem('OCTX_RESOURCE_LIMIT', path, `an Arrow metadata message is larger than maxFileSize`);
          const meta = await reader.read(metaLength);
          let message: Message<MessageHeader>;
          let header: unknown;
          try {
            message = Message.decode(meta);
            header = message.header();
          } catch (e) {
            throw problem('OCTX_VECTOR_ARROW_INVALID', path, `undecodable Arrow message: ${(e as Error).message}`);
          }
          const bodyLength = message.bodyLength;
          if (!Number.isSafeInteger(bodyLength) || bodyLength < 0 || bodyLength > size - reader.position) {
            throw problem('OCTX_VECTOR_ARROW_INVALID', path, `bad Arrow body length ${bodyLength}`);
          }
          const type = message.headerType;
          if (type === MessageHeader.Schema) {
            if (schemaSeen) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow file holds more than one schema message, or one after a batch');
            schemaSeen = true;
          } else if (!schemaSeen) {
            // The schema is only in the footer (apache-arrow's file writer): read it from there.
            if (options.tail === undefined) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the first Arrow message must be the schema');
            yield footerSchemaMessage(await footerTail(options.tail), path);
            schemaSeen = true;
          }
          if (type === MessageHeader.Schema) {
            // Checked above; passed on as it is.
          } else if (type === MessageHeader.RecordBatch || type === MessageHeader.DictionaryBatch) {
            const rb = (type === MessageHeader.RecordBatch ? header : (header as { data: unknown }).data) as BatchHeader | null;
            if (!rb) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'an Arrow batch message has no header');
            // Checked on the header, before the body is read or anything is decompressed.
            if (rb.compression !== null && rb.compression !== undefined) {
              throw problem('OCTX_VECTOR_COMPRESSION_UNSUPPORTED', path, 'Arrow IPC body compression is not allowed in vectors/0.1');
            }
            checkBatchHeader(rb, bodyLength, path);
            batchCount += 1;
            if (batchCount > limits.maxArrowBatches) throw problem('OCTX_RESOURCE_LIMIT', path, `more than ${limits.maxArrowBatches} Arrow batches (limit maxArrowBatches)`);
            if (type === MessageHeader.RecordBatch) {
              rows += rb.length;
              if (rows > limits.maxArrowRows) throw problem('OCTX_RESOURCE_LIMIT', path, `more than ${limits.maxArrowRows} Arrow rows (limit maxArrowRows)`);
              if (rows * dimension > limits.maxArrowValues) throw problem('OCTX_RESOURCE_LIMIT', path, `more than ${limits.maxArrowValues} vector values (limit maxArrowValues)`);
              recordBlocks.push({ offset, metaDataLength: 8 + metaLength, bodyLength });
            } else dictBlocks.push({ offset, metaDataLength: 8 + metaLength, bodyLength });
          } else {
            throw problem('OCTX_VECTOR_ARROW_INVALID', path, `unexpected Arrow message type ${MessageHeader[type] ?? type}`);
          }
          let body: Buffer;
          if (bodyLength === 0) body = Buffer.alloc(0);
          else if (options.pooledBodies === true && type === MessageHeader.RecordBatch) {
            const got = await reader.readPooled(bodyLength);
            tickets.push(got);
            body = got.bytes;
          } else body = await reader.read(bodyLength);
          yield EOS.subarray(0, 4);
          yield lengthPrefix(metaLength);
          yield meta;
          if (body.length > 0) yield body;
          continue;
        }
      }
      // Footer: <footer flatbuffer> <int32 length> "ARROW1", nothing after.
      // No message before the footer: the schema (if any) is the footer's, which is at hand.
      if (!schemaSeen) yield footerSchemaMessage(footerBytes, path);
      if (footerBytes.length < 10 || !footerBytes.subarray(footerBytes.length - 6).equals(MAGIC_TAIL)) {
        throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow file does not end with the ARROW1 magic (stream format, or truncated)');
      }
      const footerLength = footerBytes.readInt32LE(footerBytes.length - 10);
      if (footerLength <= 0 || footerLength + 10 !== footerBytes.length) {
        throw problem(
          'OCTX_VECTOR_ARROW_INVALID',
          path,
          sawEos ? 'the Arrow footer length does not match (data between the end-of-stream marker and the footer)' : 'the Arrow footer length does not match',
        );
      }
      const footer = parseFooterBlocks(footerBytes.subarray(0, footerLength), path);
      if (!sameBlocks(footer.recordBatches, recordBlocks)) {
        throw problem(
          'OCTX_VECTOR_ARROW_INVALID',
          path,
          `the Arrow footer lists ${footer.recordBatches.length} record batches that differ from the ${recordBlocks.length} in the file`,
        );
      }
      if (!sameBlocks(footer.dictionaries, dictBlocks)) {
        throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow footer dictionary batches differ from those in the file');
      }
      footerChecked = true;
      yield EOS;
      return;
    }
  }

  let arrowReader;
  try {
    arrowReader = await RecordBatchReader.from(messages());
    await arrowReader.open();
  } catch (e) {
    throw asArrowProblem(e, path);
  }
  const schema = arrowReader.schema as Schema | undefined;
  if (!schema) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow file has no schema');
  const layout = checkVectorSchema(schema, path, limits.maxArrowDimension, options.expectedDimension);
  dimension = layout.dimension;
  options.onSchema?.(layout);
  if (rows * dimension > limits.maxArrowValues) throw problem('OCTX_RESOURCE_LIMIT', path, `more than ${limits.maxArrowValues} vector values (limit maxArrowValues)`);
  const batches = arrowReader[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<{ numRows: number; data: unknown }>;
    try {
      next = await batches.next();
    } catch (e) {
      throw asArrowProblem(e, path);
    }
    if (next.done) break;
    if (next.value.numRows === 0 && recordBlocks.length === 0) continue; // schema-only file placeholder
    const ticket = tickets.shift();
    if (ticket && !reader.intact(ticket.slot, ticket.generation)) {
      // apache-arrow read further ahead than the ring allows: a bug here, not in the file.
      throw new Error('internal error: a pooled Arrow body was overwritten before its batch was checked');
    }
    yield toBatch(next.value.data as DataLike, layout, path);
  }
  if (!footerChecked) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow stream ended before its footer');
}

/** What {@link checkBatchHeader} reads of a record batch header (apache-arrow's metadata class). */
interface BatchHeader {
  readonly compression: unknown;
  readonly length: number;
  readonly nodes?: readonly { readonly length: number; readonly nullCount: number }[];
  readonly buffers?: readonly { readonly offset: number; readonly length: number }[];
}

/**
 * Refuses batch metadata no writer produces and apache-arrow does not check: a negative or
 * unsafe row count (it would subtract from the rows counted, and then read as missing coverage),
 * a field node whose null count is negative or above its length, and a buffer with a negative
 * offset or length or reaching beyond the message body (apache-arrow would read a short or
 * shifted view of the body and report something else, or nothing).
 * @throws OctxError `OCTX_VECTOR_ARROW_INVALID`
 */
function checkBatchHeader(rb: BatchHeader, bodyLength: number, path: string): void {
  const bad = (why: string): OctxError => problem('OCTX_VECTOR_ARROW_INVALID', path, `a record batch header is malformed: ${why}`);
  if (!Number.isSafeInteger(rb.length) || rb.length < 0) throw bad(`its length ${rb.length} is negative or not an exact integer`);
  (rb.nodes ?? []).forEach((n, i) => {
    if (!Number.isSafeInteger(n.length) || n.length < 0) throw bad(`field node ${i} has length ${n.length}, negative or not an exact integer`);
    if (!Number.isSafeInteger(n.nullCount) || n.nullCount < 0 || n.nullCount > n.length) {
      throw bad(`field node ${i} has null count ${n.nullCount}, outside 0…${n.length} (its length)`);
    }
  });
  (rb.buffers ?? []).forEach((b, i) => {
    if (!Number.isSafeInteger(b.offset) || !Number.isSafeInteger(b.length) || b.offset < 0 || b.length < 0) {
      throw bad(`buffer ${i} has offset ${b.offset} and length ${b.length}: negative or not exact integers`);
    }
    if (b.offset + b.length > bodyLength) throw bad(`buffer ${i} (offset ${b.offset}, length ${b.length}) reaches beyond the ${bodyLength}-byte message body`);
  });
}

function lengthPrefix(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32LE(n, 0);
  return b;
}

function asArrowProblem(e: unknown, path: string): OctxError {
  if (e instanceof OctxError) return e;
  return problem('OCTX_VECTOR_ARROW_INVALID', path, `Arrow decoding failed: ${e instanceof Error ? e.message : String(e)}`);
}
