/**
 * Small packages whose differences are known by construction: a release 1.0.0, a release 1.1.0
 * with a known list of edits, a derived asset of 1.0.0, and an unrelated asset. Fixed ids and
 * times, so every result can be compared whole.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { PackageBuilder } from '../../src/index.js';

/** A fixed UUIDv7 per number. */
export const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

export const ASSET = id(0xa0);
export const D1 = id(1); // a.md, moved to notes/a.md in 1.1.0
export const D2 = id(2); // b.md, edited
export const D3 = id(3); // c.md, removed
export const D4 = id(4); // d.md, added
export const C1 = id(0x11); // unchanged
export const C2 = id(0x12); // text edited, vector kept: stale
export const C3 = id(0x13); // removed
export const C4 = id(0x14); // added
export const E1 = id(0x21); // unchanged
export const E2 = id(0x22); // unchanged record, vector re-embedded
export const N1 = id(0x31);
export const N2 = id(0x32);

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

const doc = (docId: string, title: string, body: string): string => `---\ntype: Note\ntitle: ${title}\noctx:\n  document_id: ${docId}\n---\n# ${title}\n\n${body}\n`;

/** Release 1.0.0 (`version` and `createdAt` may be changed for a same-content rebuild). */
export async function release100(dir: string, file = 'kb-1.0.0.octx', version = '1.0.0'): Promise<string> {
  const out = join(dir, file);
  const b = new PackageBuilder({ asset: { id: ASSET, name: 'KB' }, release: { version, createdAt: '2026-07-12T10:00:00Z' } })
    .addDocument({ path: 'a.md', markdown: doc(D1, 'A', 'Alpha.') })
    .addDocument({ path: 'b.md', markdown: doc(D2, 'B', 'Beta.') })
    .addDocument({ path: 'c.md', markdown: doc(D3, 'C', 'Gamma.') })
    .addChunk({ id: C1, document_id: D1, ordinal: 0, text: 'Alpha.' })
    .addChunk({ id: C2, document_id: D2, ordinal: 0, text: 'Beta.' })
    .addChunk({ id: C3, document_id: D3, ordinal: 0, text: 'Gamma.' })
    .addEvent({ id: E1, title: 'First', content: 'Alpha and beta happen.' })
    .addEvent({ id: E2, title: 'Second', content: 'Gamma happens.' })
    .addEntity({ id: N1, name: 'One', type: 'thing' })
    .addEntity({ id: N2, name: 'Two', type: 'thing' })
    .linkChunkEvent({ chunk_id: C1, event_id: E1 })
    .linkChunkEvent({ chunk_id: C2, event_id: E1 })
    .linkChunkEvent({ chunk_id: C3, event_id: E2 })
    .linkEventEntity({ event_id: E1, entity_id: N1 })
    .linkEventEntity({ event_id: E1, entity_id: N2, weight: 0.5 })
    .linkEventEntity({ event_id: E2, entity_id: N2 })
    .linkEventEntity({ event_id: E2, entity_id: N1 })
    .setVectorConfig({ model: 'example/model', dimensions: 3, normalized: false, input_hash: { algorithm: 'sha256', unicode_form: 'NFC', newline: 'LF' } });
  b.addVector('chunks', C1, [1, 0, 0], { inputSha256: sha('Alpha.') })
    .addVector('chunks', C2, [0, 1, 0], { inputSha256: sha('Beta.') })
    .addVector('chunks', C3, [0, 0, 1], { inputSha256: sha('Gamma.') })
    .addVector('events', E1, [1, 1, 0])
    .addVector('events', E2, [0, 1, 1]);
  await b.export({ output: out, structure: 'require' });
  return out;
}

/**
 * Release 1.1.0: a.md moved to notes/a.md (same bytes); b.md and its chunk C2 edited (C2's
 * vector and input digest kept: stale); c.md, C3, its link and vector removed; d.md, C4, the link
 * C4→E2 and C4's vector added; E2's vector re-embedded; the link E1→N2 re-weighted; the link
 * E2→N1 removed; the entities target newly embedded; an extension file added.
 */
export async function release110(dir: string): Promise<string> {
  const out = join(dir, 'kb-1.1.0.octx');
  const b = new PackageBuilder({ asset: { id: ASSET, name: 'KB' }, release: { version: '1.1.0', createdAt: '2026-08-01T10:00:00Z' } })
    .addDocument({ path: 'notes/a.md', markdown: doc(D1, 'A', 'Alpha.') })
    .addDocument({ path: 'b.md', markdown: doc(D2, 'B', 'Beta, edited.') })
    .addDocument({ path: 'd.md', markdown: doc(D4, 'D', 'Delta.') })
    .addChunk({ id: C1, document_id: D1, ordinal: 0, text: 'Alpha.' })
    .addChunk({ id: C2, document_id: D2, ordinal: 0, text: 'Beta, edited.' })
    .addChunk({ id: C4, document_id: D4, ordinal: 0, text: 'Delta.' })
    .addEvent({ id: E1, title: 'First', content: 'Alpha and beta happen.' })
    .addEvent({ id: E2, title: 'Second', content: 'Gamma happens.' })
    .addEntity({ id: N1, name: 'One', type: 'thing' })
    .addEntity({ id: N2, name: 'Two', type: 'thing' })
    .linkChunkEvent({ chunk_id: C1, event_id: E1 })
    .linkChunkEvent({ chunk_id: C2, event_id: E1 })
    .linkChunkEvent({ chunk_id: C4, event_id: E2 })
    .linkEventEntity({ event_id: E1, entity_id: N1 })
    .linkEventEntity({ event_id: E1, entity_id: N2, weight: 0.9 })
    .linkEventEntity({ event_id: E2, entity_id: N2 })
    .addExtensionFile('extensions/com.example.tool/0.1/notes.txt', 'new\n')
    .setVectorConfig({ model: 'example/model', dimensions: 3, normalized: false, input_hash: { algorithm: 'sha256', unicode_form: 'NFC', newline: 'LF' } });
  b.addVector('chunks', C1, [1, 0, 0], { inputSha256: sha('Alpha.') })
    .addVector('chunks', C2, [0, 1, 0], { inputSha256: sha('Beta.') })
    .addVector('chunks', C4, [1, 0, 1], { inputSha256: sha('Delta.') })
    .addVector('events', E1, [1, 1, 0])
    .addVector('events', E2, [0, 0.5, 1])
    .addVector('entities', N1, [1, 0, 0])
    .addVector('entities', N2, [0, 1, 0]);
  await b.export({ output: out, structure: 'require' });
  return out;
}

/** A derived asset of `source`: one document with a chunk and an event linked to N1 of the source. */
export async function derived(dir: string, source: string): Promise<string> {
  const out = join(dir, 'derived.octx');
  const b = await PackageBuilder.derive(source, { asset: { id: id(0xb0), name: 'KB, with notes' }, release: { version: '1.0.0', createdAt: '2026-09-01T00:00:00Z' } });
  b.addDocument({ path: 'notes.md', markdown: doc(id(5), 'Notes', 'A note.') })
    .addChunk({ id: id(0x15), document_id: id(5), ordinal: 0, text: 'A note.' })
    .addEvent({ id: id(0x25), title: 'Noted', content: 'Someone noted alpha.' })
    .linkChunkEvent({ chunk_id: id(0x15), event_id: id(0x25) })
    .linkEventEntity({ event_id: id(0x25), entity_id: N1 })
    .addVector('chunks', id(0x15), [0.5, 0.5, 0], { inputSha256: sha('A note.') })
    .addVector('events', id(0x25), [0.5, 0, 0.5]);
  await b.export({ output: out, structure: 'require' });
  return out;
}

/** An unrelated asset: documents only, nothing shared. */
export async function unrelated(dir: string): Promise<string> {
  const out = join(dir, 'other.octx');
  const b = new PackageBuilder({ asset: { id: id(0xc0), name: 'Other' }, release: { version: '3.0.0', createdAt: '2026-07-12T10:00:00Z' } });
  b.addDocument({ path: 'z.md', markdown: doc(id(6), 'Z', 'Zeta.') });
  await b.export({ output: out });
  return out;
}
