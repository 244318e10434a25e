// `npm run build` (and `prepare`): the ESM build (dist/, with the CLI) and the CommonJS build of the
// root and adapter entry points (dist/cjs/, for require()), each with its type declarations.
// dist/cjs/package.json marks that folder CommonJS, so Node and TypeScript read its .js and .d.ts
// files as CommonJS although the package is "type": "module".
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const root = new URL('../', import.meta.url);
const dist = new URL('dist/', root);

rmSync(dist, { recursive: true, force: true }); // no stale module from a renamed source ships
for (const project of ['tsconfig.build.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
}
mkdirSync(new URL('cjs/', dist), { recursive: true });
writeFileSync(new URL('cjs/package.json', dist), '{ "type": "commonjs" }\n');
