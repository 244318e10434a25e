/**
 * Command specs, strict argument parsing (`node:util` `parseArgs`) and generated `--help` text.
 */
import { parseArgs } from 'node:util';
import { OctxError } from '../model/errors.js';
import { didYouMean } from './suggest.js';

/** One command-line option. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** Placeholder shown in the help (`<file.octx>`). */
  readonly value?: string;
  readonly description: string;
  /** A usage error when absent. */
  readonly required?: boolean;
  /** May be given more than once. */
  readonly multiple?: boolean;
  /**
   * A string option that may also be given alone (`--find-renames`, as git's `-M`): it then takes
   * this value, and a value of its own must be attached (`--find-renames=75%`).
   */
  readonly optionalValue?: string;
}

/** One positional argument. */
export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  readonly optional?: boolean;
  /** Takes every remaining argument (at least one unless optional). */
  readonly variadic?: boolean;
}

/** Parsed values of a command line. */
export type OptionValues = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** Where a command writes. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

/** What a command's `run` receives. */
export interface CommandContext {
  readonly values: OptionValues;
  readonly positionals: readonly string[];
  readonly io: CliIo;
  /** `--json`: print exactly one JSON document to stdout. */
  readonly json: boolean;
  readonly debug: boolean;
}

/** What a command's `-o -` writes to stdout, in the words its refusals use. */
export interface StdoutWrites {
  /** What goes to stdout: `the package`. */
  readonly what: string;
  /** The same, as a terminal would receive it: `the binary package`. */
  readonly onTerminal: string;
  /** A file name to redirect it to, for the hint: `file.octx`. */
  readonly file: string;
}

/** A sub-command. */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** A paragraph under the usage line. */
  readonly description?: string;
  readonly positionals: readonly PositionalSpec[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  readonly examples?: readonly string[];
  /** Where an example's input comes from, when another command makes it (a `#` line above the examples). */
  readonly examplesNote?: string;
  /** What `-o -` writes, for a command with an `output` option (default: the package). */
  readonly stdoutWrites?: StdoutWrites;
  /** Returns the exit code. Throws OctxError for user errors. */
  run(ctx: CommandContext): Promise<number>;
}

/** Options every command has. */
export const COMMON_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  json: { type: 'boolean', description: 'print exactly one JSON document to stdout (errors too)' },
  debug: { type: 'boolean', description: 'print the stack trace of unexpected errors' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/** A usage error (exit code 2). */
export function usageError(message: string, field?: string): OctxError {
  return OctxError.of({ code: 'OCTX_USAGE_ERROR', ...(field !== undefined ? { field } : {}), message });
}

function allOptions(command: Command): Record<string, OptionSpec> {
  return { ...command.options, ...COMMON_OPTIONS };
}

/**
 * Parses a command line strictly: unknown options, missing values, missing required options and
 * wrong positional counts are usage errors.
 * @throws OctxError `OCTX_USAGE_ERROR`
 */
export function parseCommandLine(command: Command, args: readonly string[]): { values: OptionValues; positionals: string[] } {
  const options = allOptions(command);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: withOptionalValues(options, args),
      options: Object.fromEntries(
        Object.entries(options).map(([name, o]) => [name, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    const message = (e as Error).message
      .replace(/\. To specify a positional argument[^]*$/, '')
      .replace(/\s+/g, ' ')
      .trim();
    // An unknown option gets the closest known one (`--versoin` → `--version`).
    const unknown = /^Unknown option '(-[^']*)'/.exec(message)?.[1];
    const names = Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
    throw usageError(`${command.name}: ${message}${unknown !== undefined ? didYouMean(unknown.replace(/=.*$/, ''), names) : ''}`);
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (values.help) return { values, positionals: parsed.positionals };
  for (const [name, o] of Object.entries(command.options)) {
    if (o.required && (values[name] === undefined || values[name] === '')) {
      throw usageError(`${command.name}: --${name} ${o.value ?? ''} is required`.replace(/\s+is/, ' is'), name);
    }
  }
  const positionals = parsed.positionals;
  const min = command.positionals.filter((p) => !p.optional).length;
  const variadic = command.positionals.some((p) => p.variadic);
  if (positionals.length < min) {
    const missingNames = command.positionals
      .slice(positionals.length)
      .filter((p) => !p.optional)
      .map((p) => `<${p.name}>`);
    throw usageError(`${command.name}: missing ${missingNames.join(' ')}`);
  }
  if (!variadic && positionals.length > command.positionals.length) {
    throw usageError(`${command.name}: unexpected argument ${JSON.stringify(positionals[command.positionals.length])}`);
  }
  return { values, positionals };
}

/** The arguments with each option that may stand alone given its value (`--find-renames` → `--find-renames=50%`), up to `--`. */
function withOptionalValues(options: Readonly<Record<string, OptionSpec>>, args: readonly string[]): string[] {
  const bare = new Map<string, string>();
  for (const [name, o] of Object.entries(options)) if (o.optionalValue !== undefined) bare.set(`--${name}`, `--${name}=${o.optionalValue}`);
  if (bare.size === 0) return [...args];
  const end = args.indexOf('--');
  return args.map((a, i) => (end >= 0 && i >= end ? a : (bare.get(a) ?? a)));
}

function usageLine(command: Command): string {
  const pos = command.positionals.map((p) => {
    const name = `<${p.name}>${p.variadic ? '...' : ''}`;
    return p.optional ? `[${name}]` : name;
  });
  const required = Object.entries(command.options)
    .filter(([, o]) => o.required)
    .map(([name, o]) => (o.short ? `-${o.short} ${o.value ?? ''}` : `--${name} ${o.value ?? ''}`).trim());
  return ['octx-export', command.name, ...pos, ...required, '[options]'].join(' ');
}

/** The `--help` text of a command. */
export function commandHelp(command: Command): string {
  const lines = [`Usage: ${usageLine(command)}`, '', command.summary];
  if (command.description) lines.push('', command.description);
  if (command.positionals.length > 0) {
    lines.push('', 'Arguments:');
    const width = Math.max(...command.positionals.map((p) => p.name.length + 2));
    for (const p of command.positionals) lines.push(`  ${`<${p.name}>`.padEnd(width)}  ${p.description}`);
  }
  const entries = Object.entries(allOptions(command)).map(([name, o]) => {
    const value = o.optionalValue !== undefined ? `[=${o.value ?? '<value>'}]` : ` ${o.value ?? '<value>'}`;
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? value : ''}`;
    const notes = [o.required ? 'required' : '', o.multiple ? 'repeatable' : ''].filter(Boolean);
    return [flag, `${o.description}${notes.length ? ` (${notes.join(', ')})` : ''}`] as const;
  });
  const width = Math.max(...entries.map(([f]) => f.length));
  lines.push('', 'Options:', ...entries.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`));
  if (command.examples?.length) {
    // The examples run as printed from a folder holding the example inputs, which ship with the package.
    const notes = command.examples.some((e) => e.includes(' fixtures/')) ? ['# fixtures/: the example inputs; `octx-export examples` copies them into the current folder'] : [];
    if (command.examplesNote !== undefined) notes.push(`# ${command.examplesNote}`);
    lines.push('', 'Examples:', ...notes.map((n) => `  ${n}`), ...command.examples.map((e) => `  ${e}`));
  }
  return `${lines.join('\n')}\n`;
}

/** The top-level help text. */
export function mainHelp(commands: readonly Command[], version: string): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `octx-export ${version} — produce and check Open Context (.octx) packages`,
    '',
    'Usage: octx-export <command> [arguments] [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    '  -h, --help     show this help (or `octx-export <command> --help` for a command)',
    '  -v, --version  print the version',
    '',
    'Exit codes: 0 ok, 1 invalid package or failed export, 2 usage or I/O error.',
    'Docs, in the octx-export package folder (node_modules/octx-export/ when installed):',
    '  docs/cli.md (every command), docs/api/README.md (the SDK API reference).',
    '',
  ].join('\n');
}

/** A string option value (the last one when repeated). */
export function str(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  if (Array.isArray(v)) return v.at(-1);
  return typeof v === 'string' ? v : undefined;
}

/** A repeatable string option's values. */
export function list(values: OptionValues, name: string): string[] {
  const v = values[name];
  if (Array.isArray(v)) return v;
  return typeof v === 'string' ? [v] : [];
}

/** A boolean option. */
export function flag(values: OptionValues, name: string): boolean {
  return values[name] === true;
}
