/**
 * The footer of an Arrow IPC file (`<footer> <int32 length> "ARROW1"`): its schema, for a file
 * that has no schema message (apache-arrow's own file writer), and its record-batch and
 * dictionary blocks, which must list exactly the batches the stream held.
 */
import { Message } from 'apache-arrow';
import { Footer } from 'apache-arrow/ipc/metadata/file';
import type { OctxCode } from '../model/codes.js';
import { OctxError } from '../model/errors.js';

/** The file magic at the end (`ARROW1`; at the start it is followed by two padding bytes). */
export const MAGIC_TAIL = Buffer.from('ARROW1', 'latin1');
/** Bytes after the end-of-stream marker (footer + length + magic) that are read into memory. */
export const MAX_FOOTER_BYTES = 64 * 1024 * 1024;

function problem(code: OctxCode, path: string, message: string): OctxError {
  return OctxError.of({ code, path, message });
}

/** Tail bytes read first for a footer schema: a footer is the schema plus 24 bytes per batch. */
const FIRST_TAIL_BYTES = 64 * 1024;

/**
 * The end of the file holding its whole footer: {@link FIRST_TAIL_BYTES} first, and the footer's
 * declared length (at most the footer bound) when that is more, so a large file's tail is not
 * held whole for a small footer.
 */
export async function footerTail(tail: (maxBytes: number) => Promise<Buffer>): Promise<Buffer> {
  const first = await tail(FIRST_TAIL_BYTES);
  if (first.length < FIRST_TAIL_BYTES || first.length < 10) return first;
  const need = first.readInt32LE(first.length - 10) + 10;
  return need > first.length && need <= MAX_FOOTER_BYTES ? tail(need) : first;
}

/**
 * The schema of an Arrow file's footer (`<footer> <int32 length> "ARROW1"` at the end of
 * `tail`), encoded as an IPC schema message with its continuation marker and length prefix, ready
 * to stand first in the message stream.
 * @throws OctxError `OCTX_VECTOR_ARROW_INVALID` when the footer or its schema is unreadable
 */
export function footerSchemaMessage(tail: Buffer, path: string): Buffer {
  const bad = (why: string): OctxError => problem('OCTX_VECTOR_ARROW_INVALID', path, `the Arrow file has no schema message, and its footer schema ${why}`);
  if (tail.length < 10 || !tail.subarray(tail.length - 6).equals(MAGIC_TAIL)) throw bad('cannot be found (no ARROW1 magic at the end)');
  const footerLength = tail.readInt32LE(tail.length - 10);
  if (footerLength <= 0 || footerLength > tail.length - 10) throw bad(`cannot be found (footer length ${footerLength})`);
  let meta: Uint8Array;
  try {
    const { schema } = Footer.decode(tail.subarray(tail.length - 10 - footerLength, tail.length - 10));
    meta = Message.encode(Message.from(schema));
  } catch (e) {
    throw bad(`is unreadable: ${(e as Error).message}`);
  }
  // Metadata padded to 8 bytes, as writers do; the length prefix counts the padding.
  const padded = Math.ceil(meta.length / 8) * 8;
  const out = Buffer.alloc(8 + padded);
  out.writeInt32LE(-1, 0);
  out.writeInt32LE(padded, 4);
  out.set(meta, 8);
  return out;
}

/** Where one message of the file is, as the footer lists it. */
export interface Block {
  readonly offset: number;
  readonly metaDataLength: number;
  readonly bodyLength: number;
}

/** Minimal FlatBuffers reading of the Arrow `Footer` table: only the two block vectors. */
export function parseFooterBlocks(buf: Buffer, path: string): { dictionaries: Block[]; recordBatches: Block[] } {
  const bad = (): OctxError => problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow footer is malformed');
  const u32 = (at: number): number => {
    if (at < 0 || at + 4 > buf.length) throw bad();
    return buf.readUInt32LE(at);
  };
  const table = u32(0);
  const vtable = table - buf.readInt32LE(table);
  if (vtable < 0 || vtable + 4 > buf.length) throw bad();
  const vtLength = buf.readUInt16LE(vtable);
  const field = (i: number): number => {
    const slot = 4 + 2 * i;
    if (slot + 2 > vtLength || vtable + slot + 2 > buf.length) return 0;
    const off = buf.readUInt16LE(vtable + slot);
    return off === 0 ? 0 : table + off;
  };
  const blocks = (i: number): Block[] => {
    const at = field(i);
    if (at === 0) return [];
    const vec = at + u32(at);
    const n = u32(vec);
    if (vec + 4 + n * 24 > buf.length) throw bad();
    const out: Block[] = [];
    for (let k = 0; k < n; k++) {
      const b = vec + 4 + k * 24;
      out.push({ offset: Number(buf.readBigInt64LE(b)), metaDataLength: buf.readInt32LE(b + 8), bodyLength: Number(buf.readBigInt64LE(b + 16)) });
    }
    return out;
  };
  // Footer: 0 version, 1 schema, 2 dictionaries, 3 recordBatches, 4 custom_metadata.
  return { dictionaries: blocks(2), recordBatches: blocks(3) };
}

/** True when both lists name the same messages at the same offsets. */
export function sameBlocks(a: readonly Block[], b: readonly Block[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.offset !== y.offset || x.metaDataLength !== y.metaDataLength || x.bodyLength !== y.bodyLength) return false;
  }
  return true;
}
