import { constants, deflateRawSync } from 'node:zlib';

/**
 * An independent oracle for the SDK's block deflate: one raw DEFLATE block ended with a sync
 * flush, primed with `dictionary` when given (how pigz cuts a stream into blocks).
 */
export function deflateBlockSync(raw: Buffer, dictionary: Buffer | undefined, level: number): Buffer {
  return deflateRawSync(raw, dictionary && dictionary.length > 0 ? { level, finishFlush: constants.Z_SYNC_FLUSH, dictionary } : { level, finishFlush: constants.Z_SYNC_FLUSH });
}
