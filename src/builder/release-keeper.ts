/**
 * The builder's producer state as the release keeper of one export (`ReleaseKeeper` of
 * `export/export-collected.ts`): the export takes the state's lock, asks it for the release of its
 * content, records the release before publishing and, when publishing fails, has the state file
 * put back as it was.
 */
import type { ReleaseKeeper } from '../export/export-collected.js';
import { isStdoutStaging } from '../package/spill-dir.js';
import type { ProducerState } from '../release/producer-state.js';

/** A keeper for one export (it remembers the state file it replaced, to put it back). */
export function stateReleaseKeeper(state: ProducerState, asset: { readonly id: string; readonly name: string }): ReleaseKeeper {
  let backup: string | undefined;
  let recorded = false;
  return {
    lock: (onWarning) => state.lock(onWarning),
    resolveRelease: (requested, contentDigest, now) => state.resolveRelease(requested, contentDigest, now),
    assertPublishable: (version, packageDigest, contentDigest) => state.assertPublishable(version, packageDigest, contentDigest),
    recordRelease: async (r) => {
      backup = await state.backup();
      recorded = true;
      await state.recordRelease({
        assetId: asset.id,
        assetName: asset.name,
        version: r.version,
        release: {
          created_at: r.createdAt,
          package_digest: r.packageDigest,
          content_digest: r.contentDigest,
          // A package staged for stdout leaves no file: keep what an identical rebuild recorded, if anything.
          ...(isStdoutStaging(r.outputPath)
            ? state.releases[r.version]?.output !== undefined
              ? { output: state.releases[r.version]!.output }
              : {}
            : { output: state.outputFor(r.outputPath) }),
        },
        documents: r.documents,
      });
    },
    undoRelease: async () => {
      if (recorded) await state.restore(backup);
    },
  };
}
