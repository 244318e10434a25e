/**
 * `renderReport` on an exported package, in its own process so its peak RSS is its own.
 *
 *   node --expose-gc --import tsx bench/report.ts --file PKG.octx --out REPORT.html --size W [--limits raised]
 *
 * Prints the result line (bench/common.ts) with the page's size and what it shows.
 */
import { renderReport } from 'octx-export/report';
import { isMain, measure, parseArgs, parseSize, RAISED_LIMITS } from './common.js';

if (isMain(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  const size = parseSize(args.get('size'));
  const file = args.get('file');
  const out = args.get('out');
  if (!file || !out) throw new Error('--file PKG.octx and --out REPORT.html are required');
  await measure('report', size, Number(args.get('seed') ?? 1), async () => {
    const r = await renderReport(file, { output: out, overwrite: true, ...(args.get('limits') === 'raised' ? { limits: { ...RAISED_LIMITS } } : {}) });
    const d = r.data;
    const records = (d.structure?.counts ?? []).reduce((s, [, n]) => s + n, 0) + d.documents.total;
    return {
      records,
      payloadBytes: 0,
      extra: {
        htmlBytes: r.bytes,
        valid: d.validation.valid,
        documents: { shown: d.documents.rows.length, total: d.documents.total },
        nodes: { shown: d.graph?.nodes.length ?? 0, total: d.graph?.totalNodes ?? 0 },
        edges: { shown: d.graph?.edges.length ?? 0, total: d.graph?.totalEdges ?? 0 },
        vectors: d.vectors.map((v) => [v.target, v.rows]),
      },
    };
  });
}
