/**
 * Renders the SDK's progress events as one updating stderr line — phase, percent, count,
 * records per second and ETA — only when stderr is a terminal. Anywhere else (pipes, files,
 * CI logs) it stays silent, so machine output is never polluted.
 */
import type { ProgressEvent } from '../plan/report.js';

/** The stream the line is drawn on (`process.stderr` in the CLI). */
export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(chunk: string): boolean;
}

/** Options of {@link ProgressLine}. */
export interface ProgressLineOptions {
  /** Force on or off (default: `stream.isTTY`). */
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
    this.enabled = options.enabled ?? stream.isTTY === true;
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

  /** Handles one SDK progress event (warnings are not drawn here). */
  update(event: ProgressEvent): void {
    if (!this.enabled || event.phase === 'warning') return;
    this.step(`${event.phase} ${event.kind}`, event.completed, event.total);
  }

  /** Draws a step of any long work (`label`, `completed` of `total` records). */
  step(label: string, completed: number, total: number): void {
    if (!this.enabled) return;
    const now = this.#now();
    if (label !== this.#step) {
      this.#step = label;
      this.#stepStart = now;
      this.#lastDraw = -Infinity;
    }
    if (completed < total && now - this.#lastDraw < this.#interval) return;
    this.#lastDraw = now;
    let line = ProgressLine.render(label, completed, total, now - this.#stepStart);
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
