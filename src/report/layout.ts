/**
 * The graph's layout, computed once when the report is rendered (not in the browser, so opening
 * the page costs nothing and every viewer sees the same picture): ForceAtlas2 (graphology's
 * implementation) from seeded start positions. Same nodes and edges → same positions, to the
 * byte, so the same package gives the same HTML.
 */
import * as graphology from 'graphology';
import * as forceAtlas2Module from 'graphology-layout-forceatlas2';

/** What the layout uses of a graphology graph. */
interface LayoutGraph {
  readonly size: number;
  addNode(key: string, attributes: { x: number; y: number }): unknown;
  mergeEdge(source: string, target: string): unknown;
  getNodeAttributes(key: string): { x: number; y: number };
}
/** What the layout uses of graphology-layout-forceatlas2. */
interface ForceAtlas2 {
  assign(graph: LayoutGraph, params: { iterations: number; settings: Record<string, unknown> }): void;
  inferSettings(graph: LayoutGraph): Record<string, unknown>;
}

/**
 * The module's main value. Both packages are CommonJS and declare an ES default export, which
 * TypeScript types differently for the ESM and the CommonJS build; at run time `default` is the
 * constructor or function itself either way (Node's ESM view of `module.exports`, graphology's
 * own ESM file, or esModuleInterop's wrapper).
 */
function main<T>(module: unknown): T {
  const d = (module as { default?: unknown }).default;
  return (typeof d === 'function' ? d : module) as T;
}
const Graph = main<new (options: { type: 'undirected'; multi: boolean; allowSelfLoops: boolean }) => LayoutGraph>(graphology);
const forceAtlas2 = main<ForceAtlas2>(forceAtlas2Module);

/** The fixed seed of the start positions. */
const SEED = 0x6f637478; // "octx"
/** Positions are scaled into [0, EXTENT] and rounded to 0.1: enough for any screen, short in JSON. */
const EXTENT = 1000;

/** mulberry32: a small, well-mixed 32-bit PRNG; seeded, so the layout is reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Iterations by graph size: small graphs settle slowly but cost little; past 500 nodes the
 * repulsion is approximated (Barnes-Hut) and fewer iterations are run, so 5,000 nodes lay out in
 * a few seconds of CPU.
 */
function iterationsFor(order: number): number {
  if (order <= 500) return 400;
  if (order <= 2000) return 150;
  return 80;
}

/**
 * Positions of `order` nodes joined by `edges` (pairs of node indices): `[x0, y0, x1, y1, …]`,
 * scaled into [0, 1000] and rounded to 0.1.
 */
export function layoutGraph(order: number, edges: readonly (readonly [number, number])[]): Float64Array {
  const out = new Float64Array(order * 2);
  if (order === 0) return out;
  const graph = new Graph({ type: 'undirected', multi: false, allowSelfLoops: false });
  const random = seededRandom(SEED);
  for (let i = 0; i < order; i++) graph.addNode(String(i), { x: random() * 100, y: random() * 100 });
  for (const [a, b] of edges) if (a !== b) graph.mergeEdge(String(a), String(b));
  if (graph.size > 0) {
    forceAtlas2.assign(graph, { iterations: iterationsFor(order), settings: { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: order > 500 } });
  }
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < order; i++) {
    const a = graph.getNodeAttributes(String(i));
    const x = Number.isFinite(a.x) ? a.x : 0;
    const y = Number.isFinite(a.y) ? a.y : 0;
    out[2 * i] = x;
    out[2 * i + 1] = y;
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  const scale = EXTENT / Math.max(maxX - minX, maxY - minY, 1e-9);
  for (let i = 0; i < order; i++) {
    out[2 * i] = Math.round((out[2 * i]! - minX) * scale * 10) / 10;
    out[2 * i + 1] = Math.round((out[2 * i + 1]! - minY) * scale * 10) / 10;
  }
  return out;
}
