// dependency-cruiser: the folder layering of src/ (`npm run check:deps`).
// Each folder imports only from the folders listed for it (plus itself and src/types/);
// src/cli/ and src/index.ts are the top floor and may import anything.
/** @type {Record<string, string[]>} folder under src/ -> folders under src/ it may import */
const LAYERS = {
  // ambient type declarations (src/types/*.d.ts): depend on nothing of ours
  types: [],
  // floor 1: the format floor (errors, codes, ids, paths, limits, record kinds, json, time, semver, columns)
  model: [],
  // terminal output of SDK events (progress line, issue lines, sizes): shared by the root entry and the CLI
  terminal: ['model'],
  // floor 2: byte plumbing (spills, deflate, zip assembler, manifest, digest, atomic output)
  package: ['model'],
  // floor 3: the three layers of a package and the release bookkeeping, side by side
  knowledge: ['model', 'package'],
  structure: ['model', 'package'],
  vectors: ['model', 'package'],
  release: ['model', 'package'],
  // consumer profiles: what one importing application accepts beyond the format (data + one checker)
  consumers: ['model'],
  // floor 4: reading and planning
  read: ['model', 'package', 'knowledge', 'vectors', 'consumers'],
  plan: ['model', 'package', 'knowledge', 'structure', 'vectors', 'consumers'],
  // floor 5: writing a package
  export: ['model', 'package', 'knowledge', 'structure', 'vectors', 'consumers', 'read', 'plan'],
  // floor 6: the public builder
  builder: ['model', 'package', 'knowledge', 'structure', 'vectors', 'release', 'consumers', 'read', 'plan', 'export'],
  // floor 7: input adapters (RAG, ingest, SAG database) and what they share (adapters/shared; rule adapters-independent)
  adapters: ['model', 'package', 'knowledge', 'structure', 'vectors', 'release', 'consumers', 'read', 'plan', 'export', 'builder'],
  // floor 5 (beside export/): the HTML report of a package, a reader of packages (octx-export/report)
  report: ['model', 'package', 'knowledge', 'vectors', 'consumers', 'read'],
  // floor 7, beside the adapters: past one machine (shared Redis ledger, merge helpers for job engines)
  distributed: ['model', 'package', 'knowledge', 'structure', 'vectors', 'release', 'consumers', 'read', 'plan', 'export', 'builder'],
};

const layerRules = Object.entries(LAYERS).map(([folder, allowed]) => ({
  name: `layer-${folder}`,
  comment: `src/${folder}/ may import only src/{${[folder, ...allowed, 'types'].join(', ')}}/ (not src/index.ts, src/cli/ or other folders).`,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: '^src/', pathNot: `^src/(${[folder, ...allowed, 'types'].join('|')})/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'adapters-independent',
      comment:
        'An adapter imports only its own folder and src/adapters/shared/ (what every adapter needs lives there, not in another adapter); src/adapters/shared/ imports no adapter.',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/' },
      to: { path: '^src/adapters/', pathNot: ['^src/adapters/$1/', '^src/adapters/shared/'] },
    },
    {
      name: 'no-circular',
      comment: 'A cycle between modules of src/ (type-only imports count too): split the shared part into a lower module.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'src-not-to-dev-code',
      comment: 'The library must not import tests, benchmarks or examples.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|examples)/' },
    },
    {
      name: 'root-entry-not-to-adapters',
      comment: 'Whatever src/index.ts (the package root export) reaches is loaded by every user: it must not reach the input adapters.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/adapters/', reachable: true },
    },
    {
      name: 'root-entry-not-to-distributed',
      comment: 'The root entry must not load the distributed part or its Redis client (ioredis): only octx-export/distributed does.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/distributed/|(^|/)node_modules/ioredis/|^ioredis$', reachable: true },
    },
    {
      name: 'root-entry-not-to-better-sqlite3',
      comment: 'The root entry must not load better-sqlite3 (a native addon) directly or through anything it imports.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '(^|/)node_modules/better-sqlite3/|^better-sqlite3$', reachable: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing on disk.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-dev-dep',
      comment:
        'src/ ships to users: it may not import a package that is only in devDependencies. Except the report page (src/report/browser/), which esbuild bundles at build time with its libraries (sigma) into dist/report/page.js.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/report/browser/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'report-page-apart',
      comment: 'The report page runs in a browser: it may import only its own folder and the shape of its data (src/report/report-data.ts), nothing of Node.',
      severity: 'error',
      from: { path: '^src/report/browser/' },
      to: { pathNot: '^(src/report/browser/|src/report/report-data\\.ts$|node_modules/)' },
    },
    {
      name: 'not-to-report-page',
      comment: 'The report page is bundled for the browser, not imported by the SDK (the renderer inlines the built bundle).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/report/browser/' },
      to: { path: '^src/report/browser/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|out|fixtures)/|/fixtures/' },
    // Resolve through tsconfig.json, so './x.js' specifiers find './x.ts' (NodeNext style).
    tsConfig: { fileName: 'tsconfig.json' },
    // Count `import type` and type-only re-exports: a type dependency is still a layering dependency.
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
