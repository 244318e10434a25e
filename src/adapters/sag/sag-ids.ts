/**
 * Record identity for the SAG database adapter (sag-anchor.md §1.7). SAG's own exporter
 * (`ProducerIdMap.exchange_id`) resolves, in order: a preserved `extra_data.octx.record_id`
 * (UUIDv7), the local id when it already is a UUIDv7, the local id with its version nibble set
 * to 7 when it is a UUIDv4, else a persisted random map. This module reproduces the first three
 * steps exactly so both exporters agree on record ids.
 */
import { isUuidV7 } from '../../model/ids.js';

/**
 * SAG's deterministic id mapping: a UUIDv7 stays as is; a UUIDv4 gets its version nibble set to
 * 7 (not a time-ordered UUIDv7, but accepted by OCTX readers); anything else → `undefined`.
 * Accepts the spellings Python's `uuid.UUID` accepts (upper case, braces, `urn:uuid:`, no
 * hyphens); the result is canonical lower case.
 * @example sagCompatibleId('a1591305-4d99-4e27-97ee-85bd23ba8ef5') // 'a1591305-4d99-7e27-97ee-85bd23ba8ef5'
 */
export function sagCompatibleId(localId: string): string | undefined {
  const hex = uuidHex(localId);
  if (hex === undefined) return undefined;
  const version = hex[12];
  let out: string;
  if (version === '7') out = hex;
  else if (version === '4') out = `${hex.slice(0, 12)}7${hex.slice(13)}`;
  else return undefined;
  return `${out.slice(0, 8)}-${out.slice(8, 12)}-${out.slice(12, 16)}-${out.slice(16, 20)}-${out.slice(20)}`;
}

/** A preserved OCTX record id in a SAG row's `extra_data` (`{"octx": {"record_id": …}}`), when it is a UUIDv7. */
export function preservedRecordId(extraData: unknown): string | undefined {
  if (extraData === null || typeof extraData !== 'object' || Array.isArray(extraData)) return undefined;
  const octx = (extraData as Record<string, unknown>).octx;
  if (octx === null || typeof octx !== 'object' || Array.isArray(octx)) return undefined;
  const id = (octx as Record<string, unknown>).record_id;
  if (typeof id !== 'string' || uuidHex(id)?.[12] !== '7') return undefined;
  const canonical = sagCompatibleId(id);
  return canonical !== undefined && isUuidV7(canonical) ? canonical : undefined;
}

/** The 32 lower-case hex digits of an RFC 4122-variant UUID in any spelling Python accepts. */
function uuidHex(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const hex = value
    .trim()
    .toLowerCase()
    .replace(/^urn:uuid:/, '')
    .replace(/^\{(.*)\}$/, '$1')
    .replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
  if ((parseInt(hex[16]!, 16) & 0xc) !== 0x8) return undefined;
  return hex;
}
