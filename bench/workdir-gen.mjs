// Generates a working folder (the package layout without a manifest) that the Python reference
// exporter and `octx-export build` both read: N documents with full frontmatter, 10 chunks and 10
// events per document, 1 entity per 10 events, complete links. Usage: node workdir-gen.mjs DIR [DOCS=2000]
//
// Origin: the issue reporter's script, named in issue 23 and copied here so the benchmark does
// not depend on files outside the repository. Changes: this note, `import process` (lint) and
// Prettier's layout; the generated folder is unchanged. Ids come from crypto.randomBytes, so two
// runs write different ids (same sizes and shape). Used by bench/workdir-memory.ts.
import process from 'node:process';
import { mkdirSync, writeFileSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
const dir = process.argv[2];
const docs = Number(process.argv[3] ?? 2000);
let t = Date.UTC(2026, 0, 1);
const id = () => {
  const b = randomBytes(16);
  t += 1;
  const ms = BigInt(t);
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega'.split(' ');
let seed = 7;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed;
};
const sentence = (n) => Array.from({ length: n }, () => words[rnd() % words.length]).join(' ') + '.';
for (const d of ['knowledge/topics', 'data', 'relations']) mkdirSync(join(dir, d), { recursive: true });
const out = (p) => createWriteStream(join(dir, p));
const [ch, ev, en, ce, ee] = ['data/chunks.jsonl', 'data/events.jsonl', 'data/entities.jsonl', 'relations/chunk-events.jsonl', 'relations/event-entities.jsonl'].map(out);
let entity = null;
for (let d = 0; d < docs; d++) {
  const docId = id();
  const paras = Array.from({ length: 10 }, () => sentence(30));
  writeFileSync(
    join(dir, `knowledge/topics/doc-${String(d).padStart(5, '0')}.md`),
    `---\ntype: Document\ntitle: Topic ${d}\noctx:\n  document_id: ${docId}\n---\n\n# Topic ${d}\n\n${paras.join('\n\n')}\n`,
  );
  paras.forEach((text, ordinal) => {
    const c = id(),
      e = id();
    if ((d * 10 + ordinal) % 10 === 0) {
      entity = id();
      en.write(JSON.stringify({ id: entity, name: `Entity ${d}-${ordinal}`, type: 'concept', description: sentence(8) }) + '\n');
    }
    ch.write(JSON.stringify({ id: c, document_id: docId, ordinal, text }) + '\n');
    ev.write(JSON.stringify({ id: e, title: `Event ${d}.${ordinal}`, content: sentence(20), summary: sentence(6), category: 'topic' }) + '\n');
    ce.write(JSON.stringify({ chunk_id: c, event_id: e }) + '\n');
    ee.write(JSON.stringify({ event_id: e, entity_id: entity, weight: 0.5 }) + '\n');
  });
}
for (const s of [ch, ev, en, ce, ee]) s.end();
