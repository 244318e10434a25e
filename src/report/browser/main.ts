/**
 * The report page: reads the JSON data block the renderer wrote and draws every section with DOM
 * calls. Strings from the package only ever become text nodes (see dom.ts).
 */
import { DATA_ELEMENT_ID, type ReportData, type ReportDocument, type ReportIssue, type ReportValidation } from '../report-data.js';
import { append, barChart, bytes, el, histogram, num, sortableTable, type Child } from './dom.js';
import { drawGraph, type GraphHandle } from './graph-view.js';

declare global {
  interface Window {
    /** Scripting hooks of the page (tests click graph nodes through them). */
    octxReport?: { readonly graph: GraphHandle | null };
  }
}

const data = JSON.parse(document.getElementById(DATA_ELEMENT_ID)!.textContent) as ReportData;

/** A `dt`/`dd` list of facts (missing values shown as —). */
function facts(id: string, rows: readonly (readonly [string, Child])[]): HTMLElement {
  const dl = el('dl', { class: 'facts', id });
  for (const [k, v] of rows) append(dl, el('dt', {}, k), el('dd', { 'data-fact': k }, v ?? '—'));
  return dl;
}

function section(id: string, title: string, ...children: Child[]): HTMLElement {
  return el('section', { id }, el('h2', {}, title), ...children);
}

function issuesTable(issues: readonly ReportIssue[], total: number, id: string): HTMLElement {
  if (total === 0) return el('p', { class: 'note', id }, 'No issues.');
  const rows = issues.map((i) =>
    el('tr', {}, el('td', { class: `code sev-${i.severity}` }, i.code), el('td', {}, i.severity), el('td', { class: 'mono' }, i.where), el('td', {}, i.message)),
  );
  return el(
    'div',
    {},
    el(
      'div',
      { class: 'scroll' },
      el(
        'table',
        { class: 'issues', id },
        el('thead', {}, el('tr', {}, el('th', {}, 'code'), el('th', {}, 'severity'), el('th', {}, 'where'), el('th', {}, 'message'))),
        el('tbody', {}, ...rows),
      ),
    ),
    total > issues.length ? el('p', { class: 'note' }, `${num(issues.length)} issues listed of ${num(total)}; \`octx-export validate --json\` lists every kept issue.`) : null,
  );
}

function verdictBadge(v: ReportValidation): HTMLElement {
  const [cls, word] = !v.valid ? ['bad', 'INVALID'] : v.fullyValidated ? ['ok', 'valid'] : ['warn', 'valid, not every capability checked'];
  return el('span', { class: `verdict ${cls}`, id: 'verdict' }, word);
}

function header(): HTMLElement {
  const a = data.asset;
  const v = data.validation;
  const derived = a.derivedFrom;
  return el(
    'header',
    {},
    el('h1', { id: 'asset-name' }, a.name ?? data.packageName),
    el(
      'p',
      { class: 'muted' },
      `${data.packageName}${data.packageSize !== null ? ` · ${bytes(data.packageSize)}` : ''}${data.renderedAt !== null ? ` · rendered ${data.renderedAt}` : ''}`,
    ),
    verdictBadge(v),
    facts('asset', [
      ['asset id', el('span', { class: 'mono' }, a.id ?? '—')],
      ['version', a.version],
      ['created', a.createdAt],
      ['package digest', el('span', { class: 'mono' }, a.packageDigest ?? '—')],
      ['format', a.format],
      ['capabilities', data.capabilities.length === 0 ? 'none — documents only' : data.capabilities.map(([n, ver]) => `${n} ${ver}`).join(', ')],
      ...(derived ? [['derived from', el('span', { class: 'mono' }, `${derived.assetId ?? '?'} ${derived.version ?? '?'} (${derived.packageDigest ?? '?'})`)] as const] : []),
    ]),
  );
}

function validationSection(): HTMLElement {
  const v = data.validation;
  const c = v.consumer;
  return section(
    'validation',
    'Validation',
    facts('layers', [['format', v.formatValid ? 'valid' : 'invalid'], ...v.capabilities.map(([n, verdict]) => [n, verdict] as const)]),
    issuesTable(v.issues, v.issueCount, 'issues'),
    c
      ? el(
          'div',
          { id: 'consumer' },
          el('h3', {}, `Consumer ${c.name}: `, el('span', { id: 'consumer-verdict' }, c.verdict)),
          issuesTable(c.issues, c.issueCount, 'consumer-issues'),
        )
      : null,
  );
}

function diffSection(): HTMLElement | null {
  const d = data.diff;
  if (!d) return null;
  const p = d.previous;
  const rows = d.records.map(([kind, added, removed, changed, unchanged]) =>
    el('tr', { 'data-diff': kind }, el('td', { class: 'mono' }, kind), ...[added, removed, changed, unchanged].map((n) => el('td', { class: 'num' }, num(n)))),
  );
  return section(
    'diff',
    `Changes since ${p.version ?? p.name}`,
    el(
      'p',
      { class: 'note' },
      `Compared with ${p.name} (${p.assetId ?? '?'} ${p.version ?? '?'}, ${p.packageDigest ?? '?'}): ${d.relation}; ${d.hasChanges ? 'changed' : 'no changes'}.`,
    ),
    el(
      'table',
      { id: 'diff-documents' },
      el(
        'tbody',
        {},
        ...d.documents.map(([cat, n, first]) =>
          el(
            'tr',
            { 'data-diff': cat },
            el('th', {}, `documents ${cat}`),
            el('td', { class: 'num' }, num(n)),
            el('td', { class: 'mono' }, first.slice(0, 10).join(', ') + (n > 10 ? ` … and ${num(n - 10)} more` : '')),
          ),
        ),
        el('tr', {}, el('th', {}, 'documents unchanged'), el('td', { class: 'num' }, num(d.unchangedDocuments)), el('td', {})),
      ),
    ),
    el(
      'table',
      { id: 'diff-records' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', {}, 'records'),
          el('th', { class: 'num' }, 'added'),
          el('th', { class: 'num' }, 'removed'),
          el('th', { class: 'num' }, 'changed'),
          el('th', { class: 'num' }, 'unchanged'),
        ),
      ),
      el('tbody', {}, ...rows),
    ),
  );
}

function documentsSection(): HTMLElement {
  const d = data.documents;
  const text = el('pre', { class: 'doc', id: 'doc-text' }, 'Click a document to read its Markdown (shown as text).');
  const textTitle = el('h3', { id: 'doc-title' });
  let current: HTMLTableRowElement | null = null;
  const pick = (row: ReportDocument, tr: HTMLTableRowElement): void => {
    current?.classList.remove('selected');
    tr.classList.add('selected');
    current = tr;
    textTitle.textContent = row.path;
    text.textContent =
      row.text === null
        ? `Not included: the page's Markdown budget (${bytes(d.textBudget)}) was spent. Read it from the package.`
        : row.text + (row.textCut > 0 ? `\n\n… ${bytes(row.textCut)} more not included (64 KiB per document).` : '');
  };
  const { table, filter } = sortableTable(
    d.rows,
    [
      { title: 'path', value: (r) => r.path, cell: (r) => el('span', { class: 'mono' }, r.path) },
      { title: 'title', value: (r) => r.title },
      { title: 'size', value: (r) => r.size, numeric: true, cell: (r) => bytes(r.size) },
      { title: 'chunks', value: (r) => r.chunks, numeric: true },
      { title: 'events', value: (r) => r.events, numeric: true },
      { title: 'chunks without events', value: (r) => r.chunksWithoutEvents, numeric: true },
    ],
    'documents-table',
    pick,
  );
  const count = el('span', { id: 'documents-shown' }, `${num(d.rows.length)} documents`);
  const search = el('input', { type: 'search', placeholder: 'Filter documents by path or title', 'aria-label': 'Filter documents', id: 'documents-filter' });
  search.addEventListener('input', () => (count.textContent = `${num(filter(search.value))} of ${num(d.rows.length)} documents`));
  return section(
    'documents',
    'Documents',
    el(
      'p',
      { class: 'note', id: 'documents-note' },
      d.rows.length < d.total
        ? `A sample of ${num(d.rows.length)} of ${num(d.total)} documents, evenly spaced in manifest order (the page's row budget).`
        : `All ${num(d.total)} documents.`,
    ),
    ...d.unreadable.map((u) => el('p', { class: 'note sev-error' }, `Could not be read to the end: ${u}`)),
    search,
    ' ',
    count,
    el('div', { class: 'scroll' }, table),
    textTitle,
    text,
  );
}

function structureSection(): HTMLElement | null {
  const s = data.structure;
  if (!s) return null;
  return section(
    'structure',
    'Structure',
    el(
      'table',
      { id: 'counts' },
      el('tbody', {}, ...s.counts.map(([path, n]) => el('tr', {}, el('th', { class: 'mono' }, path), el('td', { class: 'num', 'data-count': path }, num(n))))),
    ),
    s.unresolved > 0
      ? el('p', { class: 'note sev-warning' }, `${num(s.unresolved)} records or links could not be placed (bad or repeated ids, links to nothing): see the validation issues.`)
      : null,
    ...s.unreadable.map((u) => el('p', { class: 'note sev-error' }, `Could not be read to the end: ${u}`)),
    el(
      'div',
      { class: 'grid' },
      histogram('Events per chunk', s.eventsPerChunk, 'events-per-chunk'),
      histogram('Chunks per event', s.chunksPerEvent, 'chunks-per-event'),
      histogram('Entities per event', s.entitiesPerEvent, 'entities-per-event'),
    ),
    el(
      'div',
      { class: 'grid' },
      el(
        'div',
        {},
        el('h3', {}, 'Entity types'),
        barChart(
          s.entityTypes.slice(0, 30).map(([t]) => t),
          s.entityTypes.slice(0, 30).map(([, n]) => n),
          'entity-types',
        ),
        s.entityTypes.length > 30 ? el('p', { class: 'note' }, `30 of ${num(s.entityTypes.length)} types shown`) : null,
      ),
      el(
        'div',
        {},
        el('h3', {}, 'Top entities by degree (events)'),
        el(
          'table',
          { id: 'top-entities' },
          el(
            'tbody',
            {},
            ...s.topEntities.map(([name, type, degree]) => el('tr', {}, el('td', {}, name), el('td', { class: 'muted' }, type), el('td', { class: 'num' }, num(degree)))),
          ),
        ),
      ),
    ),
  );
}

function graphSection(): { section: HTMLElement; draw: () => GraphHandle } | null {
  const g = data.graph;
  if (!g) return null;
  const container = el('div', { id: 'graph' });
  const panel = el('div', { id: 'node-details' }, el('p', { class: 'note' }, 'Click a node to see its events, chunks and documents.'));
  const shown =
    g.nodes.length < g.totalNodes
      ? `Showing ${num(g.nodes.length)} of ${num(g.totalNodes)} nodes (node budget ${num(g.maxNodes)}): the entities of highest degree and the events most linked to them`
      : `All ${num(g.totalNodes)} nodes`;
  const edges =
    g.edges.length < g.edgesAmongNodes
      ? `${num(g.edges.length)} of the ${num(g.edgesAmongNodes)} links among them (edge budget ${num(g.maxEdges)})`
      : `${num(g.edges.length)} links`;
  const s = section(
    'graph-section',
    'Entity graph',
    el(
      'p',
      { class: 'note', id: 'graph-note' },
      `${shown}; ${edges}; ${num(g.totalEdges)} event-entity links in the package. Events and entities are nodes, sized by degree, coloured by type.`,
    ),
    el(
      'div',
      { class: 'legend' },
      ...g.legend.map(([type, colour]) => {
        const sw = el('span', { class: 'swatch' });
        sw.style.background = colour;
        return el('span', {}, sw, type);
      }),
    ),
    el('div', { id: 'graph-wrap' }, container, panel),
  );
  return { section: s, draw: () => drawGraph(container, panel, g) };
}

function vectorsSection(): HTMLElement | null {
  const c = data.vectorConfig;
  if (!c && data.vectors.length === 0) return null;
  return section(
    'vectors',
    'Vectors',
    c
      ? facts('vector-config', [
          ['model', c.model],
          ['dimensions', c.dimensions === null ? null : num(c.dimensions)],
          ['normalized', c.normalized === null ? null : String(c.normalized)],
          ['fingerprint', el('span', { class: 'mono' }, c.fingerprint ?? '—')],
        ])
      : null,
    el(
      'div',
      { class: 'grid' },
      ...data.vectors.map((v) =>
        el(
          'div',
          { 'data-target': v.target },
          el('h3', {}, `${v.target}: `, el('span', { 'data-rows': v.target }, num(v.rows)), ' rows'),
          v.error !== null ? el('p', { class: 'note sev-error' }, `Could not be read to the end: ${v.error}`) : null,
          el(
            'p',
            { class: 'note' },
            `Norms ${v.minNorm === null ? '—' : `${v.minNorm.toFixed(4)} – ${v.maxNorm!.toFixed(4)}`}${v.normsSampled < v.rows ? ` · histogram of a sample of ${num(v.normsSampled)} rows` : ''}`,
          ),
          barChart(v.norms.labels, v.norms.counts, `norms-${v.target}`),
        ),
      ),
    ),
  );
}

const graph = graphSection();
const main = el(
  'main',
  {},
  header(),
  diffSection(),
  validationSection(),
  documentsSection(),
  structureSection(),
  graph?.section,
  vectorsSection(),
  el('footer', { class: 'note' }, `Made by ${data.generator} report. Everything on this page comes from the package; nothing is loaded from anywhere.`),
);
document.body.appendChild(main);
window.octxReport = { graph: graph ? graph.draw() : null };
