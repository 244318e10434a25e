/**
 * The export's check of caller-supplied input digests. A digest given to `addVector` (`{ input }`
 * or `{ inputSha256 }`) is only a claim; the validator recomputes every digest from the record
 * and the config's `input_template` and calls a difference `OCTX_VECTOR_INPUT_MISMATCH`. A
 * package the SDK writes must be valid for everything it declares, so the same recomputation
 * runs here, before anything is written, under exactly the validator's condition
 * ({@link inputDigestRecipe}). Digests computed by `embed()` are right by construction and
 * those carried by `derive` come from a validated source: the builder names only the targets
 * that got caller digests, so the common path costs nothing.
 */
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { VECTOR_CONFIG_PATH } from '../model/paths.js';
import { INPUT_SHA256_HEX_LENGTH, TARGET_RECORD_KIND, VECTOR_TARGET_FORMATS } from '../model/vector-format.js';
import { readSpilledRecords } from '../structure/record-spill.js';
import { inputDigestRecipe, normalizeEmbeddingInput, sha256OfNormalized } from '../vectors/input-digest.js';
import type { Collected } from './collected.js';
import type { PlannedArrowTarget } from './planner.js';

/** Mismatches listed in the error; the rest are counted in its headline. */
export const MAX_LISTED_MISMATCHES = 100;

/** Records whose digests are read from the spill at once (one positional read per run of rows). */
const BATCH = 4096;

/**
 * Targets whose vectors carry input digests (from any source: `embed()`, `addVector`, `derive`)
 * while the config declares the `input_hash` recipe with an `input_template` that cannot be used
 * for them: the validator calls such a vectors layer invalid (nobody can check those digests), so
 * the export refuses it before anything is written.
 * @throws OctxError `OCTX_VECTOR_CONFIG_INVALID` (aggregated: one issue per target, path
 *   `vectors/config.json`, the template's field)
 */
export function checkDigestTemplates(collected: Collected, arrowTargets: readonly PlannedArrowTarget[]): void {
  const issues: OctxIssue[] = [];
  for (const planned of arrowTargets) {
    if (!planned.spill.hasInputSha256) continue;
    const recipe = inputDigestRecipe(collected.vectorConfig?.config, planned.target);
    if (recipe === undefined || 'render' in recipe) continue;
    const why = recipe.invalid.issues[0];
    issues.push(
      issue({
        code: 'OCTX_VECTOR_CONFIG_INVALID',
        path: VECTOR_CONFIG_PATH,
        field: why?.field ?? 'input_template',
        message: `the vector config declares input_hash but its input_template cannot be used for ${planned.target}, whose vectors carry input digests: ${why?.message ?? recipe.invalid.message}`,
      }),
    );
  }
  if (issues.length > 0) {
    throw OctxError.aggregate(
      'OCTX_VECTOR_CONFIG_INVALID',
      'the input digests could not be checked by any reader; fix input_template (or drop input_hash); nothing was written:',
      issues,
    );
  }
}

/**
 * Recomputes the input digest of every record of each planned Arrow target in
 * `collected.callerDigests` (the targets that got caller-supplied digests) and compares it with the digest its vector carries.
 * Targets without digests, or whose config does not let the validator recompute them (no
 * supported `input_hash`, no `input_template`), are checked for form only, as the validator does.
 * Each record's input is rendered within `maxRenderedBytes` (`limits.maxRenderedInputBytes`).
 * @throws OctxError `OCTX_RESOURCE_LIMIT` (aggregated, one issue per record, with its id) when a
 *   record's input would be larger; `OCTX_VECTOR_INPUT_MISMATCH` (aggregated: one issue per record, with its id,
 *   field `input_sha256` and path `vectors/<target>.arrow`; the first {@link MAX_LISTED_MISMATCHES}
 *   listed, the total in the headline); `OCTX_ABORTED` when `signal` fires.
 */
export async function checkCallerDigests(collected: Collected, arrowTargets: readonly PlannedArrowTarget[], maxRenderedBytes: number, signal?: AbortSignal): Promise<void> {
  const targets = collected.callerDigests;
  if (targets.size === 0) return;
  const tooLarge: OctxIssue[] = [];
  const issues: OctxIssue[] = [];
  let total = 0;
  const found = (i: OctxIssue): void => {
    total++;
    if (issues.length < MAX_LISTED_MISMATCHES) issues.push(i);
  };
  for (const planned of arrowTargets) {
    if (!targets.has(planned.target) || !planned.spill.hasInputSha256) continue;
    const recipe = inputDigestRecipe(collected.vectorConfig?.config, planned.target, maxRenderedBytes);
    // An unusable template is refused by checkDigestTemplates, which runs first.
    if (recipe === undefined || !('render' in recipe)) continue;
    const render = recipe.render;
    const kind = TARGET_RECORD_KIND[planned.target];
    const { path, jsonlPath } = VECTOR_TARGET_FORMATS[planned.target];
    const snapshot = collected.structure.files[kind];
    // One batch: the records' dense ids, ids, lines and recomputed digests (or why none renders).
    const dense: number[] = [];
    const pending: { id: string; line: number; expected: string | Error }[] = [];
    const digests = Buffer.allocUnsafe(BATCH * INPUT_SHA256_HEX_LENGTH);
    const compare = (): void => {
      planned.spill.readInputSha256(dense, digests);
      for (let i = 0; i < pending.length; i++) {
        const { id, line, expected } = pending[i]!;
        const stored = digests.toString('latin1', i * INPUT_SHA256_HEX_LENGTH, (i + 1) * INPUT_SHA256_HEX_LENGTH);
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
        if (e instanceof OctxError && e.code === 'OCTX_RESOURCE_LIMIT') {
          if (tooLarge.length < MAX_LISTED_MISMATCHES) tooLarge.push({ ...e.issues[0]!, path });
          continue;
        }
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
  if (tooLarge.length > 0) {
    throw OctxError.aggregate(
      'OCTX_RESOURCE_LIMIT',
      `record inputs rendered with the config's input_template would exceed maxRenderedInputBytes ${maxRenderedBytes}; nothing was written:`,
      tooLarge,
    );
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
