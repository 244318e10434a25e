import { OctxError } from '../../model/errors.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, recordFileStem, type RecordCountKey, type RecordKindSpec } from '../../model/record-kinds.js';
import { VECTOR_TARGETS } from '../../vectors/targets.js';
import type { Command } from '../args.js';
import { inCliTerms } from '../cli-terms.js';
import { EXIT_OK } from '../errors.js';
import { requirePackagePath } from '../fs-checks.js';
import { cliLimits, READ_LIMIT_OPTIONS } from '../limits-options.js';

/** A part of the package that inspect could not read (it reports it and goes on: it does not judge). */
interface Unreadable {
  readonly part: string;
  readonly code: string;
  readonly message: string;
}

/** Counts an iterable; a read error is recorded in `unreadable` and gives null. */
async function count(part: string, it: () => AsyncIterable<unknown>, unreadable: Unreadable[]): Promise<number | null> {
  let n = 0;
  try {
    for await (const _ of it()) n++;
    return n;
  } catch (e) {
    if (!(e instanceof OctxError)) throw e;
    unreadable.push({ part, code: e.code, message: firstMessage(e) });
    return null;
  }
}

/** The first issue's own message (the error's message repeats the code and path). */
const firstMessage = (e: OctxError): string => inCliTerms((e.issues[0]?.message ?? e.message).split('\n')[0]!);

const shown = (n: number | null): string => (n === null ? '? (unreadable)' : String(n));

/** A line per record kind (`chunks        3`), then one for every relation (`relations     3 chunk-event, 4 event-entity`). */
function recordLines(records: Readonly<Record<RecordCountKey, number | null>>): string[] {
  const lines: string[] = [];
  const relations: string[] = [];
  for (const kind of RECORD_KIND_ORDER) {
    const row: RecordKindSpec = RECORD_KINDS[kind];
    const n = shown(records[row.countKey as RecordCountKey]);
    if (row.role === 'relation') relations.push(`${n} ${kind}`);
    else lines.push(`  ${recordFileStem(kind).padEnd(14)}${n}`);
  }
  if (relations.length > 0) lines.push(`  relations     ${relations.join(', ')}`);
  return lines;
}

export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'show asset, release, capabilities, record counts per layer and the vector config',
  description: [
    'Reads the package without judging it; run `validate` to check it. Exit codes: 0 when the',
    'manifest could be read and printed, even if some entries cannot be read (they are listed as',
    'unreadable, e.g. a tampered entry); 1 when the file is not a readable package at all (not a',
    'ZIP, no manifest); 2 when the path does not exist or the command line is wrong.',
  ].join('\n'),
  positionals: [{ name: 'file', description: 'a .octx file (or an unpacked package folder)' }],
  options: { ...READ_LIMIT_OPTIONS },
  examplesNote: 'out/three-kingdoms.octx: written by the first example of `octx-export build --help`',
  examples: [
    'octx-export inspect out/three-kingdoms.octx',
    'octx-export inspect out/three-kingdoms.octx --json',
    'octx-export inspect out/three-kingdoms.octx --max-entries 50000',
  ],
  async run(ctx) {
    await requirePackagePath(ctx.positionals[0]!, 'package');
    const { openPackage } = await import('../../read/open-package.js');
    // A package built with raised limits is read with the same ones.
    const limits = await cliLimits(ctx.values);
    const pkg = await openPackage(ctx.positionals[0]!, limits ? { limits } : {});
    try {
      const info = pkg.info;
      const unreadable: Unreadable[] = [];
      let concepts: number | null = 0;
      let reserved: number | null = 0;
      try {
        for await (const d of pkg.documents()) {
          if (d.kind === 'concept') concepts++;
          else reserved++;
        }
      } catch (e) {
        if (!(e instanceof OctxError)) throw e;
        unreadable.push({ part: 'documents', code: e.code, message: firstMessage(e) });
        concepts = reserved = null;
      }
      // Every kind of the table, by the export report's count key; a part is named by its file.
      const records = {} as Record<RecordCountKey, number | null>;
      for (const kind of RECORD_KIND_ORDER) records[RECORD_KINDS[kind].countKey] = await count(recordFileStem(kind), () => pkg.records(kind), unreadable);
      const counts = {
        documents: concepts,
        reservedDocuments: reserved,
        ...records,
        extensionFiles: info.files.filter((f) => f.path.startsWith('extensions/')).length,
      };
      const listed = new Set(info.files.map((f) => f.path));
      const vectors: Record<string, number | null> = {};
      for (const t of VECTOR_TARGETS) vectors[t] = listed.has(`vectors/${t}.arrow`) ? await count(`vectors/${t}`, () => pkg.vectors(t), unreadable) : null;
      let vectorConfig = null;
      try {
        vectorConfig = (await pkg.vectorConfig()) ?? null;
      } catch (e) {
        if (!(e instanceof OctxError)) throw e;
        unreadable.push({ part: 'vectors/config.json', code: e.code, message: firstMessage(e) });
      }
      const doc = {
        ok: true,
        command: 'inspect',
        path: pkg.path,
        kind: pkg.kind,
        format: { format: info.format ?? null, version: info.formatVersion ?? null },
        asset: {
          id: info.assetId ?? null,
          name: info.assetName ?? null,
          ...(info.derivedFrom ? { derivedFrom: info.derivedFrom } : {}),
        },
        release: { version: info.version ?? null, createdAt: info.createdAt ?? null, packageDigest: info.packageDigest ?? null },
        capabilities: info.capabilities,
        counts: { ...counts, vectors },
        vectorConfig,
        files: info.files.length,
        unreadable,
      };
      if (ctx.json) {
        ctx.io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
        return EXIT_OK;
      }
      const caps = Object.entries(info.capabilities).map(([n, v]) => `${n}/${v ?? '?'}`);
      const lines = [
        `${pkg.path} (${pkg.kind}, ${info.format ?? '?'} ${info.formatVersion ?? '?'}, ${info.files.length} files)`,
        `  asset         ${info.assetId ?? '?'} "${info.assetName ?? '?'}"`,
        ...(info.derivedFrom ? [`  derived from  ${info.derivedFrom.assetId ?? '?'} ${info.derivedFrom.version ?? '?'} (${info.derivedFrom.packageDigest ?? '?'})`] : []),
        `  release       ${info.version ?? '?'} (${info.createdAt ?? '?'})`,
        `  digest        ${info.packageDigest ?? '?'}`,
        `  capabilities  ${caps.length > 0 ? caps.join(', ') : 'none — documents only'}`,
        `  documents     ${concepts === null ? '? (unreadable)' : `${concepts} concept(s), ${reserved} reserved`}`,
        ...recordLines(records),
        `  vectors       ${
          VECTOR_TARGETS.filter((t) => vectors[t] !== null)
            .map((t) => `${t} ${shown(vectors[t]!)} rows`)
            .join(', ') || 'none'
        }`,
      ];
      if (vectorConfig) lines.push(`  vector config ${JSON.stringify(vectorConfig)}`);
      if (counts.extensionFiles > 0)
        lines.push(
          `  extensions    ${info.files
            .filter((f) => f.path.startsWith('extensions/'))
            .map((f) => f.path)
            .join(', ')}`,
        );
      for (const u of unreadable) lines.push(`  unreadable    ${u.part}: ${u.code}: ${u.message}`);
      if (unreadable.length > 0) lines.push('  note          some entries could not be read; inspect does not judge — run `octx-export validate` for the verdict');
      ctx.io.stdout.write(`${lines.join('\n')}\n`);
      return EXIT_OK;
    } finally {
      await pkg.close();
    }
  },
};
