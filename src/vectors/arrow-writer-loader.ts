/**
 * Loads the Arrow writer (`arrow-writer.ts`, and apache-arrow with it) once per process. It is
 * imported only when a package has vectors: apache-arrow costs ~20 MiB of RSS and 80–100 ms to
 * load, most of it on the main thread.
 *
 * A builder starts loading it when its first vector arrives ({@link preloadArrowWriter}), so the
 * load fills the time its caller spends waiting (for background compression, for an embedder)
 * instead of sitting at the start of the export's Arrow phase.
 */
import type * as ArrowWriter from './arrow-writer.js';

type ArrowWriterModule = typeof ArrowWriter;

let loading: Promise<ArrowWriterModule> | undefined;

/** The Arrow writer module, loaded on first call. A failed load is tried again by the next call. */
export function loadArrowWriter(): Promise<ArrowWriterModule> {
  const started = (loading ??= import('./arrow-writer.js'));
  started.catch(() => {
    if (loading === started) loading = undefined;
  });
  return started;
}

/**
 * Starts loading the Arrow writer without waiting for it; a failure is left for the export's own
 * {@link loadArrowWriter} call to report.
 */
export function preloadArrowWriter(): void {
  loadArrowWriter().catch(() => undefined);
}
