/**
 * `adapterCommand` (src/cli/adapter-command.ts), the one run of every `from-*` command, driven
 * through a small adapter command of the test's own: notes in a JSONL file become documents, each
 * with one full-text chunk. What a command states is its own; the rest — the export options, the
 * order of checks, the builder, the export and the summary or `--json` document — is shared.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PackageBuilder } from '../../src/builder/package-builder.js';
import { adapterCommand, type AdapterFlags, type AdapterCommandSpec } from '../../src/cli/adapter-command.js';
import { parseCommandLine, type Command } from '../../src/cli/args.js';
import { inCliTerms } from '../../src/cli/cli-terms.js';
import { EXPORT_OPTIONS } from '../../src/cli/export-run.js';
import { fromRagCommand } from '../../src/cli/commands/from-rag.js';
import { fromIngestCommand } from '../../src/cli/commands/from-ingest.js';
import { fromSagCommand } from '../../src/cli/commands/from-sag.js';
import { OctxError } from '../../src/model/errors.js';
import { failureAsync } from '../helpers/errors.js';
import { readPackageText } from '../helpers/package-files.js';
import { tempDir } from '../helpers/temp.js';

const ASSET = '019c0000-0000-7000-8000-0000000000e1';

interface Note {
  readonly title: string;
  readonly text: string;
}

/** What the demo command saw, for the assertions. */
interface Seen {
  readFlags?: AdapterFlags;
  mapFlags?: AdapterFlags;
  builder?: PackageBuilder;
  read: number;
}

/** A demo adapter command; `overrides` replace parts of its spec. */
function demoCommand(seen: Seen, overrides: Partial<AdapterCommandSpec<Note[], { notes: number; titles: string[] }>> = {}): Command {
  return adapterCommand<Note[], { notes: number; titles: string[] }>({
    name: 'from-notes',
    summary: 'export notes',
    description: 'Notes (JSONL, {"title","text"} per line) → one document and one full-text chunk each.',
    positionals: [{ name: 'notes.jsonl', description: 'the notes' }],
    options: { prefix: { type: 'string', value: '<text>', description: 'put before every title' } },
    async read(ctx, flags) {
      seen.read++;
      seen.readFlags = flags;
      const { readJsonObjects } = await import('../../src/adapters/shared/json-input.js');
      return (await readJsonObjects(ctx.positionals[0]!)).map((o) => o.value as Note);
    },
    async map(builder, notes, run) {
      seen.builder = builder;
      seen.mapFlags = run.flags;
      notes.forEach((n, i) => {
        builder.addDocument({ path: `note-${i}.md`, markdown: `# ${n.title}\n\n${n.text}\n` });
        if (!run.flags.documentsOnly) builder.addChunk({ id: builder.ids.chunk(`note:${i}`), document_id: builder.documentId(`note-${i}.md`), ordinal: 0, text: n.text });
      });
      return { notes: notes.length, titles: notes.map((n) => n.title) };
    },
    lines: (r) => [`  notes         ${r.notes} note(s): ${r.titles.join(', ')}`],
    ...overrides,
  });
}

/** Runs a command in-process with captured output. */
async function run(command: Command, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { values, positionals } = parseCommandLine(command, args);
  const io = { stdout: { write: (c: string) => (out.push(c), true) }, stderr: { write: (c: string) => (err.push(c), true) } } as never;
  await command.run({ values, positionals, io, json: values.json === true, debug: false });
  return { stdout: out.join(''), stderr: err.join('') };
}

function notesFile(): string {
  const file = join(tempDir(), 'notes.jsonl');
  writeFileSync(file, '{"title":"Alpha","text":"The first note."}\n{"title":"Beta","text":"The second note."}\n');
  return file;
}

describe('adapterCommand', () => {
  it('lists the export options first, then the command’s own', () => {
    const command = demoCommand({ read: 0 });
    expect(Object.keys(command.options)).toEqual([...Object.keys(EXPORT_OPTIONS), 'prefix']);
    for (const c of [fromRagCommand, fromIngestCommand, fromSagCommand])
      expect(Object.keys(c.options).slice(0, Object.keys(EXPORT_OPTIONS).length)).toEqual(Object.keys(EXPORT_OPTIONS));
  });

  it('reads the common flags once and hands them to read, map and the export', async () => {
    const seen: Seen = { read: 0 };
    const out = join(tempDir(), 'notes.octx');
    // The demo adds chunks without events: the export's coverage gate refuses them under --require-structure.
    const e = await failureAsync(run(demoCommand(seen), [notesFile(), '-o', out, '--name', 'Notes', '--asset-id', ASSET, '--require-structure']));
    expect(seen.readFlags).toEqual({ documentsOnly: false, requireStructure: true, strict: false });
    expect(seen.mapFlags).toBe(seen.readFlags);
    expect(e.code).toBe('OCTX_STRUCTURE_INCOMPLETE');
    expect(existsSync(out)).toBe(false);
  });

  it('exports what the mapping added; the summary ends with the command’s lines', async () => {
    const seen: Seen = { read: 0 };
    const out = join(tempDir(), 'notes.octx');
    const r = await run(demoCommand(seen), [notesFile(), '-o', out, '--name', 'Notes', '--asset-id', ASSET, '--documents-only']);
    expect(seen.mapFlags).toEqual({ documentsOnly: true, requireStructure: false, strict: false });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(\\d+ B\\)$`));
    expect(lines).toContain('  documents     2 concept(s), 0 reserved');
    expect(lines).toContain('  structure     not-requested: --documents-only was given: only the Markdown knowledge layer is exported');
    expect(lines.at(-1)).toBe('  notes         2 note(s): Alpha, Beta');
    expect(r.stderr).toBe('');
    expect(await readPackageText(out, 'knowledge/note-1.md')).toMatch(/\n# Beta\n\nThe second note\.\n$/);
  });

  it('--json: one document with the command’s name and its report (default member: adapter, or the command’s own)', async () => {
    const dir = tempDir();
    const plain = await run(demoCommand({ read: 0 }), [notesFile(), '-o', join(dir, 'a.octx'), '--name', 'Notes', '--asset-id', ASSET, '--json']);
    const doc = JSON.parse(plain.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ ok: true, command: 'from-notes', output: join(dir, 'a.octx'), assetId: ASSET, adapter: { notes: 2, titles: ['Alpha', 'Beta'] } });
    const own = await run(demoCommand({ read: 0 }, { json: (r) => ({ notes: r.titles }) }), [
      notesFile(),
      '-o',
      join(dir, 'b.octx'),
      '--name',
      'Notes',
      '--asset-id',
      ASSET,
      '--json',
    ]);
    const ownDoc = JSON.parse(own.stdout) as Record<string, unknown>;
    expect(ownDoc.notes).toEqual(['Alpha', 'Beta']);
    expect(ownDoc.adapter).toBeUndefined();
  });

  it('a documents-only command refuses --require-structure before reading, and says the command chose documents only', async () => {
    const seen: Seen = { read: 0 };
    const command = demoCommand(seen, { documentsOnly: { refuseRequireStructure: 'from-notes: notes carry no events; drop --require-structure' } });
    const dir = tempDir();
    const refused = await failureAsync(run(command, [notesFile(), '-o', join(dir, 'a.octx'), '--name', 'Notes', '--require-structure', '--documents-only']));
    expect(refused.code).toBe('OCTX_USAGE_ERROR');
    expect(refused.issues[0]).toMatchObject({ field: 'require-structure', message: 'from-notes: notes carry no events; drop --require-structure' });
    expect(seen.read).toBe(0);

    const r = await run(command, [notesFile(), '-o', join(dir, 'b.octx'), '--name', 'Notes', '--asset-id', ASSET]);
    expect(seen.mapFlags).toEqual({ documentsOnly: true, requireStructure: false, strict: false });
    expect(r.stdout).toContain('  structure     not-requested: from-notes exports documents only: only the Markdown knowledge layer is exported');
    expect(r.stdout).toContain('  capabilities  none — documents only');
  });

  it('checks the common flag combinations before reading', async () => {
    const seen: Seen = { read: 0 };
    const e = await failureAsync(run(demoCommand(seen), [notesFile(), '-o', join(tempDir(), 'a.octx'), '--name', 'N', '--documents-only', '--require-structure']));
    expect(e.code).toBe('OCTX_USAGE_ERROR');
    expect(e.issues[0]!.message).toBe('--documents-only and --require-structure exclude each other');
    expect(seen.read).toBe(0);
  });

  it('--strict without --state or --asset-id is refused after reading and before the builder exists', async () => {
    const seen: Seen = { read: 0 };
    const e = await failureAsync(run(demoCommand(seen), [notesFile(), '-o', join(tempDir(), 'a.octx'), '--name', 'N', '--strict']));
    expect(e.code).toBe('OCTX_STRICT_VIOLATION');
    expect(e.issues.map((i) => i.code)).toEqual(['OCTX_STRICT_VIOLATION', 'OCTX_ASSET_ID_EPHEMERAL']);
    expect(seen.read).toBe(1);
    expect(seen.builder).toBeUndefined();
  });

  it('disposes the builder when the mapping fails, writes nothing, and passes the error on', async () => {
    const seen: Seen = { read: 0 };
    const failing = demoCommand(seen, {
      async map(builder) {
        seen.builder = builder;
        throw OctxError.of({ code: 'OCTX_ADAPTER_INPUT_INVALID', field: 'title', message: 'a note without a title' });
      },
    });
    const out = join(tempDir(), 'a.octx');
    const e = await failureAsync(run(failing, [notesFile(), '-o', out, '--name', 'N', '--asset-id', ASSET]));
    expect(e.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    expect(e.issues[0]!.message).toBe('a note without a title');
    expect(() => seen.builder!.addDocument({ path: 'x.md', markdown: '# X\n' })).toThrow(expect.objectContaining({ code: 'OCTX_BUILDER_CONSUMED' }));
    expect(existsSync(out)).toBe(false);
  });
});

describe('adapter warnings in CLI terms', () => {
  it('the SDK function that starts a warning (fromX: …) becomes its command (from-x: …)', () => {
    expect(inCliTerms('fromSag: 1 chunk(s) of this source belong to no article')).toBe('from-sag: 1 chunk(s) of this source belong to no article');
    expect(inCliTerms('fromRag: no vector revision was given')).toBe('from-rag: no vector revision was given');
    expect(inCliTerms('fromIngest: event "x" was extracted twice')).toBe('from-ingest: event "x" was extracted twice');
    expect(inCliTerms('fromGraphRag: a relationship names no entity')).toBe('from-graphrag: a relationship names no entity');
    // Not a warning's prefix: an options headline, and "from" as a word.
    expect(inCliTerms('fromSagDatabase options: unknown option "idmode"')).toBe('fromSagDatabase options: unknown option "idmode"');
    expect(inCliTerms('read from: the file')).toBe('read from: the file');
  });
});
