/**
 * The report page's bundled script for tests that run from the sources: `npm test` builds it
 * (`npm run build`), a single test file run on its own may find it missing or older than the page
 * code, so it is rebuilt then — into a temporary file renamed into place, so test files that start
 * together never read half a bundle.
 */
import { existsSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildReportPage, REPORT_PAGE_OUTFILE } from '../../scripts/report-page.mjs';
import { ROOT } from './temp.js';

/** Newest modification time of the files the bundle is made of. */
function newestSource(): number {
  const dir = join(ROOT, 'src/report/browser');
  const files = [...readdirSync(dir).map((f) => join(dir, f)), join(ROOT, 'src/report/report-data.ts'), join(ROOT, 'scripts/report-page.mjs')];
  return Math.max(...files.map((f) => statSync(f).mtimeMs));
}

/** Makes sure dist/report/page.js exists and is not older than its sources. */
export async function ensureReportPage(): Promise<void> {
  if (existsSync(REPORT_PAGE_OUTFILE) && statSync(REPORT_PAGE_OUTFILE).mtimeMs >= newestSource()) return;
  const temp = `${REPORT_PAGE_OUTFILE}.${process.pid}.tmp`;
  await buildReportPage(temp);
  renameSync(temp, REPORT_PAGE_OUTFILE);
}
