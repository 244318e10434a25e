/**
 * Issue collection for a validation run: issues are filed per layer (`format` or a capability
 * name), counted without limit, but only `maxIssues` are kept. The cap never hides that a layer
 * is invalid: every layer with an error keeps at least its first error in the final list.
 */
import type { OctxIssue } from '../model/errors.js';

interface Kept {
  readonly seq: number;
  readonly issue: OctxIssue;
}

interface Layer {
  kept: Kept[];
  errors: number;
  total: number;
}

/** The final, capped issue lists. */
export interface CollectedIssues {
  /** Kept issues of all layers, in the order they were found. */
  readonly issues: OctxIssue[];
  /** Kept issues per layer (each a subsequence of `issues`). */
  readonly byLayer: ReadonlyMap<string, OctxIssue[]>;
  /** Issues found but not kept because of the cap. */
  readonly dropped: number;
}

/** Collects issues by layer with a global cap. */
export class IssueCollector {
  private seq = 0;
  private readonly layers = new Map<string, Layer>();

  constructor(private readonly maxIssues: number) {}

  private layer(name: string): Layer {
    let l = this.layers.get(name);
    if (!l) {
      l = { kept: [], errors: 0, total: 0 };
      this.layers.set(name, l);
    }
    return l;
  }

  /** Files an issue under `layer`. */
  add(layer: string, i: OctxIssue): void {
    const l = this.layer(layer);
    l.total += 1;
    if (i.severity === 'error') l.errors += 1;
    // A layer never needs more than the global cap; its first error is always among them.
    if (l.kept.length < this.maxIssues) l.kept.push({ seq: this.seq++, issue: i });
  }

  /** True when `layer` will accept more issues (callers may skip building messages otherwise). */
  wants(layer: string): boolean {
    const l = this.layers.get(layer);
    return !l || l.kept.length < this.maxIssues;
  }

  /** Errors filed under `layer` (kept or not). */
  errors(layer: string): number {
    return this.layers.get(layer)?.errors ?? 0;
  }

  /** Removes everything filed under `layer` (its results are being replaced). */
  reset(layer: string): void {
    this.layers.delete(layer);
  }

  /** Ensures `layer` exists even without issues. */
  touch(layer: string): void {
    this.layer(layer);
  }

  /** The capped lists. */
  collect(): CollectedIssues {
    const all: Kept[] = [];
    let total = 0;
    for (const l of this.layers.values()) {
      all.push(...l.kept);
      total += l.total;
    }
    all.sort((a, b) => a.seq - b.seq);
    const chosen = new Set<Kept>(all.slice(0, this.maxIssues));
    for (const l of this.layers.values()) {
      const firstError = l.kept.find((k) => k.issue.severity === 'error');
      if (firstError) chosen.add(firstError);
    }
    const ordered = [...chosen].sort((a, b) => a.seq - b.seq);
    const byLayer = new Map<string, OctxIssue[]>();
    for (const [name, l] of this.layers) {
      const mine = new Set(l.kept);
      byLayer.set(
        name,
        ordered.filter((k) => mine.has(k)).map((k) => k.issue),
      );
    }
    return { issues: ordered.map((k) => k.issue), byLayer, dropped: total - ordered.length };
  }
}
