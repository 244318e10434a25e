// `npm run build` (and `prepack`, so `npm pack` ships a fresh build): the ESM build (dist/, with the CLI) and the CommonJS build of the
// root and sub-path entry points (dist/cjs/, for require()), each with its type declarations, and the report page's
// browser bundle (dist/report/page.js, scripts/report-page.mjs).
// dist/cjs/package.json marks that folder CommonJS, so Node and TypeScript read its .js and .d.ts
// files as CommonJS although the package is "type": "module".
//
// Two dependencies are ESM-only (p-limit, canonicalize): Node 20 cannot require() them. The ESM
// build imports them as they are; for the CommonJS build each is bundled by esbuild into
// dist/cjs/vendor/<name>.js and the CommonJS files require that copy instead. The libraries stay
// the dependencies: nothing of theirs is rewritten by hand.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';
import { entryPoints } from './entry-points.mjs';
import { buildReportPage } from './report-page.mjs';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const root = new URL('../', import.meta.url);
const dist = new URL('dist/', root);

// `--no-check`: the ESM build emits without type-checking (tsc --noCheck; the same files, byte for
// byte). Only for a caller that type-checks the same sources with the same options at the same
// time — `npm test` (scripts/typecheck-and-build.mjs): tsconfig.build.json is tsconfig.json for
// src/ alone, so checking it again cost about 19 s of CPU for nothing. The CommonJS build below
// always checks: its module settings are checked nowhere else.
const noCheck = process.argv.includes('--no-check');

rmSync(dist, { recursive: true, force: true }); // no stale module from a renamed source ships
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', ...(noCheck ? ['--noCheck'] : [])], { cwd: root, stdio: 'inherit' });
// The report page's browser script, which the renderer inlines (one copy serves the ESM and CommonJS builds).
await buildReportPage();
// The CommonJS build compiles the entry points of package.json `exports` (the one list) and what
// they import: a config extending tsconfig.cjs.json with them as `files`, written to a temporary folder.
const cjsConfigDir = mkdtempSync(join(tmpdir(), 'octx-build-'));
try {
  const cjsConfig = join(cjsConfigDir, 'tsconfig.cjs.json');
  const files = entryPoints().map((e) => fileURLToPath(new URL(e.source, root)));
  // typeRoots: `types: ["node"]` is otherwise looked up from the config's own (temporary) folder.
  const typeRoots = [fileURLToPath(new URL('node_modules/@types', root))];
  writeFileSync(cjsConfig, JSON.stringify({ extends: fileURLToPath(new URL('tsconfig.cjs.json', root)), compilerOptions: { typeRoots }, files }));
  execFileSync(process.execPath, [tsc, '-p', cjsConfig], { cwd: root, stdio: 'inherit' });
} finally {
  rmSync(cjsConfigDir, { recursive: true, force: true });
}
mkdirSync(new URL('cjs/', dist), { recursive: true });
writeFileSync(new URL('cjs/package.json', dist), '{ "type": "commonjs" }\n');

/** ESM-only dependencies that the CommonJS build carries as bundled copies. */
const ESM_ONLY = [
  'p-limit',
  'canonicalize',
  'micromark',
  'micromark-extension-directive',
  'mdast-util-from-markdown',
  'mdast-util-mdx',
  'micromark-extension-mdxjs',
  '@sveltejs/acorn-typescript',
  'hyparquet',
  'hyparquet-compressors',
  // The page readers the GraphRAG adapter's float-list decoder uses (hyparquet's `./src/*.js` exports).
  'hyparquet/src/column.js',
  'hyparquet/src/convert.js',
  'hyparquet/src/datapage.js',
  'hyparquet/src/encoding.js',
  'hyparquet/src/plain.js',
  'hyparquet/src/schema.js',
];
const cjsDir = fileURLToPath(new URL('cjs/', dist));
const vendorDir = join(cjsDir, 'vendor');
for (const name of ESM_ONLY) {
  await build({
    entryPoints: [name],
    absWorkingDir: fileURLToPath(root),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outfile: join(vendorDir, `${name.replace(/\.js$/, '')}.js`),
    legalComments: 'inline',
    logLevel: 'warning',
  });
  // The bundled copy ships with its licence.
  const pkg = name
    .split('/')
    .slice(0, name.startsWith('@') ? 2 : 1)
    .join('/');
  const pkgDir = fileURLToPath(new URL(`node_modules/${pkg}/`, root));
  const licence = readdirSync(pkgDir).find((f) => /^licen[cs]e/i.test(f));
  if (licence) writeFileSync(join(vendorDir, `${name.replace(/\.js$/, '')}.LICENSE`), readFileSync(join(pkgDir, licence)));
}

/** Every .js file under `dir`. */
function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? jsFiles(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : []));
}
for (const file of jsFiles(cjsDir)) {
  if (file.startsWith(vendorDir)) continue;
  const text = readFileSync(file, 'utf8');
  let out = text;
  for (const name of ESM_ONLY) {
    let rel = relative(dirname(file), join(vendorDir, `${name.replace(/\.js$/, '')}.js`))
      .split('\\')
      .join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    out = out.split(`require("${name}")`).join(`require("${rel}")`);
  }
  if (out !== text) writeFileSync(file, out);
}
