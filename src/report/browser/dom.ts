/**
 * DOM helpers of the report page. Every string from the package becomes a text node
 * (`textContent`, `createTextNode`), never markup: this file has no `innerHTML`, and the page's
 * Content-Security-Policy would refuse a script in markup anyway.
 */
import type { Histogram } from '../report-data.js';

/** A child of {@link el}: a node, text (becomes a text node), or nothing. */
export type Child = Node | string | number | null | undefined | false;

/** `document.createElement(tag)` with attributes (set as attributes, values as text) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Readonly<Record<string, string>> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  append(e, ...children);
  return e;
}

/** Appends children: strings and numbers as text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** A count with thousands separators (locale-independent, so tests and screenshots agree). */
export function num(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Bytes in binary units. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/** A horizontal bar chart: one row per label. */
export function barChart(labels: readonly string[], counts: readonly number[], name: string): HTMLElement {
  const max = Math.max(1, ...counts);
  const chart = el('div', { class: 'chart', 'data-chart': name });
  labels.forEach((label, i) => {
    const fill = el('div', { class: 'fill' });
    fill.style.width = `${(100 * counts[i]!) / max}%`;
    append(
      chart,
      el('div', { class: 'row' }, el('span', { class: 'label', title: label }, label), el('div', { class: 'track' }, fill), el('span', { class: 'value' }, num(counts[i]!))),
    );
  });
  return chart;
}

/** A histogram as a bar chart, with its title. */
export function histogram(title: string, h: Histogram, name: string): HTMLElement {
  return el('div', {}, el('h3', {}, title), h.counts.length === 0 ? el('p', { class: 'note' }, 'nothing to count') : barChart(h.labels, h.counts, name));
}

/** A column of {@link sortableTable}. */
export interface Column<T> {
  readonly title: string;
  readonly value: (row: T) => string | number;
  readonly numeric?: boolean;
  /** The cell's content, when not just the value. */
  readonly cell?: (row: T) => Child;
}

/**
 * A table whose headers sort it (click again to reverse) and whose rows a filter hides; `onPick`
 * is called with the row clicked.
 */
export function sortableTable<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  id: string,
  onPick?: (row: T, tr: HTMLTableRowElement) => void,
): { table: HTMLTableElement; filter: (query: string) => number } {
  const body = el('tbody');
  const trs = rows.map((row) => {
    const tr = el('tr', onPick ? { class: 'clickable' } : {});
    for (const c of columns) append(tr, el('td', c.numeric ? { class: 'num' } : {}, c.cell ? c.cell(row) : String(c.value(row))));
    if (onPick) tr.addEventListener('click', () => onPick(row, tr));
    return {
      row,
      tr,
      key: columns
        .map((c) => String(c.value(row)))
        .join('\u0000')
        .toLowerCase(),
    };
  });
  let order = trs.slice();
  const head = el('tr');
  const table = el('table', { id }, el('thead', {}, head), body);
  columns.forEach((c) => {
    const th = el('th', { class: `sortable${c.numeric ? ' num' : ''}`, scope: 'col' }, c.title);
    th.addEventListener('click', () => {
      const descending = th.getAttribute('aria-sort') === 'ascending';
      for (const other of head.children) other.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
      const sign = descending ? -1 : 1;
      order = trs.slice().sort((a, b) => {
        const x = c.value(a.row);
        const y = c.value(b.row);
        return sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
      });
      for (const r of order) body.appendChild(r.tr);
    });
    head.appendChild(th);
  });
  for (const r of order) body.appendChild(r.tr);
  const filter = (query: string): number => {
    const q = query.trim().toLowerCase();
    let shown = 0;
    for (const r of trs) {
      const hit = q === '' || r.key.includes(q);
      r.tr.hidden = !hit;
      if (hit) shown++;
    }
    return shown;
  };
  return { table, filter };
}
