/**
 * Issue 16, item 11: JSONL records never carry a raw U+0085, U+2028 or U+2029 (valid JSON, but
 * line splitters such as Python's `str.splitlines()` cut a record apart there). They are written
 * as `\u` escapes, and the record reads back with the original characters.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PackageBuilder, newId, openPackage } from 'octx-export';
import { escapeLineSeparators } from '../../src/structure/record-check.js';
import { tempDir } from '../helpers/temp.js';

const TRICKY = 'line\u2028separator, paragraph\u2029separator, next\u0085line';

function python3(): boolean {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('line separators in JSONL', () => {
  it('escapes them and only them, so the line parses to the same value', () => {
    const json = JSON.stringify({ text: TRICKY, other: 'é\u2027\u202a' });
    const escaped = escapeLineSeparators(json);
    expect(escaped).toBe('{"text":"line\\u2028separator, paragraph\\u2029separator, next\\u0085line","other":"é\u2027\u202a"}');
    expect(JSON.parse(escaped)).toEqual(JSON.parse(json));
    expect(escapeLineSeparators('{"a":1}')).toBe('{"a":1}');
  });

  it('writes chunks, events and extra fields with escapes; every reader sees one record a line and the original text', async () => {
    const doc = newId();
    const chunk = newId();
    const second = newId();
    const event = newId();
    const entity = newId();
    const builder = new PackageBuilder({ asset: { name: 'separators' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } })
      .addDocument({ path: 'guide.md', markdown: `---\ntype: Guide\ntitle: Guide\noctx:\n  document_id: ${doc}\n---\n\n# Guide\n\n${TRICKY}\n` })
      .addChunk({ id: chunk, document_id: doc, ordinal: 0, text: TRICKY })
      .addChunk({ id: second, document_id: doc, ordinal: 1, text: 'plain', x_note: TRICKY } as never)
      .addEvent({ id: event, title: TRICKY, content: TRICKY })
      .addEntity({ id: entity, name: 'Entity', type: 'thing' })
      .linkChunkEvent({ chunk_id: chunk, event_id: event })
      .linkChunkEvent({ chunk_id: second, event_id: event })
      .linkEventEntity({ event_id: event, entity_id: entity, description: TRICKY });
    const output = join(tempDir(), 'separators.octx');
    await builder.export({ output, structure: 'require' });
    const pkg = await openPackage(output);
    try {
      for (const path of ['data/chunks.jsonl', 'data/events.jsonl', 'relations/event-entities.jsonl']) {
        const bytes = Buffer.from(await pkg.readFile(path));
        expect(bytes.includes(Buffer.from('\u2028')), path).toBe(false);
        expect(bytes.includes(Buffer.from('\u2029')), path).toBe(false);
        expect(bytes.includes(Buffer.from('\u0085')), path).toBe(false);
        expect(bytes.toString('utf8')).toContain('\\u2028');
        if (python3()) {
          const file = join(tempDir(), 'lines.jsonl');
          writeFileSync(file, bytes);
          const lines = execFileSync('python3', ['-c', 'import sys, json; print(len([json.loads(l) for l in open(sys.argv[1], encoding="utf-8").read().splitlines()]))', file], {
            encoding: 'utf8',
          });
          expect(Number(lines), path).toBe(bytes.toString('utf8').trimEnd().split('\n').length);
        }
      }
      const chunks: Record<string, unknown>[] = [];
      for await (const { record } of pkg.chunks()) chunks.push({ ...record });
      expect(chunks[0]!.text).toBe(TRICKY);
      expect(chunks[1]!.x_note).toBe(TRICKY);
    } finally {
      await pkg.close();
    }
  });
});
