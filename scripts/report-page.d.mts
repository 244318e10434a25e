// Types of report-page.mjs for the TypeScript tests that import it.
/** The bundle's entry point (src/report/browser/main.ts). */
export declare const REPORT_PAGE_ENTRY: string;
/** Where `npm run build` writes the bundle (dist/report/page.js). */
export declare const REPORT_PAGE_OUTFILE: string;
/** Bundles the report page into `outfile` (default {@link REPORT_PAGE_OUTFILE}); resolves with it. */
export declare function buildReportPage(outfile?: string): Promise<string>;
