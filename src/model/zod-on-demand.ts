/**
 * zod, loaded synchronously the first time a caller needs it (issue 23 item 5, memory).
 *
 * zod costs ~6–12 MiB of RSS once loaded. `octx-export build` used to load it for its option and
 * record schemas although a valid input never needs them: options and records are checked by
 * hand (`builder/options.ts`, `structure/record-check.ts`), and zod only explains what those
 * checks refused, with its messages. Those explanations are thrown from synchronous calls
 * (`new PackageBuilder()`, `addChunk()`), so an `await import('zod')` is not possible there:
 * zod's CommonJS build is `require()`d instead, which works from the ESM build, the CommonJS
 * build and the TypeScript sources alike. The schemas exported to users
 * (`structure/record-schemas.ts`) still import zod's ESM build as before.
 *
 * Finding where to resolve `zod` from: `import.meta` does not exist in the CommonJS build, so the
 * frame of this module in a stack trace names its own file (a `file:` URL or a path) — the same
 * approach as `read/record-scan-pool.ts`. Resolution starts from that folder, i.e. from this
 * package's own dependencies.
 */
import { createRequire } from 'node:module';
import type * as Zod from 'zod';

/** zod's module namespace (`z` and the rest). */
export type ZodModule = typeof Zod;

let loaded: ZodModule | undefined;

/** Where this module lives, for `createRequire`; the working folder if the stack does not say. */
function ownLocation(): string {
  const stack = new Error().stack ?? '';
  const m = /((?:file:\/\/)?[^\s()]*?zod-on-demand\.(?:js|cjs|mjs|ts))(?=:\d+:\d+)/.exec(stack);
  return m ? m[1]! : `${process.cwd()}/`;
}

/** zod, `require()`d on first use and kept. */
export function zodOnDemand(): ZodModule {
  loaded ??= createRequire(ownLocation())('zod') as ZodModule;
  return loaded;
}
