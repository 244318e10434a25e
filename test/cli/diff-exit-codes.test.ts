/**
 * `diff` exit codes as git's: 0 same (or no --exit-code), 1 changed with --exit-code, above 1
 * when a package cannot be compared — an unreadable package, or an id found twice in either
 * package (it used to be counted `added: 2` when only the new package held it twice).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffPackages, PackageBuilder } from '../../src/index.js';
import { failureAsync as failure } from '../helpers/errors.js';
import { readPackageText } from '../helpers/package-files.js';
import { tempDir } from '../helpers/temp.js';
import { entriesOf, writeDir, type FileMap } from '../read/helpers.js';
import { runCli } from './run-cli.js';

const id = (n: number) => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const DOC = id(0xd1);

async function pkg(name: string, title = 'Battle'): Promise<string> {
  const out = join(tempDir(), name);
  await new PackageBuilder({ asset: { id: id(9), name: 'D' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } })
    .addDocument({ path: 'a.md', markdown: `---\ntitle: "A"\noctx:\n  document_id: ${DOC}\n---\n# A\n` })
    .addChunk({ id: id(1), document_id: DOC, ordinal: 0, text: 't' })
    .addEvent({ id: id(3), title, content: 'c' })
    .addEntity({ id: id(4), name: 'X', type: 'person' })
    .linkChunkEvent({ chunk_id: id(1), event_id: id(3) })
    .linkEventEntity({ event_id: id(3), entity_id: id(4) })
    .export({ output: out });
  return out;
}

/** The package unpacked into a folder, with an entity of a new id written twice. */
async function withDuplicateEntity(from: string): Promise<string> {
  const manifest = JSON.parse(await readPackageText(from, 'manifest.json')) as { files: { path: string }[]; capabilities: unknown };
  const files: FileMap = {};
  for (const { path } of manifest.files) files[path] = await readPackageText(from, path);
  const extra = `{"id":"${id(5)}","name":"Y","type":"person"}\n`;
  files['data/entities.jsonl'] = `${String(files['data/entities.jsonl'])}${extra}${extra}`;
  return writeDir(entriesOf({ files, capabilities: manifest.capabilities }));
}

describe('diff exit codes and duplicate ids', () => {
  it('0 same, 1 changed with --exit-code, 2 when a package cannot be read', async () => {
    const a = await pkg('a.octx');
    const b = await pkg('b.octx', 'Battle of Chibi');
    expect((await runCli(['diff', a, a, '--exit-code'])).code).toBe(0);
    expect((await runCli(['diff', a, b, '--exit-code'])).code).toBe(1);
    expect((await runCli(['diff', a, b])).code).toBe(0);
    const broken = join(tempDir(), 'broken.octx');
    writeFileSync(broken, 'not a zip');
    const r = await runCli(['diff', a, broken, '--exit-code']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error\[OCTX_/);
    expect((await runCli(['diff', a, broken])).code).toBe(2);
  });

  it('an id twice in the new package only is an error, as in the old one', async () => {
    const a = await pkg('a.octx');
    const dup = await withDuplicateEntity(a);
    expect(await failure(diffPackages(a, dup))).toMatchObject({ code: 'OCTX_ID_DUPLICATE', issues: [{ recordId: id(5) }] });
    expect(await failure(diffPackages(dup, a))).toMatchObject({ code: 'OCTX_ID_DUPLICATE', issues: [{ recordId: id(5) }] });
    expect((await runCli(['diff', a, dup, '--exit-code'])).code).toBe(2);
  });
});
