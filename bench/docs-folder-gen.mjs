// Generates a plain docs folder for timing `octx-export build` on a docs site: 2,000 .md pages in
// 40 sections (frontmatter, a title, six parts of prose with three relative links each, fenced
// code) and a section index.md per section (not an OKF index: kept as _index.md).
// Usage: node bench/docs-folder-gen.mjs DIR [--links-to-index]
// With --links-to-index every part also links its section's index.md, so every page has links to
// a renamed page to rewrite (12,000 links): the loader's worst case.
import process from 'node:process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2];
if (root === undefined) throw new Error('usage: node bench/docs-folder-gen.mjs DIR [--links-to-index]');
const toIndex = process.argv.includes('--links-to-index');
const N = 2000;
const para = 'The quick brown fox jumps over the lazy dog while the configuration is loaded from disk and validated. ';
for (let i = 0; i < N; i++) {
  const sec = `section-${i % 40}`;
  mkdirSync(join(root, sec), { recursive: true });
  const links = [1, 7, 33]
    .map((d) => {
      const j = (i + d) % N;
      return `[page ${j}](../section-${j % 40}/page-${j}.md)`;
    })
    .join(', ');
  const see = toIndex ? `See ${links} and [the section](index.md).` : `See ${links}.`;
  let body = `---\ntitle: "Page ${i}"\ndescription: page number ${i}\n---\n\n# Page ${i}\n\n`;
  for (let k = 0; k < 6; k++) body += `## Part ${k}\n\n${para.repeat(4)}${see}\n\n\`\`\`ts\nconst x${k} = load('${sec}/${i}');\n\`\`\`\n\n`;
  writeFileSync(join(root, sec, `page-${i}.md`), body);
}
for (let s = 0; s < 40; s++) writeFileSync(join(root, `section-${s}`, 'index.md'), `# Section ${s}\n\nSee [the first page](page-${s}.md).\n`);
