import { ZipAssembler, type AssembleZipOptions, type ZipEntryData } from '../../src/package/zip-assembler.js';

/**
 * Writes a ZIP of prepared `entries` with {@link ZipAssembler}, in the given order (the central
 * directory in the same order), and closes it also when writing fails: the container tests'
 * shorthand.
 */
export async function assembleZip(outPath: string, entries: readonly ZipEntryData[], options: AssembleZipOptions = {}): Promise<void> {
  const zip = await ZipAssembler.create(outPath, options);
  try {
    for (const entry of entries) await zip.add(entry);
    await zip.finish();
  } finally {
    await zip.close();
  }
}
