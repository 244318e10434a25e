/**
 * The report page's script: the browser part (sigma, graphology and the page code of
 * `report/browser/`), bundled by esbuild at build time into `dist/report/page.js`, which the
 * renderer inlines into every page. It is found beside the calling module in every layout the
 * package runs from: the ESM build (`dist/report/`), the CommonJS build (`dist/cjs/report/`, two
 * folders down from `dist/report/`) and the sources under tsx or vitest (`src/report/`, whose
 * bundle is the repository's `dist/report/`).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OctxError } from '../model/errors.js';
import { callerFile } from '../package/worker-entry.js';

/** The bundle's file name. */
export const PAGE_SCRIPT_NAME = 'page.js';

/** Where the bundle may be, for a module in `dir` (the first that exists wins). */
export function pageScriptCandidates(dir: string): string[] {
  return [join(dir, PAGE_SCRIPT_NAME), join(dir, '..', '..', 'report', PAGE_SCRIPT_NAME), join(dir, '..', '..', 'dist', 'report', PAGE_SCRIPT_NAME)];
}

let cached: string | undefined;

/**
 * The bundled page script. Read once per process.
 * @param candidates where to look (default: beside this module, see {@link pageScriptCandidates})
 * @throws OctxError `OCTX_REPORT_SCRIPT_MISSING` when no bundle is found (a source checkout
 *   that was never built), or it holds a sequence that would end its `<script>` element
 */
export function readPageScript(candidates?: readonly string[]): string {
  if (candidates === undefined && cached !== undefined) return cached;
  const own = callerFile('page-script');
  const dir = own === undefined ? undefined : dirname(own.startsWith('file:') ? fileURLToPath(own) : own);
  const list = candidates ?? (dir === undefined ? [] : pageScriptCandidates(dir));
  for (const file of list) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    // Inlined as it is: `</script` or `<!--` inside would end or confuse the element.
    if (/<\/script|<!--/i.test(text)) {
      throw OctxError.of({
        code: 'OCTX_REPORT_SCRIPT_MISSING',
        path: file,
        message: `the report page script ${file} holds "</script" or "<!--", which cannot be inlined; rebuild it`,
      });
    }
    if (candidates === undefined) cached = text;
    return text;
  }
  throw OctxError.of({
    code: 'OCTX_REPORT_SCRIPT_MISSING',
    message: `the report page script (${PAGE_SCRIPT_NAME}) is not built: looked in ${list.join(', ') || 'no folder (the module file is unknown)'}; run \`npm run build\``,
  });
}
