// Types of scripts/entry-points.mjs for the TypeScript files that import it (vitest.config.ts, tests).

/** One code entry point of package.json `exports`. */
export interface EntryPoint {
  /** The key in `exports`: `.` or `./adapters/rag`. */
  readonly subpath: string;
  /** What users import: `octx-export` or `octx-export/adapters/rag`. */
  readonly specifier: string;
  /** The TypeScript module it is built from: `src/adapters/rag/index.ts`. */
  readonly source: string;
  /** `import` target: `./dist/adapters/rag/index.js`. */
  readonly esm: string;
  /** Its declarations. */
  readonly esmTypes: string;
  /** `require` target: `./dist/cjs/adapters/rag/index.js`. */
  readonly cjs: string;
  /** Its declarations. */
  readonly cjsTypes: string;
}

/** package.json of the repository. */
export function packageJson(): { name: string; exports: Record<string, unknown>; typesVersions?: unknown; [key: string]: unknown };

/** Every code entry point of `exports` (not `./package.json`); throws on an export of another shape. */
export function entryPoints(pkg?: { name: string; exports: Record<string, unknown> }): EntryPoint[];

/** What the static copies (package.json `main`, `types`, `typesVersions`; tsconfig.json `paths`) must hold. */
export function expectedCopies(entries?: readonly EntryPoint[]): {
  main: string | undefined;
  types: string | undefined;
  typesVersions: { '*': Record<string, string[]> };
  paths: Record<string, string[]>;
};
