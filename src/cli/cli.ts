/**
 * The command-line interface of the SDK. One file per command under `commands/`; this file only
 * dispatches, prints help and version, and turns errors into messages and exit codes (0 ok,
 * 1 invalid or failed, 2 usage or I/O error). `main.ts` is the executable entry point.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandHelp, mainHelp, parseCommandLine, usageError, type CliIo, type Command } from './args.js';
import { buildCommand } from './commands/build.js';
import { deriveCommand } from './commands/derive.js';
import { mergeCommand } from './commands/merge.js';
import { examplesCommand } from './commands/examples.js';
import { diffCommand } from './commands/diff.js';
import { fromIngestCommand } from './commands/from-ingest.js';
import { fromRagCommand } from './commands/from-rag.js';
import { fromSagCommand } from './commands/from-sag.js';
import { fromGraphRagCommand } from './commands/from-graphrag.js';
import { inspectCommand } from './commands/inspect.js';
import { reportCommand } from './commands/report.js';
import { validateCommand } from './commands/validate.js';
import { EXIT_OK, EXIT_USAGE, reportError } from './errors.js';
import { didYouMean } from './suggest.js';
import { assertStdoutTarget } from './output-target.js';

/**
 * Every command, in the order `--help` lists them (and the help-examples test runs their
 * examples: `examples` first makes the inputs, `build` the package the next ones read).
 */
export const COMMANDS: readonly Command[] = [
  examplesCommand,
  buildCommand,
  validateCommand,
  inspectCommand,
  deriveCommand,
  mergeCommand,
  diffCommand,
  reportCommand,
  fromRagCommand,
  fromIngestCommand,
  fromSagCommand,
  fromGraphRagCommand,
];

/** The package version (from package.json, two folders up in both src/ and dist/). */
export function cliVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * Runs the CLI with `argv` (without `node` and the script) and returns the exit code.
 * Never throws.
 */
export async function main(argv: readonly string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const json = argv.includes('--json');
  const debug = argv.includes('--debug');
  const [first, ...rest] = argv;
  try {
    if (first === undefined) {
      // A usage error: the help goes to stderr (stdout stays empty for pipes) and the exit code is 2.
      io.stderr.write(mainHelp(COMMANDS, cliVersion()));
      return EXIT_USAGE;
    }
    if (first === '--help' || first === '-h' || first === 'help') {
      const topic = first === 'help' ? rest[0] : undefined;
      const cmd = topic !== undefined ? COMMANDS.find((c) => c.name === topic) : undefined;
      if (topic !== undefined && !cmd) throw unknownCommand(topic);
      io.stdout.write(cmd ? commandHelp(cmd) : mainHelp(COMMANDS, cliVersion()));
      return EXIT_OK;
    }
    if (first === '--version' || first === '-v') {
      io.stdout.write(`${cliVersion()}\n`);
      return EXIT_OK;
    }
    const command = COMMANDS.find((c) => c.name === first);
    if (!command) throw unknownCommand(first);
    const { values, positionals } = parseCommandLine(command, rest);
    if (values.help) {
      io.stdout.write(commandHelp(command));
      return EXIT_OK;
    }
    // `-o -` on a terminal (or with --json) is refused before the command reads any input.
    if (command.options.output !== undefined) assertStdoutTarget(values, json, io, command.stdoutWrites);
    return await command.run({ values, positionals, io, json, debug });
  } catch (e) {
    return reportError(e, io, { json, debug, ...(first !== undefined && COMMANDS.some((c) => c.name === first) ? { command: first } : {}) });
  }
}

/** The usage error for an unknown command (or top-level option), with the closest name. */
function unknownCommand(name: string): ReturnType<typeof usageError> {
  const what = name.startsWith('-') ? 'option' : 'command';
  const candidates = name.startsWith('-') ? ['--help', '--version', '-h', '-v'] : [...COMMANDS.map((c) => c.name), 'help'];
  return usageError(`unknown ${what} ${JSON.stringify(name)}${didYouMean(name, candidates)}; commands: ${COMMANDS.map((c) => c.name).join(', ')}`);
}
