/**
 * The export's check of caller-supplied input digests. A digest given to `addVector` (`{ input }`
 * or `{ inputSha256 }`) is only a claim; the validator recomputes every digest from the record
 * and the config's `input_template` and calls a difference `OCTX_VECTOR_INPUT_MISMATCH`. A
 * package the SDK writes must be valid for everything it declares, so the same recomputation
 * runs here, before anything is written, under exactly the validator's condition
 * ({@link inputDigestRenderer}). Digests computed by `embed()` are right by construction and
 * those carried by `derive` come from a validated source: the builder names only the targets
 * that got caller digests, so the common path costs nothing.
 */
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { VECTOR_TARGET_PATHS } from '../model/paths.js';
import { RECORD_KINDS } from '../model/record-kinds.js';
import { readSpilledRecords } from '../structure/record-spill.js';
import { DIGEST_BYTES } from '../vectors/vector-spill.js';
import { inputDigestRenderer, normalizeEmbeddingInput, sha256OfNormalized } from '../vectors/input-digest.js';
import { TARGET_RECORD_KIND } from '../vectors/targets.js';
import type { Collected } from './collected.js';
import type { PlannedArrowTarget } from './planner.js';

/** Mismatches listed in the error; the rest are counted in its headline. */
export const MAX_LISTED_MISMATCHES = 100;

/** Records whose digests are read from the spill at once (one positional read per run of rows). */
const BATCH = 4096;

/**
 * Recomputes the input digest of every record of each planned Arrow target in
 * `collected.callerDigests` (the targets that got caller-supplied digests) and compares it with the digest its vector carries.
 * Targets without digests, or whose config does not let the validator recompute them (no
 * supported `input_hash`, no `input_template`), are checked for form only, as the validator does.
 * @throws OctxError `OCTX_VECTOR_INPUT_MISMATCH` (aggregated: one issue per record, with its id,
 *   field `input_sha256` and path `vectors/<target>.arrow`; the first {@link MAX_LISTED_MISMATCHES}
 *   listed, the total in the headline); `OCTX_ABORTED` when `signal` fires.
 */
export async function checkCallerDigests(collected: Collected, arrowTargets: readonly PlannedArrowTarget[], signal?: AbortSignal): Promise<void> {
  const targets = collected.callerDigests;
  if (targets.size === 0) return;
  const issues: OctxIssue[] = [];
  let total = 0;
  const found = (i: OctxIssue): void => {
    total++;
    if (issues.length < MAX_LISTED_MISMATCHES) issues.push(i);
  };
  for (const planned of arrowTargets) {
    if (!targets.has(planned.target) || !planned.spill.hasInputSha256) continue;
    const render = inputDigestRenderer(collected.vectorConfig?.config, planned.target);
    if (render === undefined) continue;
    const kind = TARGET_RECORD_KIND[planned.target];
    const path = VECTOR_TARGET_PATHS[planned.target];
    const jsonlPath = RECORD_KINDS[kind].path;
    const snapshot = collected.structure.files[kind];
    // One batch: the records' dense ids, ids, lines and recomputed digests (or why none renders).
    const dense: number[] = [];
    const pending: { id: string; line: number; expected: string | Error }[] = [];
    const digests = Buffer.allocUnsafe(BATCH * DIGEST_BYTES);
    const compare = (): void => {
      planned.spill.readInputSha256(dense, digests);
      for (let i = 0; i < pending.length; i++) {
        const { id, line, expected } = pending[i]!;
        const stored = digests.toString('latin1', i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES);
        if (expected === stored) continue;
        found(
          issue({
            code: 'OCTX_VECTOR_INPUT_MISMATCH',
            path,
            recordId: id,
            field: 'input_sha256',
            message:
              typeof expected === 'string'
                ? `the input digest given for ${id} is ${stored}, but its text rendered from ${jsonlPath} line ${line} with the config's input_template hashes to ${expected}; pass the text that was embedded as { input }, or re-embed it (embed with only: 'stale')`
                : `the input of ${id} (${jsonlPath} line ${line}) cannot be rendered with the config's input_template, so the input digest given for it cannot match: ${expected.message}`,
          }),
        );
      }
      dense.length = 0;
      pending.length = 0;
    };
    for await (const { line, record } of readSpilledRecords(snapshot.file, snapshot.size)) {
      const id = record.id as string;
      const d = collected.ids.find(id);
      // A planned target covers every record; a record without a vector cannot reach here.
      if (d < 0 || !planned.spill.has(d)) continue;
      let expected: string | Error;
      try {
        expected = sha256OfNormalized(normalizeEmbeddingInput(render(record, id)));
      } catch (e) {
        expected = e instanceof Error ? e : new Error(String(e));
      }
      dense.push(d);
      pending.push({ id, line, expected });
      if (dense.length === BATCH) {
        compare();
        if (signal?.aborted) throw new OctxError('OCTX_ABORTED', 'export cancelled while checking input digests');
      }
    }
    if (dense.length > 0) compare();
  }
  if (total === 0) return;
  const listed = total > issues.length ? ` (the first ${issues.length} listed)` : '';
  throw OctxError.aggregate(
    'OCTX_VECTOR_INPUT_MISMATCH',
    `${total} vector(s) carry an input digest that differs from the digest of their record's text rendered with the config's input_template${listed}; the validator would refuse the package, so nothing was written:`,
    issues,
    { mismatches: total },
  );
}
