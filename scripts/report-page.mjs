// The report page's script (src/report/browser/: the page code, sigma and graphology) bundled by
// esbuild into one file that the renderer inlines into every report (src/report/page-script.ts).
// `npm run build` writes it to dist/report/page.js, which ships; tests that run from the sources
// rebuild it when it is missing or older than the page code (test/helpers/report-page.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);

/** The bundle's entry point. */
export const REPORT_PAGE_ENTRY = fileURLToPath(new URL('src/report/browser/main.ts', root));
/** Where `npm run build` writes the bundle. */
export const REPORT_PAGE_OUTFILE = fileURLToPath(new URL('dist/report/page.js', root));

/**
 * A comment naming every package the bundle holds, with its licence text (their MIT licences ask
 * that the notice travels with every copy; their minified code carries none of its own).
 * @param {Record<string, unknown>} inputs esbuild's metafile inputs
 */
function licenceBanner(inputs) {
  const names = [...new Set(Object.keys(inputs).flatMap((f) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1] ?? []))].sort();
  const parts = names.map((name) => {
    const dir = fileURLToPath(new URL(`node_modules/${name}/`, root));
    const pkg = JSON.parse(readFileSync(`${dir}package.json`, 'utf8'));
    const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
    const text = file ? readFileSync(`${dir}${file}`, 'utf8').trim() : `licence: ${pkg.license}`;
    return `${name} ${pkg.version}\n\n${text}`;
  });
  const body = `The octx-export report page bundles:\n\n${parts.join('\n\n---\n\n')}`.replace(/\*\//g, '* /');
  return `/*!\n${body}\n*/\n`;
}

/**
 * Bundles the page into `outfile`: one minified IIFE for browsers of the last few years, opened
 * by the licences of the libraries it holds, and nothing that would end its `<script>` element
 * (checked here, and again by the renderer).
 * @param {string} [outfile]
 */
export async function buildReportPage(outfile = REPORT_PAGE_OUTFILE) {
  const result = await build({
    metafile: true,
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
  const text = licenceBanner(result.metafile.inputs) + readFileSync(outfile, 'utf8');
  writeFileSync(outfile, text);
  if (/<\/script|<!--/i.test(text)) throw new Error(`${outfile} holds "</script" or "<!--": it cannot be inlined into a <script> element`);
  return outfile;
}
