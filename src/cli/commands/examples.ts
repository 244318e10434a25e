import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OctxError } from '../../model/errors.js';
import { flag, type Command } from '../args.js';
import { EXIT_OK, withHint } from '../errors.js';
import { copyFoldersAllOrNothing } from '../folder-copy.js';

/**
 * The example inputs every `--help` example runs on, under `fixtures/` of the package folder
 * (package.json `files` ships exactly these; test/cli/help-examples.test.ts holds the examples,
 * this list and the tarball together).
 */
export const EXAMPLE_INPUTS = [
  'kb-three-kingdoms',
  'docs-site',
  'docs-trees/vitepress',
  'reading-notes',
  'rag',
  'ingest',
  'sag/engine-0.7.1',
  'sag/engine-0.8',
  'graphrag/v2-small',
] as const;

/** The package's `fixtures/` folder: three levels up from both src/cli/commands/ and dist/cli/commands/. */
const SHIPPED = fileURLToPath(new URL('../../../fixtures/', import.meta.url));

export const examplesCommand: Command = {
  name: 'examples',
  summary: 'copy the example inputs the --help examples run on into ./fixtures (run it first)',
  description: [
    'Every `--help` example runs as printed from a folder holding fixtures/: this command copies the',
    `example inputs that ship with the package (${EXAMPLE_INPUTS.join(', ')}) into <dir>/fixtures.`,
    'The copy is all or nothing (staged beside <dir>/fixtures, then renamed into place), and never goes through',
    'a symbolic link under <dir>/fixtures.',
    'The examples write into out/; validate, inspect and derive read the package the first build example writes.',
  ].join('\n'),
  positionals: [{ name: 'dir', description: 'where to create fixtures/ (default: the current folder)', optional: true }],
  options: { overwrite: { type: 'boolean', description: 'replace example inputs that are already there' } },
  examples: ['octx-export examples'],
  async run(ctx) {
    const into = join(resolve(ctx.positionals[0] ?? '.'), 'fixtures');
    try {
      await copyFoldersAllOrNothing({ from: SHIPPED, names: EXAMPLE_INPUTS, into, overwrite: flag(ctx.values, 'overwrite'), overwriteOption: 'overwrite' });
    } catch (e) {
      if (e instanceof OctxError && e.code === 'OCTX_OUTPUT_EXISTS') {
        throw withHint(e, 'the example inputs are already there: run the examples, or pass --overwrite to copy them again');
      }
      throw e;
    }
    if (ctx.json) {
      ctx.io.stdout.write(`${JSON.stringify({ ok: true, command: 'examples', fixtures: into, inputs: EXAMPLE_INPUTS }, null, 2)}\n`);
    } else {
      ctx.io.stdout.write(
        [
          `copied the example inputs into ${into}: ${EXAMPLE_INPUTS.join(', ')}`,
          'next, from the folder holding fixtures/: octx-export build fixtures/kb-three-kingdoms -o out/three-kingdoms.octx --mkdir --name "Three Kingdoms"',
          '(every command lists more: octx-export <command> --help)',
          '',
        ].join('\n'),
      );
    }
    return EXIT_OK;
  },
};
