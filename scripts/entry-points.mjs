// The package's entry points, read from the one list: package.json `exports`. Everything else that
// names them derives from here — the CommonJS build's files (scripts/build.mjs), the API
// reference's entry points (typedoc.config.mjs), the test aliases (vitest.config.ts) — or is a
// static copy that test/adapters/entry-points.test.ts holds against `expectedCopies()`:
// `main`, `types` and `typesVersions` in package.json and `paths` in tsconfig.json (read by tsc, tsx and editors,
// which run no code). Adding a sub-path export: edit package.json `exports` only, then let that
// test say which static copy to update (it prints the expected value).
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

/**
 * @typedef {object} EntryPoint
 * @property {string} subpath the key in `exports`: `.` or `./adapters/rag`
 * @property {string} specifier what users import: `octx-export` or `octx-export/adapters/rag`
 * @property {string} source the TypeScript module it is built from: `src/adapters/rag/index.ts`
 * @property {string} esm `import` target: `./dist/adapters/rag/index.js`
 * @property {string} esmTypes its declarations: `./dist/adapters/rag/index.d.ts`
 * @property {string} cjs `require` target: `./dist/cjs/adapters/rag/index.js`
 * @property {string} cjsTypes its declarations: `./dist/cjs/adapters/rag/index.d.ts`
 */

const root = new URL('../', import.meta.url);

/** package.json of the repository. */
export function packageJson() {
  return JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
}

/**
 * Every code entry point of `exports` (not `./package.json`), in its order. Each must have the
 * shape `{ import: { types, default }, require: { types, default } }` with `./dist/<p>.js`,
 * `./dist/cjs/<p>.js` and their `.d.ts` beside them, built from `src/<p>.ts`: anything else
 * throws, naming the key, so a mistyped export fails the build and the tests instead of shipping.
 * @param {{ name: string, exports: Record<string, unknown> }} [pkg]
 * @returns {EntryPoint[]}
 */
export function entryPoints(pkg = packageJson()) {
  return Object.entries(pkg.exports)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, target]) => {
      const esm = target?.import?.default;
      const m = typeof esm === 'string' ? /^\.\/dist\/(.+)\.js$/.exec(esm) : null;
      if (!m || m[1].startsWith('cjs/')) throw new Error(`package.json exports["${subpath}"].import.default must be ./dist/<path>.js (got ${JSON.stringify(esm)})`);
      const p = m[1];
      const entry = {
        subpath,
        specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
        source: `src/${p}.ts`,
        esm,
        esmTypes: `./dist/${p}.d.ts`,
        cjs: `./dist/cjs/${p}.js`,
        cjsTypes: `./dist/cjs/${p}.d.ts`,
      };
      const want = { import: { types: entry.esmTypes, default: entry.esm }, require: { types: entry.cjsTypes, default: entry.cjs } };
      if (JSON.stringify(target) !== JSON.stringify(want)) {
        throw new Error(`package.json exports["${subpath}"] must be ${JSON.stringify(want)} (got ${JSON.stringify(target)})`);
      }
      return entry;
    });
}

/**
 * What the static copies of the list must hold: `main` and `types` of package.json (the root's
 * CommonJS build, for tools older than `exports`), its `typesVersions` (the CommonJS declarations
 * of each sub-path, for TypeScript's `node10` resolution, which ignores `exports`) and
 * `compilerOptions.paths` of tsconfig.json (each specifier → its source).
 * @param {EntryPoint[]} [entries]
 */
export function expectedCopies(entries = entryPoints()) {
  const subs = entries.filter((e) => e.subpath !== '.');
  const main = entries.find((e) => e.subpath === '.');
  return {
    main: main?.cjs,
    types: main?.cjsTypes,
    typesVersions: { '*': Object.fromEntries(subs.map((e) => [e.subpath.slice(2), [e.cjsTypes]])) },
    paths: Object.fromEntries(entries.map((e) => [e.specifier, [`./${e.source}`]])),
  };
}
