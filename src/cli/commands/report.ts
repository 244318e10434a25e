/**
 * `octx-export report <file.octx>`: one self-contained HTML page that shows the package
 * (`renderReport` of `octx-export/report`), written beside it or where `-o` says, optionally
 * opened in the default browser.
 */
import { spawn } from 'node:child_process';
import { formatBytes } from '../../terminal/format-bytes.js';
import { terminalProgress } from '../../terminal/progress.js';
import { flag, str, usageError, type Command, type OptionValues } from '../args.js';
import { EXIT_OK } from '../errors.js';
import { requirePackagePath } from '../fs-checks.js';
import { cliLimits, READ_LIMIT_OPTIONS } from '../limits-options.js';
import { prepareOutputTarget, STDOUT_OUTPUT } from '../output-target.js';
import { consumerOption } from './validate.js';

/** The page's default path: the package's path with `.report.html` for `.octx`. */
export function defaultReportPath(packagePath: string): string {
  return `${packagePath.replace(/[\\/]+$/, '').replace(/\.octx$/i, '')}.report.html`;
}

/** A budget option: a whole number from 0 to 10,000,000. */
function budget(values: OptionValues, name: string): number | undefined {
  const raw = str(values, name);
  if (raw === undefined) return undefined;
  if (!/^(0|[1-9][0-9]{0,7})$/.test(raw)) throw usageError(`--${name} must be a whole number from 0 to 99999999 (got ${JSON.stringify(raw)})`, name);
  return Number(raw);
}

/** Opens `file` with the desktop's default program; a failure is a warning, not an error. */
function openInBrowser(file: string, warn: (message: string) => void): void {
  const [command, args] = process.platform === 'darwin' ? ['open', [file]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', file]] : ['xdg-open', [file]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', (e) => warn(`could not open the report with ${command}: ${e.message}`));
    child.unref();
  } catch (e) {
    warn(`could not open the report with ${command}: ${(e as Error).message}`);
  }
}

export const reportCommand: Command = {
  name: 'report',
  summary: 'write one self-contained HTML page that shows a package: verdict, documents, structure, entity graph, vectors',
  description: [
    'Runs the validator and streams the package once per layer, then writes a single HTML file with',
    'everything inlined (it works offline, from file://, attached to a ticket; its Content-Security-Policy',
    'forbids every remote source). Large packages are shown within budgets the page states: the top',
    'graph nodes by degree, a sample of the documents. The same package and options give the same bytes.',
    'Exit codes: 0 when the page was written (also for an invalid package: the page says what is wrong),',
    '1 when the package cannot be opened, 2 for usage and output errors.',
  ].join('\n'),
  positionals: [{ name: 'file', description: 'a .octx file (or an unpacked package folder)' }],
  options: {
    output: { type: 'string', short: 'o', value: '<file.html>', description: 'where to write the page (default: the package path with .report.html; - for stdout)' },
    overwrite: { type: 'boolean', description: 'replace the output file if it exists' },
    mkdir: { type: 'boolean', description: 'create the folder of -o when it is missing' },
    previous: { type: 'string', value: '<old.octx>', description: 'a previous release (or the source of a derived asset): the page opens with what changed' },
    consumer: { type: 'string', value: '<name>', description: 'also show what this consumer profile makes of the package: seed, sag-1.7' },
    'max-nodes': {
      type: 'string',
      value: '<n>',
      description: 'graph nodes drawn at most (default 5000): past it, the entities of highest degree and the events most linked to them',
    },
    'max-documents': { type: 'string', value: '<n>', description: 'rows of the documents table (default 2000): past it, an evenly spaced sample' },
    timestamp: { type: 'boolean', description: 'put the time of rendering on the page (the bytes then differ between runs)' },
    open: { type: 'boolean', description: 'open the page in the default browser when it is written' },
    ...READ_LIMIT_OPTIONS,
  },
  stdoutWrites: { what: 'the HTML page', onTerminal: 'the HTML page, its scripts inlined,', file: 'page.html' },
  examplesNote: 'out/three-kingdoms.octx and out/three-kingdoms-notes.octx: written by the examples of `octx-export build --help` and `octx-export derive --help`',
  examples: [
    'octx-export report out/three-kingdoms.octx -o out/three-kingdoms.html',
    'octx-export report out/three-kingdoms-notes.octx --previous out/three-kingdoms.octx --consumer sag-1.7',
    'octx-export report out/three-kingdoms.octx -o out/small.html --max-nodes 20 --json',
  ],
  async run(ctx) {
    const path = ctx.positionals[0]!;
    await requirePackagePath(path, 'package');
    const previous = str(ctx.values, 'previous');
    if (previous !== undefined) await requirePackagePath(previous, 'package');
    const consumer = consumerOption(str(ctx.values, 'consumer'));
    const maxNodes = budget(ctx.values, 'max-nodes');
    const maxDocuments = budget(ctx.values, 'max-documents');
    const toStdout = str(ctx.values, 'output') === STDOUT_OUTPUT;
    if (toStdout && flag(ctx.values, 'open')) throw usageError('--open needs a file: drop -o - or --open', 'open');
    const output = toStdout ? undefined : await prepareOutputTarget({ ...ctx.values, output: str(ctx.values, 'output') ?? defaultReportPath(path) }, ctx.json, ctx.io);
    const limits = await cliLimits(ctx.values);
    const { renderReport } = await import('../../report/render-report.js');
    const progress = terminalProgress({ stream: ctx.io.stderr, warnings: false });
    let result;
    try {
      result = await renderReport(path, {
        ...(output ? { output: output.path, overwrite: flag(ctx.values, 'overwrite') } : {}),
        ...(previous !== undefined ? { previous } : {}),
        ...(consumer !== undefined ? { consumer } : {}),
        ...(limits ? { limits } : {}),
        ...(maxNodes !== undefined ? { maxNodes } : {}),
        ...(maxDocuments !== undefined ? { maxDocuments } : {}),
        ...(flag(ctx.values, 'timestamp') ? { timestamp: true } : {}),
        onProgress: progress,
      });
    } finally {
      progress.done();
    }
    if (toStdout) {
      ctx.io.stdout.write(result.html);
      return EXIT_OK;
    }
    const d = result.data;
    const g = d.graph;
    const summary = {
      ok: true,
      command: 'report',
      path,
      output: result.output!,
      bytes: result.bytes,
      valid: d.validation.valid,
      documents: { shown: d.documents.rows.length, total: d.documents.total },
      graph: g ? { nodes: g.nodes.length, totalNodes: g.totalNodes, edges: g.edges.length, totalEdges: g.totalEdges } : null,
    };
    if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    else {
      const lines = [
        `wrote ${result.output!} (${formatBytes(result.bytes)})`,
        `  package       ${path}: ${d.validation.valid ? 'valid' : 'INVALID (the page lists the issues)'}`,
        `  documents     ${summary.documents.shown === summary.documents.total ? summary.documents.total : `${summary.documents.shown} of ${summary.documents.total} (a sample)`}`,
        `  graph         ${g ? `${g.nodes.length} of ${g.totalNodes} nodes, ${g.edges.length} of ${g.totalEdges} links` : 'none (no structure)'}`,
      ];
      ctx.io.stdout.write(`${lines.join('\n')}\n`);
    }
    if (flag(ctx.values, 'open')) openInBrowser(result.output!, (m) => ctx.io.stderr.write(`warning: ${m}\n`));
    return EXIT_OK;
  },
};
