// The report page's script (src/report/browser/: the page code, sigma and graphology) bundled by
// esbuild into one file that the renderer inlines into every report (src/report/page-script.ts).
// `npm run build` writes it to dist/report/page.js, which ships; tests that run from the sources
// rebuild it when it is missing or older than the page code (test/helpers/report-page.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);

/** The bundle's entry point. */
export const REPORT_PAGE_ENTRY = fileURLToPath(new URL('src/report/browser/main.ts', root));
/** Where `npm run build` writes the bundle. */
export const REPORT_PAGE_OUTFILE = fileURLToPath(new URL('dist/report/page.js', root));

/**
 * Bundles the page into `outfile`: one minified IIFE for browsers of the last few years, the
 * libraries' licence comments kept at its end, and nothing that would end its `<script>` element
 * (checked here, and again by the renderer).
 * @param {string} [outfile]
 */
export async function buildReportPage(outfile = REPORT_PAGE_OUTFILE) {
  await build({
    entryPoints: [REPORT_PAGE_ENTRY],
    absWorkingDir: fileURLToPath(root),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'eof',
    charset: 'utf8',
    tsconfig: fileURLToPath(new URL('src/report/browser/tsconfig.json', root)),
    outfile,
    logLevel: 'warning',
  });
  const text = readFileSync(outfile, 'utf8');
  if (/<\/script|<!--/i.test(text)) throw new Error(`${outfile} holds "</script" or "<!--": it cannot be inlined into a <script> element`);
  return outfile;
}
