/**
 * Review of issue 23: a builder starts loading the Arrow writer (and apache-arrow) when its first
 * vector arrives (`preloadArrowWriter`). Checked on the built package, in child processes: a load
 * that fails is no unhandled rejection (Node would end the process with it), whether or not an
 * export follows; the export loads it again after a failed preload; a process that ends right
 * after `addVector` ends normally; and the CommonJS build (`require`) exports vectors.
 * A failing load is made with a module resolve hook (`module.register`) that refuses
 * `./arrow-writer.js` (the first time, or always).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/temp.js';
import { inspectZip } from '../helpers/zip-inspect.js';

/** Statements that fill builder `b` with a complete graph (structure and vectors are written) and its first vector. */
const FILL = `
const id = (n) => '019c0000-0000-7000-8000-' + n.toString(16).padStart(12, '0');
const b = new PackageBuilder({ asset: { id: id(1), name: 'Preload' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
b.addDocument({ path: 'a.md', markdown: '---\\noctx:\\n  document_id: ' + id(0xd0) + '\\n---\\n# A\\n\\nOne.\\n' })
  .addChunk({ id: id(0x11), document_id: id(0xd0), ordinal: 0, text: 'One.' })
  .addEvent({ id: id(0x21), title: 'Counting', content: 'Someone counted.' })
  .addEntity({ id: id(0x31), name: 'Counter', type: 'person' })
  .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) })
  .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31) })
  .setVectorConfig({ model: 'm/m', revision: 'r1', dimensions: 4, normalized: true })
  .addVector('chunks', id(0x11), [1, 0, 0, 0]);
`;

/** A resolve hook refusing `./arrow-writer.js` (`times` times), leaving a marker file each time. */
const hook = (marker: string, times: number): string =>
  `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(`
import { appendFileSync } from 'node:fs';
let refused = 0;
export async function resolve(specifier, context, next) {
  if (specifier.endsWith('/arrow-writer.js') && refused < ${times}) {
    refused++;
    appendFileSync(${JSON.stringify(marker)}, 'refused\\n');
    throw new Error('simulated load failure of the Arrow writer');
  }
  return next(specifier, context);
}`)}));
`;

function node(args: string[], script: string) {
  return spawnSync(process.execPath, [...args, '-e', script], { encoding: 'utf8', timeout: 60_000 });
}

describe('review s5: the Arrow writer preload', () => {
  it('a failed preload is not an unhandled rejection, and the export loads the writer again', () => {
    const dir = tempDir('preload-');
    const marker = join(dir, 'marker');
    const out = join(dir, 'p.octx');
    const run = node(
      ['--input-type=module'],
      `${hook(marker, 1)}
const { PackageBuilder } = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
${FILL}
await new Promise((resolve) => setTimeout(resolve, 300));
const result = await b.export({ output: ${JSON.stringify(out)} });
console.log(JSON.stringify({ vectors: result.report.vectors.status }));`,
    );
    expect(run.status, run.stderr).toBe(0);
    // The preload was refused once; the export's own load then succeeded.
    expect(existsSync(marker)).toBe(true);
    expect(JSON.parse(run.stdout.trim())).toStrictEqual({ vectors: 'written' });
    expect(inspectZip(out).map((e) => e.name)).toContain('vectors/chunks.arrow');
  });

  it('a load that always fails: no crash without an export, and the export reports the failure', () => {
    const dir = tempDir('preload-fail-');
    const marker = join(dir, 'marker');
    const out = join(dir, 'p.octx');
    const run = node(
      ['--input-type=module'],
      `${hook(marker, 1000)}
const { PackageBuilder } = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
${FILL}
await new Promise((resolve) => setTimeout(resolve, 300));
let failure;
try {
  await b.export({ output: ${JSON.stringify(out)} });
} catch (e) {
  failure = String(e?.message ?? e);
}
console.log(JSON.stringify({ failure }));`,
    );
    expect(run.status, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout.trim()) as { failure?: string }).failure).toMatch(/simulated load failure/);
    expect(existsSync(out)).toBe(false);
  });

  it('a process that ends right after addVector ends normally (ESM), and so does one whose load fails', () => {
    const dir = tempDir('preload-exit-');
    for (const refuse of [0, 1000]) {
      const run = node(
        ['--input-type=module'],
        `${refuse > 0 ? hook(join(dir, 'marker'), refuse) : ''}
const { PackageBuilder } = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
${FILL}
console.log('added');`,
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe('added');
      expect(run.stderr).toBe('');
    }
  });

  it('the CommonJS build exports vectors (the preload and the export load through require)', () => {
    const dir = tempDir('preload-cjs-');
    const out = join(dir, 'c.octx');
    const run = node(
      [],
      `const { PackageBuilder } = require(${JSON.stringify(join(ROOT, 'dist/cjs/index.js'))});
${FILL}
b.export({ output: ${JSON.stringify(out)} }).then((r) => console.log(JSON.stringify({ vectors: r.report.vectors.status })), (e) => { console.error(e); process.exitCode = 1; });`,
    );
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toStrictEqual({ vectors: 'written' });
    const names = inspectZip(out).map((e) => e.name);
    expect(names).toContain('vectors/chunks.arrow');
  });
});
