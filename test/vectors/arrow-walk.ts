/**
 * Test helper: an independent structural walk of an Arrow IPC file, written from the Arrow
 * format spec (flatbuffer tables read by hand), mirroring what the OCTX reference validator
 * checks: file magic at both ends, a schema message first, only schema/dictionary/record-batch
 * messages, the end-of-stream marker right before the footer, the footer's record-batch blocks,
 * and the body-compression field of every batch.
 */

/** Message header types (Arrow `MessageHeader` union). */
export const HEADER = { Schema: 1, DictionaryBatch: 2, RecordBatch: 3 } as const;

export interface WalkedMessage {
  readonly offset: number;
  readonly headerType: number;
  readonly metadataSize: number;
  readonly bodyLength: number;
  /** True when the RecordBatch table has its `compression` field set. */
  readonly compressed: boolean;
}

export interface WalkedBlock {
  readonly offset: number;
  readonly metaDataLength: number;
  readonly bodyLength: number;
}

export interface ArrowWalk {
  readonly messages: readonly WalkedMessage[];
  readonly footerBlocks: readonly WalkedBlock[];
  readonly eosAt: number;
  readonly footerStart: number;
}

/** Offset of field `index` in a flatbuffer table (0 when absent). */
function fieldOffset(view: DataView, table: number, index: number): number {
  const vtable = table - view.getInt32(table, true);
  const vtableSize = view.getUint16(vtable, true);
  const at = 4 + 2 * index;
  if (at + 2 > vtableSize) return 0;
  return view.getUint16(vtable + at, true);
}

function deref(view: DataView, at: number): number {
  return at + view.getUint32(at, true);
}

function parseMessage(meta: DataView): { headerType: number; bodyLength: number; compressed: boolean } {
  const message = deref(meta, 0);
  const headerTypeOff = fieldOffset(meta, message, 1);
  const headerOff = fieldOffset(meta, message, 2);
  const bodyOff = fieldOffset(meta, message, 3);
  if (headerTypeOff === 0 || headerOff === 0) throw new Error('message header missing');
  const headerType = meta.getUint8(message + headerTypeOff);
  const header = deref(meta, message + headerOff);
  const bodyLength = bodyOff === 0 ? 0 : Number(meta.getBigInt64(message + bodyOff, true));
  let batch = header;
  if (headerType === HEADER.DictionaryBatch) {
    const dataOff = fieldOffset(meta, header, 1);
    batch = deref(meta, header + dataOff);
  }
  const compressed = (headerType === HEADER.RecordBatch || headerType === HEADER.DictionaryBatch) && fieldOffset(meta, batch, 3) !== 0;
  return { headerType, bodyLength, compressed };
}

/** Walks `bytes`; throws with a reason when the file breaks one of the rules above. */
export function walkArrowFile(bytes: Uint8Array): ArrowWalk {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = bytes.byteLength;
  const ascii = (from: number, to: number): string => Buffer.from(bytes.subarray(from, to)).toString('latin1');
  if (size < 18) throw new Error('truncated');
  if (ascii(0, 8) !== 'ARROW1\0\0') throw new Error('bad leading magic');
  if (ascii(size - 6, size) !== 'ARROW1') throw new Error('bad trailing magic');
  const footerSize = view.getInt32(size - 10, true);
  const footerStart = size - 10 - footerSize;
  if (footerSize < 0 || footerStart < 8) throw new Error('bad footer size');

  const messages: WalkedMessage[] = [];
  let pos = 8;
  let eosAt = -1;
  while (pos < footerStart) {
    const offset = pos;
    let metadataSize = view.getInt32(pos, true);
    pos += 4;
    if (metadataSize === -1) {
      metadataSize = view.getInt32(pos, true);
      pos += 4;
    }
    if (metadataSize === 0) {
      if (pos !== footerStart) throw new Error(`end-of-stream marker at ${offset}, footer at ${footerStart}`);
      eosAt = offset;
      break;
    }
    const meta = new DataView(bytes.buffer, bytes.byteOffset + pos, metadataSize);
    const { headerType, bodyLength, compressed } = parseMessage(meta);
    if (messages.length === 0 && headerType !== HEADER.Schema) throw new Error('file does not begin with a schema message');
    if (messages.length > 0 && headerType === HEADER.Schema) throw new Error('more than one schema message');
    if (headerType !== HEADER.Schema && headerType !== HEADER.DictionaryBatch && headerType !== HEADER.RecordBatch) {
      throw new Error(`unexpected message type ${headerType}`);
    }
    messages.push({ offset, headerType, metadataSize, bodyLength, compressed });
    pos += metadataSize + bodyLength;
    if (pos > footerStart) throw new Error('message body runs into the footer');
  }
  if (eosAt < 0) throw new Error('no end-of-stream marker');

  // Footer: table { version: short, schema: Schema, dictionaries: [Block], recordBatches: [Block] }.
  const footer = new DataView(bytes.buffer, bytes.byteOffset + footerStart, footerSize);
  const root = deref(footer, 0);
  const batchesOff = fieldOffset(footer, root, 3);
  const footerBlocks: WalkedBlock[] = [];
  if (batchesOff !== 0) {
    const vec = deref(footer, root + batchesOff);
    const count = footer.getUint32(vec, true);
    for (let i = 0; i < count; i++) {
      // struct Block { offset: long; metaDataLength: int; (pad 4); bodyLength: long } = 24 bytes
      const b = vec + 4 + i * 24;
      footerBlocks.push({
        offset: Number(footer.getBigInt64(b, true)),
        metaDataLength: footer.getInt32(b + 8, true),
        bodyLength: Number(footer.getBigInt64(b + 16, true)),
      });
    }
  }
  const recordBatches = messages.filter((m) => m.headerType === HEADER.RecordBatch).length;
  if (recordBatches !== footerBlocks.length) throw new Error(`${recordBatches} record batches, footer lists ${footerBlocks.length}`);
  return { messages, footerBlocks, eosAt, footerStart };
}
