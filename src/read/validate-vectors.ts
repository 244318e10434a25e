/**
 * The vectors layer of `validatePackage` (vectors/0.1, step 4b): the config, then each Arrow
 * target streamed once — hashed and checked together (`arrow-file.ts`, `vectors-check.ts`) — and
 * its `input_sha256` column compared with the digests recomputed in the structure pass.
 */
import { createHash } from 'node:crypto';
import { issue, OctxError } from '../model/errors.js';
import { RECORD_KINDS } from '../model/record-kinds.js';
import { VECTOR_CONFIG_PATH, VECTOR_TARGET_PATHS } from '../model/paths.js';
import { vectorConfigIssues } from '../vectors/config.js';
import { inputDigestRecipe } from '../vectors/input-digest.js';
import { TARGET_ID_KIND, TARGET_RECORD_KIND, VECTOR_TARGETS, type VectorTarget } from '../vectors/targets.js';
import type { InputTemplateRenderer } from '../vectors/template.js';
import { ByteReader, tailOf } from './arrow-byte-reader.js';
import { InputDigests } from './input-digests.js';
import { parseVectorConfigBytes } from './open-package.js';
import type { StructureChecker } from './structure-check.js';
import { ContainerFailure, FORMAT, SAG, VECTORS, toOctxError, type ValidationContext } from './validation-context.js';
import { VectorTargetChecker } from './vectors-check.js';

/** Each vector target's Arrow file, the id kind of its rows and the JSONL file it covers. */
export const TARGETS = VECTOR_TARGETS.map((target) => ({
  target,
  path: VECTOR_TARGET_PATHS[target],
  kind: TARGET_ID_KIND[target],
  jsonl: RECORD_KINDS[TARGET_RECORD_KIND[target]].path,
}));

/** Largest vectors/config.json read before the structure pass (to recompute input digests there). */
const CONFIG_READ_AHEAD_BYTES = 1024 * 1024;

/**
 * When the vector config declares input digests this library recomputes, hashes each target
 * record's rendered input in the structure pass ({@link InputDigests}), so the vectors check
 * does not stream and parse the JSONL again. Only a config that is listed, small, and matches
 * its listed digest is used; anything else leaves the later checks to find (and report) the
 * problem, and the digests are then recomputed the old way if still needed.
 */
export async function planInputDigests(ctx: ValidationContext, inputs: StructureChecker['inputs']): Promise<void> {
  if (!ctx.supported(VECTORS) || !ctx.present(VECTOR_CONFIG_PATH) || !ctx.source.has(VECTOR_CONFIG_PATH)) return;
  if (ctx.source.size(VECTOR_CONFIG_PATH) > CONFIG_READ_AHEAD_BYTES) return;
  const targets = TARGETS.filter((t) => ctx.listed.has(t.path));
  if (targets.length === 0) return;
  const bytes = await ctx.readAll(VECTOR_CONFIG_PATH);
  ctx.configBytes = bytes;
  if (createHash('sha256').update(bytes).digest('hex') !== ctx.listed.get(VECTOR_CONFIG_PATH)) return;
  let config: Record<string, unknown>;
  try {
    config = parseVectorConfigBytes(bytes, ctx.limits.maxJsonDepth);
  } catch (e) {
    if (e instanceof OctxError) return;
    throw e;
  }
  for (const t of targets) {
    const recipe = inputDigestRecipe(config, t.target, ctx.limits.maxRenderedInputBytes);
    if (recipe === undefined || !('render' in recipe)) continue;
    const digests = new InputDigests(recipe.render);
    ctx.inputDigests.set(t.target, digests);
    inputs[TARGET_RECORD_KIND[t.target]] = digests;
  }
}

/** Checks the vectors layer (or only hashes its files when it is not to be checked). */
export async function checkVectors(ctx: ValidationContext): Promise<void> {
  const vectorFiles = [VECTOR_CONFIG_PATH, ...TARGETS.map((t) => t.path)];
  if (!ctx.supported(VECTORS)) {
    await ctx.hashOnly(vectorFiles);
    return;
  }
  if (!ctx.listed.has(VECTOR_CONFIG_PATH)) {
    ctx.listing(VECTORS, issue({ code: 'OCTX_VECTOR_CONFIG_REQUIRED', path: VECTOR_CONFIG_PATH, message: 'vectors/0.1 is declared but vectors/config.json is not listed' }));
  }
  const targets = TARGETS.filter((t) => ctx.listed.has(t.path));
  if (targets.length === 0) {
    ctx.listing(
      VECTORS,
      issue({ code: 'OCTX_VECTOR_TARGET_REQUIRED', message: 'vectors/0.1 is declared but none of vectors/chunks.arrow, vectors/events.arrow, vectors/entities.arrow is listed' }),
    );
  }
  const formatValid = ctx.issues.errors(FORMAT) === 0;
  const sagValid = ctx.supported(SAG) && ctx.structure !== undefined && ctx.issues.errors(SAG) === 0;
  if (formatValid && !sagValid) {
    ctx.listing(
      VECTORS,
      issue({
        code: 'OCTX_CAPABILITY_DEPENDENCY_INVALID',
        message: ctx.declarations.has(SAG)
          ? 'vectors/0.1 was not checked: it needs a valid sag-structured/0.1, and that capability is invalid or unsupported'
          : 'vectors/0.1 was not checked: it needs sag-structured/0.1, which is not declared',
      }),
    );
  }
  if (!formatValid || !sagValid || ctx.issues.errors(VECTORS) > 0) {
    await ctx.hashOnly(vectorFiles);
    return;
  }

  let dimensions: number | undefined;
  let config: Record<string, unknown> | undefined;
  const configBytes = ctx.configBytes ?? (await ctx.readAll(VECTOR_CONFIG_PATH));
  ctx.configBytes = undefined;
  if (ctx.settle(VECTOR_CONFIG_PATH, createHash('sha256').update(configBytes).digest('hex'))) {
    try {
      config = parseVectorConfigBytes(configBytes, ctx.limits.maxJsonDepth);
      for (const i of vectorConfigIssues(config, VECTOR_CONFIG_PATH)) ctx.add(VECTORS, i);
      const d = config.dimensions;
      if (typeof d === 'number' && Number.isInteger(d) && d >= 1) dimensions = d;
    } catch (e) {
      if (!(e instanceof OctxError)) throw e;
      ctx.add(VECTORS, e.issues[0]!);
    }
  }
  const step = ctx.stepper(
    'vectors',
    targets.map((t) => t.path),
  );
  for (const t of targets) {
    await scanArrow(ctx, t, dimensions, config);
    step(t.path);
  }
}

/**
 * The renderer that recomputes a target's input digests: only when the config declares the
 * recipe this library knows (`input_hash`) and has an `input_template`. Without them an
 * `input_sha256` column is checked for form only; with them, a template that cannot be used for
 * the target is an `OCTX_VECTOR_CONFIG_INVALID` issue (the layer is invalid: its digests claim
 * a check nobody can make), never a silent fall back to form only.
 */
function inputRenderer(ctx: ValidationContext, config: Record<string, unknown> | undefined, target: VectorTarget): InputTemplateRenderer | undefined {
  const recipe = inputDigestRecipe(config, target, ctx.limits.maxRenderedInputBytes);
  if (recipe === undefined) return undefined;
  if ('render' in recipe) return recipe.render;
  const why = recipe.invalid.issues[0];
  ctx.add(
    VECTORS,
    issue({
      code: 'OCTX_VECTOR_CONFIG_INVALID',
      path: VECTOR_CONFIG_PATH,
      field: why?.field ?? 'input_template',
      message: `the config declares input_hash but its input_template cannot be used for ${target}, so the input_sha256 of ${VECTOR_TARGET_PATHS[target]} cannot be checked: ${why?.message ?? recipe.invalid.message}`,
    }),
  );
  return undefined;
}

/**
 * Streams one Arrow target once: SHA-256 and all vector checks together; then, when it
 * carries `input_sha256` and the config allows recomputing it, compares each digest with the
 * one recomputed from the record's rendered text in the structure pass.
 */
async function scanArrow(ctx: ValidationContext, t: (typeof TARGETS)[number], dimensions: number | undefined, config: Record<string, unknown> | undefined): Promise<void> {
  const { path, kind, jsonl } = t;
  // apache-arrow (~20 MiB of RSS once loaded) only when a package has vectors to check.
  const { readArrowVectorBatches } = await import('./arrow-file.js');
  const hash = createHash('sha256');
  const it = ctx.source.open(path)[Symbol.asyncIterator]();
  let failure: OctxError | undefined;
  async function* tapped(): AsyncGenerator<Buffer, void, undefined> {
    for (;;) {
      let r: IteratorResult<Buffer>;
      try {
        r = (await it.next()) as IteratorResult<Buffer>;
      } catch (e) {
        failure = toOctxError(e);
        throw failure;
      }
      if (r.done) return;
      hash.update(r.value);
      yield r.value;
    }
  }
  const reader = new ByteReader(tapped(), path);
  const checker = new VectorTargetChecker(ctx.ids, kind, path, jsonl, (i) => ctx.add(VECTORS, i));
  try {
    const batches = readArrowVectorBatches(reader, {
      path,
      size: ctx.source.size(path),
      limits: ctx.limits,
      pooledBodies: true,
      // A file with its schema only in the footer is read twice: once for the footer's schema.
      tail: (maxBytes) => tailOf(ctx.source.open(path) as AsyncIterable<Buffer>, maxBytes),
      onSchema: (layout) => {
        if (layout.inputSha256Problem !== undefined) checker.inputSha256Schema(layout.inputSha256Problem);
      },
      ...(dimensions === undefined ? {} : { expectedDimension: dimensions }),
    });
    const sink = ctx.sink;
    for await (const b of batches) {
      checker.batch(b);
      sink?.vectors(t.target, b);
    }
    checker.finish();
    const render = checker.hasInputSha256 ? inputRenderer(ctx, config, t.target) : undefined;
    if (render !== undefined) {
      // Recomputed in the structure pass; streamed again only if that did not happen.
      const computed = ctx.inputDigests.get(t.target);
      if (computed === undefined || !checker.compareInputs(computed)) await verifyInputs(ctx, checker, t.target, render);
    }
    ctx.inputDigests.delete(t.target);
  } catch (e) {
    if (failure) throw new ContainerFailure(failure);
    if (!(e instanceof OctxError)) throw e;
    const first = e.issues[0]!;
    ctx.add(VECTORS, first.path === undefined ? issue({ ...first, path }) : first);
  }
  try {
    await reader.drain();
  } catch (e) {
    throw new ContainerFailure(failure ?? toOctxError(e));
  }
  ctx.settle(path, hash.digest('hex'));
}

async function verifyInputs(ctx: ValidationContext, checker: VectorTargetChecker, target: VectorTarget, render: InputTemplateRenderer): Promise<void> {
  const records = ctx.pkg.records(TARGET_RECORD_KIND[target]);
  try {
    await checker.verifyInputs(records, render);
  } catch (e) {
    throw new ContainerFailure(toOctxError(e));
  }
}
