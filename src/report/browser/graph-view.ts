/**
 * The entity graph of the report page: sigma.js (WebGL) over a graphology graph whose positions
 * were computed when the page was rendered. Clicking a node lists, as text, its events (for an
 * entity) or entities (for an event), and the chunks and documents behind them.
 */
import Graph from 'graphology';
import Sigma from 'sigma';
import type { ReportGraph, ReportNode } from '../report-data.js';
import { append, el, num } from './dom.js';

/** What tests and scripts may ask the drawn graph. */
export interface GraphHandle {
  /** Where node `id` is drawn, in CSS pixels of the graph element (`null` when it is not drawn). */
  nodePosition(id: string): { x: number; y: number } | null;
}

/** The chunks and documents behind a set of events. */
function provenance(g: ReportGraph, events: readonly ReportNode[]): { chunks: string[]; documents: string[] } {
  const chunks: string[] = [];
  const docs = new Set<string>();
  for (const e of events) {
    for (const [doc, ordinal] of e.chunks ?? []) {
      const path = g.documents[doc] ?? '(document not in the package)';
      chunks.push(`${path} · chunk ${ordinal}`);
      docs.add(path);
    }
  }
  return { chunks, documents: [...docs] };
}

/** A titled list, capped, saying how many there are in all. */
function list(title: string, items: readonly string[], total: number, name: string): HTMLElement {
  const shown = items.slice(0, 50);
  return el(
    'div',
    { 'data-list': name },
    el('h3', {}, `${title} (${num(total)})`),
    shown.length === 0 ? el('p', { class: 'note' }, 'none drawn') : el('ul', {}, ...shown.map((s) => el('li', {}, s))),
    total > shown.length ? el('p', { class: 'note' }, `${num(shown.length)} listed of ${num(total)}`) : null,
  );
}

/** Fills `panel` with what is behind node `i`. */
function showDetails(panel: HTMLElement, g: ReportGraph, neighbours: readonly number[][], i: number): void {
  const n = g.nodes[i]!;
  panel.replaceChildren();
  panel.setAttribute('data-node-id', n.id);
  append(panel, el('h3', {}, n.label), el('p', { class: 'note mono' }, `${n.kind} · ${n.type} · ${n.id}`));
  const linked = neighbours[i]!.map((k) => g.nodes[k]!);
  if (n.kind === 'entity') {
    append(
      panel,
      list(
        'Events',
        linked.map((e) => e.label),
        n.degree,
        'events',
      ),
    );
    const p = provenance(g, linked);
    append(panel, list('Chunks of these events', p.chunks, p.chunks.length, 'chunks'), list('Documents', p.documents, p.documents.length, 'documents'));
  } else {
    append(
      panel,
      list(
        'Entities',
        linked.map((e) => `${e.label} (${e.type})`),
        n.degree,
        'entities',
      ),
    );
    const p = provenance(g, [n]);
    append(panel, list('Chunks', p.chunks, n.chunkCount ?? p.chunks.length, 'chunks'), list('Documents', p.documents, p.documents.length, 'documents'));
  }
  if (linked.length < n.degree)
    append(
      panel,
      el(
        'p',
        { class: 'note' },
        `${num(linked.length)} of ${num(n.degree)} links are drawn (past its node budget the graph draws the entities of highest degree and the events most linked to them).`,
      ),
    );
}

/** Draws `g` into `container`; clicks fill `panel`. */
export function drawGraph(container: HTMLElement, panel: HTMLElement, g: ReportGraph): GraphHandle {
  const graph = new Graph({ type: 'undirected', multi: false });
  g.nodes.forEach((n, i) => graph.addNode(String(i), { x: n.x, y: n.y, size: n.size, color: n.color, label: n.label }));
  const neighbours: number[][] = g.nodes.map(() => []);
  for (const [a, b] of g.edges) {
    if (graph.hasEdge(String(a), String(b))) continue;
    graph.addEdge(String(a), String(b), { size: 1, color: '#b4bcc8' });
    neighbours[a]!.push(b);
    neighbours[b]!.push(a);
  }
  const renderer = new Sigma(graph, container, { labelRenderedSizeThreshold: 9, labelDensity: 0.5, zIndex: true, allowInvalidContainer: true });
  let selected: string | null = null;
  renderer.setSetting('nodeReducer', (node, attrs) =>
    selected !== null && node !== selected && !graph.areNeighbors(node, selected) ? { ...attrs, color: '#d0d4da', label: '' } : attrs,
  );
  renderer.on('clickNode', ({ node }) => {
    selected = node;
    showDetails(panel, g, neighbours, Number(node));
    renderer.refresh();
  });
  renderer.on('clickStage', () => {
    selected = null;
    renderer.refresh();
  });
  const index = new Map(g.nodes.map((n, i) => [n.id, String(i)]));
  return {
    nodePosition(id) {
      const key = index.get(id);
      if (key === undefined) return null;
      const d = renderer.getNodeDisplayData(key);
      return d ? renderer.framedGraphToViewport(d) : null;
    },
  };
}
