/**
 * Worker entry of {@link RecordScanPool}: scans one structure JSONL file sent chunk by chunk
 * (`workerData.octxRecordScan` holds its {@link RecordScanOptions}). Each chunk is acknowledged with its size
 * (the sender's back-pressure); `null` ends the file and the {@link RecordScan} is sent back with
 * its arrays transferred. A failure is sent as `{ error }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RecordScanner, type RecordScanOptions } from './record-scan.js';

/** Marks the workers this module serves (`workerData.octxRecordScan`). */
export const RECORD_SCAN_MARK = 'octxRecordScan';

const port = parentPort;
// Loaded on the main thread too (so that both builds emit it): only a worker started by the pool
// answers, never another worker that happens to import the SDK.
const data = workerData as { [RECORD_SCAN_MARK]?: RecordScanOptions } | null;
if (port && data !== null && typeof data === 'object' && data[RECORD_SCAN_MARK] !== undefined) {
  const scanner = new RecordScanner(data[RECORD_SCAN_MARK]);
  port.on('message', (m: Uint8Array | null) => {
    try {
      if (m === null) {
        const r = scanner.end();
        port.postMessage({ scan: r }, [r.tags.buffer, r.lines.buffer, r.words.buffer, r.nums.buffer] as ArrayBuffer[]);
        return;
      }
      scanner.push(Buffer.from(m.buffer, m.byteOffset, m.byteLength));
      port.postMessage({ ack: m.byteLength });
    } catch (e) {
      port.postMessage({ error: e instanceof Error ? e.message : String(e) });
    }
  });
  port.postMessage({ ready: true });
}
