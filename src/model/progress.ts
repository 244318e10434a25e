/**
 * Progress events: what long work reports while it runs — loading a working folder, exporting,
 * validating — so a caller can draw a bar (`terminalProgress()` draws the CLI's) or log it.
 * Events of one step share `phase` and `kind`; a step that does not apply is never reported.
 */
import type { OctxIssue } from './errors.js';

/**
 * The phases, in the order an export meets them:
 * - `scan`: listing the files of a working folder (`kind: 'files'`);
 * - `load`: reading them into the builder (`documents`, `extensions`, a record file's kind such as
 *   `chunks`, or `vectors <target>`) — this is the collecting of a `build`;
 * - `plan`: checking the collected structure before deciding what goes in (`kind: 'structure'`,
 *   only when structure records were added);
 * - `compress`: finishing the deflate of collected text (`kind: 'entries'`, only at a level above 0);
 * - `arrow`: writing a vector target's Arrow file (`kind`: the target);
 * - `write`: writing ZIP entries (`kind: 'entry'`);
 * - `verify`: re-reading every written entry (`kind: 'entries'`);
 * - `fsync`: flushing the written package to disk (`kind: 'package'`);
 * - `validate`: `validatePackage` (`documents`, `files`, `structure`, `vectors`);
 * - `diff`: `diffPackages` (`old chunks`, `new vectors events`, …: records read so far).
 */
export type ProgressPhase = 'scan' | 'load' | 'plan' | 'compress' | 'arrow' | 'write' | 'verify' | 'fsync' | 'validate' | 'diff';

/** Every phase, in order. */
export const PROGRESS_PHASES: readonly ProgressPhase[] = ['scan', 'load', 'plan', 'compress', 'arrow', 'write', 'verify', 'fsync', 'validate', 'diff'];

/** One step of long work: `completed` of `total` items, and bytes where they are known. */
export interface ProgressStep {
  readonly phase: ProgressPhase;
  /** What is counted (`files`, `documents`, `chunks`, `entry`, …). */
  readonly kind: string;
  /** Items done so far. */
  readonly completed: number;
  /**
   * Items in the step. When the count is not known in advance (the records of a JSONL file),
   * it is the count so far and the step's share is measured in bytes (`bytes` of `totalBytes`).
   */
  readonly total: number;
  /** Bytes done so far (read, written or verified), when the step measures them. */
  readonly bytes?: number;
  /** Bytes of the whole step, when known in advance. */
  readonly totalBytes?: number;
}

/** A warning raised while the work runs (it is also in the final report). */
export interface ProgressWarning {
  readonly phase: 'warning';
  readonly issue: OctxIssue;
}

/** A progress event from `export({ onProgress })`, `loadWorkdir(…, { onProgress })` or `validatePackage(…, { onProgress })`. */
export type ProgressEvent = ProgressStep | ProgressWarning;

/** A callback that receives progress events. */
export type ProgressListener = (event: ProgressEvent) => void;
