/**
 * How the CLI reports failures: each issue in the one format of `error-format.ts`
 * (`error[CODE]: message`, then its file/record/field lines) plus one `hint:` line, never a
 * stack trace for user errors (OctxError); unexpected errors print their stack only with
 * `--debug`. Exit codes: 1 invalid input or failed export, 2 usage or I/O error.
 */
import { OCTX_CODES, type OctxCode } from '../model/codes.js';
import { OctxError, type OctxIssue } from '../model/errors.js';
import type { CliIo } from './args.js';
import { inCliTerms, withoutCode } from './cli-terms.js';
import { formatIssue, hintLine } from './error-format.js';

/** Exit code of a successful run. */
export const EXIT_OK = 0;
/** Exit code of an invalid package, invalid input or a failed export. */
export const EXIT_FAILED = 1;
/** Exit code of a usage or I/O error. */
export const EXIT_USAGE = 2;

/** Codes that are usage or I/O errors (exit 2); every other code exits 1. */
const USAGE_CODES: ReadonlySet<OctxCode> = new Set<OctxCode>([
  'OCTX_USAGE_ERROR',
  'OCTX_OPTIONS_INVALID',
  'OCTX_VERSION_INVALID',
  'OCTX_RELEASE_CREATED_AT_INVALID',
  'OCTX_ASSET_INVALID',
  'OCTX_OPEN_ERROR',
  'OCTX_IO_ERROR',
  'OCTX_OUTPUT_EXISTS',
  'OCTX_OUTPUT_INVALID',
  'OCTX_STATE_INVALID',
  'OCTX_DEPENDENCY_MISSING',
  'OCTX_REPORT_SCRIPT_MISSING',
  'OCTX_SAG_NOT_ENGINE_DB',
]);

/** One line on how to fix each code a user is likely to meet. */
export const HINTS: Readonly<Partial<Record<OctxCode, string>>> = {
  OCTX_USAGE_ERROR: 'run `octx-export <command> --help` for the arguments and options',
  OCTX_OPTIONS_INVALID: 'check the option value named above; `octx-export <command> --help` lists the accepted values',
  OCTX_VERSION_INVALID: 'give --version as SemVer 2.0.0 without a "v", e.g. 1.2.0 or 1.3.0-rc.1',
  OCTX_RELEASE_CREATED_AT_INVALID: 'give --created-at as a UTC time such as 2026-07-12T10:00:00Z',
  OCTX_OPEN_ERROR: 'check the path: it must be an existing .octx file or package folder',
  OCTX_IO_ERROR: 'check that the path exists and that you may read (or write) it',
  OCTX_OUTPUT_EXISTS: 'pass --overwrite to replace the file, or choose another -o path',
  OCTX_OUTPUT_INVALID: 'choose an -o path in an existing, writable folder (add --mkdir to create missing folders)',
  OCTX_STATE_INVALID: 'point --state at the producer state file of this asset, or at a new file to start one',
  OCTX_RELEASE_CONFLICT: 'this version was already released with other content: pass a higher --version (or omit --version with --state to bump the patch)',
  OCTX_RELEASE_VERSION_REQUIRED: 'the content changed: pass a --version higher than the last release (or omit --version with --state)',
  OCTX_STRUCTURE_INCOMPLETE:
    'every document needs a chunk, every chunk and entity an event, every event a chunk and an entity: add the real missing records, or drop --require-structure to export the documents only',
  OCTX_STRICT_VIOLATION:
    'with --strict nothing may be left out and nothing may warn: fix what is listed above (link the orphans, add the missing vectors, give --asset-id or --state), or drop --strict to write the package without it',
  OCTX_RECORD_FIELD_SUSPECT: 'rename the field to the known one it looks like (fields use snake_case wire names: parent_id, document_id, …)',
  OCTX_RESOURCE_LIMIT:
    'consumers with default limits would refuse this package: split the input, or, when every consumer is configured for larger packages, raise the limit with --max-entries <n> or --limits <file.json>',
  OCTX_STRUCTURE_INVALID: 'fix the records named above (ids, references, ordinals, event levels); nothing was written',
  OCTX_CONCEPT_REQUIRED: 'add at least one Markdown document (not index.md/log.md) under knowledge/',
  OCTX_RECORD_INVALID: 'fix the field named above; records use the sag-structured/0.1 wire field names (id, document_id, ordinal, text, …)',
  OCTX_RECORD_FIELD_FORBIDDEN: 'remove the field: events carry no chunk_id/references/rank and entities no local index fields',
  OCTX_REFERENCE_UNKNOWN: 'the id must be the id of a document or record in the same input',
  OCTX_ID_INVALID: 'ids are canonical lower-case UUIDv7, e.g. 019c2222-2222-7222-8222-222222222222',
  OCTX_ID_DUPLICATE: 'every id must be unique across the asset, documents, chunks, events and entities',
  OCTX_CHUNK_ORDINAL_DUPLICATE: 'give each chunk of a document its own ordinal',
  OCTX_DOCUMENT_FRONTMATTER: 'fix the frontmatter block at the top of the file (YAML between --- lines, TOML between +++ lines, or a JSON object)',
  OCTX_FRONTMATTER_TOO_LARGE:
    'keep large values in the document body: a frontmatter block holds at most 1 MiB by default; when every consumer accepts more, pass --limits <file.json> with {"maxFrontmatterBytes": <n>} (and the same --limits to validate and inspect)',
  OCTX_FRONTMATTER_TOO_COMPLEX:
    'keep long lists and many keys in the document body: a frontmatter block holds at most 50,000 YAML nodes by default; when every consumer accepts more, pass --limits <file.json> with {"maxFrontmatterNodes": <n>} (and the same --limits to validate and inspect)',
  OCTX_DOCUMENT_TYPE_MISSING: 'give the document a non-empty string type, quoted in YAML (type: "Guide")',
  OCTX_DOCUMENT_INVALID: 'documents must be UTF-8 Markdown',
  OCTX_PATH_INVALID: 'use relative POSIX paths in NFC; documents end in .md, extension files live under extensions/<reverse-dns>/<major.minor>/',
  OCTX_FILE_PATH_DUPLICATE: 'two inputs map to the same package path; rename one',
  OCTX_OKF_RESERVED_INVALID:
    'index.md and log.md are reserved OKF files: follow their structure, rename the file, or build with --index-files as-documents (keep it as a document, renamed to _index.md) or --index-files skip',
  OCTX_JSON_INVALID: 'each JSON file (or JSONL line) must be one strict JSON value: no comments, NaN or trailing commas',
  OCTX_JSON_DUPLICATE_KEY: 'remove the repeated key from the JSON object',
  OCTX_JSONL_EMPTY_LINE: 'remove the empty line: every JSONL line is one JSON object',
  OCTX_JSONL_RECORD_TYPE: 'every JSONL line must be a JSON object',
  OCTX_VECTOR_CONFIG_INVALID: 'vectors/config.json needs model, dimensions (positive integer) and normalized (true/false)',
  OCTX_VECTOR_CONFIG_FORBIDDEN: 'remove URLs, keys, endpoints and distance metrics from the vector config',
  OCTX_VECTOR_CONFIG_REQUIRED: 'add vectors/config.json before the vector files',
  OCTX_VECTOR_VALUE_INVALID: 'every vector needs exactly `dimensions` finite numbers',
  OCTX_VECTOR_RECORD_ID_DUPLICATE: 'give each record one vector only',
  OCTX_VECTOR_ARROW_INVALID: 'write the vectors as an uncompressed Arrow IPC file with record_id (utf8) and vector (fixed_size_list<float32>)',
  OCTX_VECTOR_COLUMNS_REQUIRED: 'the Arrow file needs a record_id and a vector column',
  OCTX_ADAPTER_INPUT_INVALID: 'fix the input named above; docs/cli.md describes the accepted input of each adapter',
  OCTX_SECURITY_ERROR: 'remove symbolic links and unsafe paths from the input',
  OCTX_DERIVATION_REQUIRED: 'the source package is invalid: derive a documents-only asset (--documents-only) to recover its documents',
  OCTX_VALIDATION_ERROR: 'the written package failed its own validation; this is a bug — please report it with the input',
  OCTX_ABORTED: 'the export was cancelled; nothing was written',
  OCTX_EMBEDDER_FAILED: 'check the embedding service, then retry',
  OCTX_EMBEDDER_RESPONSE_INVALID:
    'the embedding service broke the OpenAI embeddings format (or redirected elsewhere); fix the service or baseURL, or raise maxResponseBytes for a legitimately large answer',
  OCTX_SAG_NOT_ENGINE_DB:
    'give from-sag the zleap-sag engine database: <SAG_DATA_DIR>/sag.db, by default ./.data/engine/sag.db where SAG runs (./.data/sag.db is the application database)',
  OCTX_ADAPTER_WARNING: 'the adapter left part of its input out or changed it, as the warning says; --strict makes every such warning an error',
  OCTX_REPORT_SCRIPT_MISSING: 'the report needs its built page script: run `npm run build` in a source checkout (an installed package ships it)',
  OCTX_SHARD_EMPTY: 'merge the other shards without this one (it would add nothing), or build fewer shards than there are documents',
  OCTX_SHARD_CUT_INVALID:
    'link the parent event to a chunk of each document its child events are in (relations/chunk-events.jsonl), or build the folder in fewer shards, or unsharded',
  OCTX_LEDGER_FAILED: 'check that Redis answers at the --ledger URL (redis-cli -u <url> ping) and that every shard of the asset uses the same --ledger and --ledger-namespace',
  OCTX_DEPENDENCY_MISSING: 'from-sag needs SQLite: run `npm install better-sqlite3@12` in your project, or use Node.js ≥ 22.5 (built-in node:sqlite)',
};

/** Hints that fit one error better than its code's (which input a missing path was). */
const HINT_OVERRIDES = new WeakMap<OctxError, string>();

/** Gives `e` its own hint line in place of its code's; returns `e`. */
export function withHint(e: OctxError, hint: string): OctxError {
  HINT_OVERRIDES.set(e, hint);
  return e;
}

/** The hint of the SQLite database `from-sag` could not open (the adapter's own OCTX_OPEN_ERROR). */
const COMMAND_HINTS: Readonly<Record<string, Partial<Record<OctxCode, string>>>> = {
  'from-sag': { OCTX_OPEN_ERROR: 'check the path: it must be an existing SQLite file, the zleap-sag engine database (<SAG_DATA_DIR>/sag.db)' },
  'from-graphrag': {
    OCTX_DEPENDENCY_MISSING:
      'from-graphrag reads LanceDB tables with @lancedb/lancedb: run `npm install @lancedb/lancedb@0.31.0`, or use --vectors snapshots (embeddings.*.parquet) or --vectors none',
  },
};

/** The hint line's text for an error: its own override, the command's, or its (cause's) code's. */
export function hintOf(e: OctxError, command?: string): string {
  const own = HINT_OVERRIDES.get(e);
  if (own !== undefined) return own;
  const code = hintCodeOf(e);
  return (command !== undefined ? COMMAND_HINTS[command]?.[code] : undefined) ?? hintFor(code);
}

/**
 * True for the error of writing to a stdout whose reader has gone (EPIPE): not a path problem,
 * so it is never reported; the run ends with exit 0 (docs/cli.md).
 */
export function isStdoutClosed(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
}

/** The exit code for an error. */
export function exitCodeFor(e: unknown): number {
  if (e instanceof OctxError) return USAGE_CODES.has(e.code) ? EXIT_USAGE : EXIT_FAILED;
  const sys = (e as NodeJS.ErrnoException | undefined)?.code;
  if (typeof sys === 'string' && /^E[A-Z]+$/.test(sys)) return EXIT_USAGE;
  return EXIT_FAILED;
}

/** The hint line for a code. */
export function hintFor(code: OctxCode): string {
  return HINTS[code] ?? `${OCTX_CODES[code] ?? 'see docs/cli.md'} — see docs/cli.md#exit-codes-and-errors`;
}

/**
 * One issue as the CLI prints it (the format of `error-format.ts`), as one string of one or more
 * lines.
 */
export function formatIssueLine(i: OctxIssue, label = i.severity === 'warning' ? 'warning' : 'error'): string {
  return formatIssue(i, { label }).join('\n');
}

const MAX_PRINTED = 20;

/**
 * Codes that only wrap the real cause (the derivation refused because the source did not
 * validate): when every error behind them is a limit, the limit's hint is the one that helps.
 */
const WRAPPER_CODES: ReadonlySet<OctxCode> = new Set<OctxCode>(['OCTX_DERIVATION_REQUIRED']);

/** The code whose hint fits an error: its own, or the cause's when it only wraps a limit. */
export function hintCodeOf(e: OctxError): OctxCode {
  if (!WRAPPER_CODES.has(e.code)) return e.code;
  const cause = e.cause;
  if (cause instanceof OctxError && cause.code === 'OCTX_RESOURCE_LIMIT') return cause.code;
  const errors = e.issues.filter((i) => i.severity !== 'warning');
  if (errors.length > 0 && errors.every((i) => i.code === 'OCTX_RESOURCE_LIMIT')) return 'OCTX_RESOURCE_LIMIT';
  return e.code;
}

/**
 * The headline of an aggregate error (`error[CODE]: headline`) when its code differs from its
 * first issue's (`OCTX_STRUCTURE_INCOMPLETE` over `OCTX_SAG_DOCUMENT_WITHOUT_CHUNK` issues);
 * undefined when the first issue already carries the error's code (fail-fast errors, and
 * aggregates that lead with their own summary issue).
 */
export function headlineOf(e: OctxError): string | undefined {
  const [one] = e.issues;
  if (one !== undefined && one.code === e.code) return undefined;
  return e.message.split('\n')[0]!;
}

/**
 * The one-line message of an error in CLI terms, without its code (the CLI prints that beside
 * it): the headline of an aggregate, the issue's own message for a fail-fast error (whose
 * `e.message` is `CODE (place): message`).
 */
export function messageOf(e: OctxError): string {
  return inCliTerms(withoutCode(e.message.split('\n')[0]!, e.code)).replace(/:$/, '');
}

/** The JSON form of an error for `--json`. */
export function errorJson(e: OctxError, command: string | undefined): Record<string, unknown> {
  return {
    ok: false,
    ...(command ? { command } : {}),
    error: {
      code: e.code,
      message: messageOf(e),
      hint: inCliTerms(hintOf(e, command)),
      // Messages for people in CLI terms; the locators (path, record, field) stay data, as the SDK gives them.
      issues: e.issues.map((i) => ({ ...i, message: inCliTerms(withoutCode(i.message, i.code)) })),
      ...(e.report !== undefined ? { report: e.report } : {}),
    },
  };
}

/**
 * Prints an error and returns its exit code: issues as `error` lines on stderr (at most 20) and
 * one `hint:` line; with `json`, also one JSON document on stdout.
 */
export function reportError(e: unknown, io: CliIo, options: { json: boolean; debug: boolean; command?: string }): number {
  const code = exitCodeFor(e);
  if (e instanceof OctxError) {
    const issues = e.issues.length > 0 ? e.issues : [{ code: e.code, severity: 'error' as const, message: e.message }];
    const headline = headlineOf(e);
    const lines = headline === undefined ? [] : formatIssue({ code: e.code, severity: 'error', message: headline });
    lines.push(...issues.slice(0, MAX_PRINTED).flatMap((i) => formatIssue({ ...i, severity: 'error' })));
    if (issues.length > MAX_PRINTED)
      lines.push(`… and ${issues.length - MAX_PRINTED} more issue(s)${options.json ? ' (all of them are in the JSON output)' : ' (use --json to see all)'}`);
    lines.push(hintLine(hintOf(e, options.command)));
    if (options.debug && e.stack) lines.push(e.stack);
    io.stderr.write(`${lines.join('\n')}\n`);
    if (options.json) io.stdout.write(`${JSON.stringify(errorJson(e, options.command), null, 2)}\n`);
    return code;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  const sys = (err as NodeJS.ErrnoException).code;
  // The reader of stdout went away (`-o - | head -c 100`): like other Unix tools, stop quietly.
  if (isStdoutClosed(err)) return EXIT_OK;
  const lines = [`error[${sys ?? 'UNEXPECTED'}]: ${err.message.split('\n')[0]}`];
  if (code === EXIT_USAGE) lines.push(hintLine('check that the path exists and that you may read (or write) it'));
  if (options.debug) lines.push(err.stack ?? '');
  else lines.push('(run again with --debug for the stack trace)');
  io.stderr.write(`${lines.join('\n')}\n`);
  if (options.json) {
    io.stdout.write(
      `${JSON.stringify({ ok: false, ...(options.command ? { command: options.command } : {}), error: { code: sys ?? 'UNEXPECTED', message: err.message.split('\n')[0] } }, null, 2)}\n`,
    );
  }
  return code;
}
