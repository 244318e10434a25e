/**
 * Issue collection for a validation run: issues are filed per layer (`format` or a capability
 * name), counted without limit, but only `maxIssues` are kept. The cap never hides what kind of
 * error a layer has: every layer keeps the first error of each error code in the final list, so a
 * thousand broken records cannot push out the `OCTX_RESOURCE_LIMIT` that stopped the scan.
 */
import type { OctxIssue } from '../model/errors.js';

interface Kept {
  readonly seq: number;
  readonly issue: OctxIssue;
}

interface Layer {
  kept: Kept[];
  /** Error codes with a kept issue in this layer. */
  errorCodes: Set<string>;
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
      l = { kept: [], errorCodes: new Set(), errors: 0, total: 0 };
      this.layers.set(name, l);
    }
    return l;
  }

  /** Files an issue under `layer`. */
  add(layer: string, i: OctxIssue): void {
    const l = this.layer(layer);
    l.total += 1;
    const newCode = i.severity === 'error' && !l.errorCodes.has(i.code);
    if (i.severity === 'error') l.errors += 1;
    // A layer keeps the global cap, plus the first error of every code found after it (at most
    // one per code, so still bounded).
    if (l.kept.length < this.maxIssues || newCode) {
      l.kept.push({ seq: this.seq++, issue: i });
      if (newCode) l.errorCodes.add(i.code);
    }
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
      const seen = new Set<string>();
      for (const k of l.kept) {
        if (k.issue.severity !== 'error' || seen.has(k.issue.code)) continue;
        seen.add(k.issue.code);
        chosen.add(k);
      }
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
