/**
 * `octx-export/report`: one self-contained HTML page showing what a package holds — its
 * identity and the validator's verdict, documents, structure, entity graph (sigma.js, laid out
 * with ForceAtlas2 at render time) and vectors, and the diff against a previous release. A
 * sub-path of its own, so that `import 'octx-export'` never loads the graph libraries.
 */
export { renderReport, type RenderReportOptions, type ReportResult } from './render-report.js';
export type {
  Histogram,
  ReportData,
  ReportDiff,
  ReportDocument,
  ReportGraph,
  ReportIssue,
  ReportNode,
  ReportValidation,
  ReportVectorConfig,
  ReportVectors,
} from './report-data.js';
