// TypeDoc (`npm run docs`, run by `prepack`): the API reference in docs/api/, one module per entry
// point of package.json `exports` (scripts/entry-points.mjs), so a new sub-path export is
// documented without editing this file.
import { entryPoints } from './scripts/entry-points.mjs';

/** @type {Partial<import('typedoc').TypeDocOptions & import('typedoc-plugin-markdown').PluginOptions>} */
const config = {
  entryPoints: entryPoints().map((e) => e.source),
  tsconfig: 'tsconfig.build.json',
  plugin: ['typedoc-plugin-markdown'],
  out: 'docs/api',
  cleanOutputDir: true,
  readme: 'none',
  excludeInternal: true,
  excludePrivate: true,
  disableSources: true,
  hideGenerator: true,
  githubPages: false,
  entryFileName: 'README',
  validation: { notExported: false, invalidLink: true, notDocumented: false },
  logLevel: 'Warn',
  // A warning (a broken or unexported {@link}) fails `npm run docs`, and so `npm pack`.
  treatWarningsAsErrors: true,
};

export default config;
