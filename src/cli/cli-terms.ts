/**
 * The one place where the SDK's wording becomes the CLI's: SDK messages and hints name option
 * fields (`pass overwrite: true`) and spec sections (`seed 002`, `coverage rule 2`), which mean
 * nothing to someone at a shell. Every message and hint the CLI prints goes through
 * {@link inCliTerms}.
 */

import { SDK_LIMITS_HINT } from '../plan/limits-check.js';

/** How the CLI raises the limits, in place of the SDK options {@link SDK_LIMITS_HINT} names. */
const CLI_LIMITS_HINT = 'split the input, or pass --max-entries <n> or --limits <file.json> when every consumer is configured for larger packages';

const literal = (text: string): RegExp => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g');

/** SDK phrase → CLI phrase (a replacement string or function, as `String.prototype.replace` takes), applied in order. */
const REPLACEMENTS: ReadonlyArray<readonly [RegExp, string | ((match: string, ...groups: string[]) => string)]> = [
  [literal(SDK_LIMITS_HINT), CLI_LIMITS_HINT],
  [/pass overwrite: true to replace (it|the link|the file)/g, 'use --overwrite to replace $1'],
  [/pass overwrite: true/g, 'use --overwrite'],
  [/pass documentsOnly: true/g, 'use --documents-only'],
  [/,? or documentsOnly: true to carry only the documents/g, ', or use --documents-only to carry only the documents'],
  [/pass dropInvalidLayers: true to derive without it/g, 'fix the source, or derive it with --documents-only'],
  [/pass normalized true or false/g, 'give --normalized true or --normalized false'],
  [/pass export\(\{ limits \}\)/g, 'raise the limits'],
  [/\(documentsOnly fails the same\); pass larger limits in the derive options/g, '(--documents-only fails the same); pass --max-entries <n> or --limits <file.json>'],
  [/, or opt in to rebuilding it from its chunks/g, ', or add --rebuild-documents to rebuild it from its chunks'],
  [/documentsOnly was requested/g, '--documents-only was given'],
  // SDK calls and option literals that only a library caller can act on: a CLI user is told the
  // flag or file that does the same, or nothing.
  [/; add one with addDocument\(\)/g, ''],
  [/call setVectorConfig\(\) \(or embed\(\)\) before addVector\(\)/g, 'give the vector config (vectors/config.json) before the vectors'],
  [/\(verifyContentHash: false\)/g, '(--skip-hash-check)'],
  [/ for a key not fetched first with ids\.reserve\(\)/g, ' for a key the build did not reserve first'],
  [/the config says normalized: true/g, 'the vector config says "normalized": true'],
  [/\brelease\.version must be/g, '--version must be'],
  [/\brelease\.createdAt must be a valid Date or a UTC time/g, '--created-at must be a UTC time'],
  // An adapter's warnings start with its SDK function's name (`fromSag: …`, see
  // `reportAdapterWarnings`); its command is the same name in lower case after `from-`.
  [/\bfrom([A-Z][A-Za-z]*): /g, (_match, name) => `from-${name.toLowerCase()}: `],
  [/linked to report\.chunkIds/g, 'linked to its chunks (the SDK adapter reports their ids)'],
  [/pass revision and other pipeline settings/g, 'give the model revision and other pipeline settings in --vector-config'],
  [/\basset\.id must be/g, '--asset-id must be'],
  [/^knowledge must (be|name) a folder inside the folder read/g, '--knowledge must $1 a folder inside the folder read'],
  [/\(indexFiles: ([a-z-]+)\)/g, '(--index-files $1)'],
  [/\s*\(coverage rule \d\)/g, ''],
  [/seed 002 Retrieval Result/g, 'RAG retrieval result'],
  [/seed 002 Chunk/g, 'RAG chunk'],
  [/seed 002 Vector/g, 'RAG vector'],
  [/seed 002/g, 'the RAG chunk format'],
  [/the seed 004 schema/g, 'the ingest-candidate schema'],
  [/seed 004/g, 'the ingest-candidate format'],
  [/seed (001 )?§\s?\d+/g, 'the SAG structure rules'],
];

/** SDK option field → the CLI option that sets it, for the `field …` line of an issue. */
const FIELDS: Readonly<Record<string, string>> = {
  'asset.id': 'asset-id',
  'asset.name': 'name',
  'release.version': 'version',
  'release.createdAt': 'created-at',
  overwrite: 'overwrite',
};

/** An issue's field in CLI terms: the option that sets it (`asset.id` → `asset-id`), else as is. */
export function fieldInCliTerms(field: string): string {
  return FIELDS[field] ?? field;
}

/**
 * A message without the code in front (`OCTX_X (place): text` → `text`): the SDK's `e.message`
 * starts with its code, which the CLI prints on its own (`error[OCTX_X]: …`, JSON `code`).
 */
export function withoutCode(text: string, code: string): string {
  if (!text.startsWith(code)) return text;
  const rest = text.slice(code.length);
  const m = /^(?: \([^)]*\))?: /.exec(rest);
  return m ? rest.slice(m[0].length) : text;
}

/** A message or hint in CLI terms. */
export function inCliTerms(text: string): string {
  let out = text;
  for (const [pattern, replacement] of REPLACEMENTS) {
    // Two calls: TypeScript picks `replace`'s overload by the replacement's type.
    out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }
  return out;
}
