/**
 * Renders the SDK's progress events as one updating stderr line — phase, percent, count, bytes,
 * items per second and ETA — only when stderr is a terminal (or `OCTX_PROGRESS=1` forces it).
 * Anywhere else (pipes, files, CI logs) it stays silent, so machine output is never polluted.
 * The CLI draws with it, and the SDK exports it as {@link terminalProgress}: it lives below the
 * CLI (on `model/` only) so the root entry exports it without reaching into `cli/`.
 */
import type { ProgressEvent, ProgressStep } from '../model/progress.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import { formatBytes } from './format-bytes.js';
import { issueLines } from './issue-lines.js';

/** The stream the line is drawn on (`process.stderr` in the CLI). */
export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(chunk: string): boolean;
}

/**
 * `OCTX_PROGRESS=1` (or `always`) draws even when stderr is not a terminal (a captured log, a
 * test); `OCTX_PROGRESS=0` (or `never`) never draws. Otherwise undefined: follow the terminal.
 */
export function progressFromEnv(env: NodeJS.ProcessEnv = process.env): boolean | undefined {
  const v = env.OCTX_PROGRESS;
  if (v === '1' || v === 'always') return true;
  if (v === '0' || v === 'never') return false;
  return undefined;
}

/** Options of {@link ProgressLine}. */
export interface ProgressLineOptions {
  /** Force on or off (default: `OCTX_PROGRESS`, else `stream.isTTY`). */
  readonly enabled?: boolean;
  /** Milliseconds clock (default `performance.now`). */
  readonly now?: () => number;
  /** Minimum milliseconds between redraws (default 100); the last event of a step always draws. */
  readonly interval?: number;
}

/** Seconds as `12s`, `3m05s` or `1h02m`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** A rate as `850/s`, `12.3k/s`. */
export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return '–/s';
  if (perSecond >= 10_000) return `${(perSecond / 1000).toFixed(0)}k/s`;
  if (perSecond >= 1000) return `${(perSecond / 1000).toFixed(1)}k/s`;
  return `${perSecond >= 10 ? perSecond.toFixed(0) : perSecond.toFixed(1)}/s`;
}

/**
 * One progress line. Call {@link ProgressLine.update} with each event (it is a valid
 * `onProgress` callback) and {@link ProgressLine.done} at the end to clear the line.
 */
export class ProgressLine {
  readonly enabled: boolean;
  readonly #stream: ProgressStream;
  readonly #now: () => number;
  readonly #interval: number;
  #step = '';
  #stepStart = 0;
  #lastDraw = -Infinity;
  #drawn = false;

  constructor(stream: ProgressStream, options: ProgressLineOptions = {}) {
    this.#stream = stream;
    this.enabled = options.enabled ?? progressFromEnv() ?? stream.isTTY === true;
    this.#now = options.now ?? (() => performance.now());
    this.#interval = options.interval ?? 100;
    this.update = this.update.bind(this);
  }

  /** The text of the line for a step (exposed for tests). */
  static render(label: string, completed: number, total: number, elapsedMs: number): string {
    const pct = total > 0 ? Math.min(100, Math.floor((completed / total) * 100)) : 0;
    const rate = elapsedMs > 0 ? (completed / elapsedMs) * 1000 : 0;
    const eta = rate > 0 ? (total - completed) / rate : Number.NaN;
    return `${label} ${String(pct).padStart(3)}% ${completed}/${total} ${formatRate(rate)} ETA ${completed >= total ? '0s' : formatDuration(eta)}`;
  }

  /**
   * The text of the line for a step event: percent (of bytes when the step knows its bytes, else
   * of items), the count, the bytes, items per second and the ETA. A step that knows neither its
   * item count nor its bytes in advance shows the count so far.
   */
  static renderStep(event: ProgressStep, elapsedMs: number): string {
    const label = `${event.phase} ${event.kind}`;
    const { completed, total, bytes, totalBytes } = event;
    const byBytes = totalBytes !== undefined && totalBytes > 0 && bytes !== undefined;
    if (!byBytes) {
      const base = ProgressLine.render(label, completed, total, elapsedMs);
      return bytes !== undefined && bytes > 0 ? base.replace(/ (\S+\/s ETA)/, ` ${formatBytes(bytes)} $1`) : base;
    }
    const fraction = Math.min(1, bytes / totalBytes);
    const rate = elapsedMs > 0 ? (completed / elapsedMs) * 1000 : 0;
    const eta = fraction >= 1 ? '0s' : fraction > 0 ? formatDuration(((elapsedMs / 1000) * (1 - fraction)) / fraction) : '?';
    const count = completed === total ? `${completed}` : `${completed}/${total}`;
    return `${label} ${String(Math.floor(fraction * 100)).padStart(3)}% ${count} ${formatBytes(bytes)}/${formatBytes(totalBytes)} ${formatRate(rate)} ETA ${eta}`;
  }

  /** Handles one SDK progress event (warnings are not drawn here). */
  update(event: ProgressEvent): void {
    if (!this.enabled || event.phase === 'warning') return;
    const final = event.totalBytes !== undefined && event.totalBytes > 0 ? (event.bytes ?? 0) >= event.totalBytes : event.completed >= event.total;
    this.#draw(`${event.phase} ${event.kind}`, final, (elapsed) => ProgressLine.renderStep(event, elapsed));
  }

  /** Draws a step of any long work (`label`, `completed` of `total` records). */
  step(label: string, completed: number, total: number): void {
    this.#draw(label, completed >= total, (elapsed) => ProgressLine.render(label, completed, total, elapsed));
  }

  #draw(label: string, final: boolean, render: (elapsedMs: number) => string): void {
    if (!this.enabled) return;
    const now = this.#now();
    if (label !== this.#step) {
      this.#step = label;
      this.#stepStart = now;
      this.#lastDraw = -Infinity;
    }
    if (!final && now - this.#lastDraw < this.#interval) return;
    this.#lastDraw = now;
    let line = render(now - this.#stepStart);
    const width = this.#stream.columns;
    if (width !== undefined && width > 10 && line.length > width - 1) line = line.slice(0, width - 1);
    this.#stream.write(`\r\x1b[2K${line}`);
    this.#drawn = true;
  }

  /** Clears the line (call before printing anything else to stderr). */
  done(): void {
    if (this.enabled && this.#drawn) this.#stream.write('\r\x1b[2K');
    this.#drawn = false;
  }
}

/** Options of {@link terminalProgress}. */
export interface TerminalProgressOptions extends ProgressLineOptions {
  /** Where to draw (default `process.stderr`). */
  readonly stream?: ProgressStream;
  /** Print warning events as `warning[CODE]: message` lines (default true). */
  readonly warnings?: boolean;
}

/** An `onProgress` callback that draws the CLI's progress line; call `done()` to clear it. */
export interface TerminalProgress {
  (event: ProgressEvent): void;
  /** Clears the line (also safe when nothing was drawn). */
  done(): void;
}

/**
 * The CLI's progress bar for SDK callers, in one line:
 *
 * ```ts
 * import { terminalProgress } from 'octx-export';
 * const progress = terminalProgress();
 * await loadWorkdir(builder, 'kb', { onProgress: progress });
 * await builder.export({ output: 'kb.octx', onProgress: progress });
 * progress.done();
 * ```
 *
 * Draws on stderr only when it is a terminal (or `OCTX_PROGRESS=1`); warnings are printed as
 * lines above the bar (they are in the export report too).
 */
export function terminalProgress(options: TerminalProgressOptions = {}): TerminalProgress {
  assertKnownKeys(options, keysOf<TerminalProgressOptions>({ stream: true, warnings: true, enabled: true, now: true, interval: true }), 'terminalProgress options');
  const stream = options.stream ?? process.stderr;
  const line = new ProgressLine(stream, options);
  const printWarnings = options.warnings ?? true;
  const handler = ((event: ProgressEvent) => {
    if (event.phase === 'warning') {
      if (!printWarnings) return;
      line.done();
      stream.write(`${issueLines(event.issue, { label: 'warning' }).join('\n')}\n`);
      return;
    }
    line.update(event);
  }) as TerminalProgress;
  handler.done = () => line.done();
  return handler;
}
