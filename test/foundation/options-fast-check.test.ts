import { describe, expect, it } from 'vitest';
import {
  ASSET_KEYS,
  BUILDER_SCHEMA_KEYS,
  EXPORT_SCHEMA_KEYS,
  builderOptionsLookValid,
  exportOptionsLookValid,
  optionSchemas,
  resolveBuilderOptions,
  resolveExportOptions,
} from '../../src/builder/options.js';

// Issue 23 item 5: valid options are accepted by hand-written checks so that a build never loads
// zod; the zod schemas only explain a refusal. The hand checks must never accept what the schema
// refuses (errors would lose their codes, paths and messages), and the key lists written out for
// them must be the schemas' keys.

/** Every combination of one value per field, from small per-field candidate lists. */
function* combinations(fields: Record<string, readonly unknown[]>): Generator<Record<string, unknown>> {
  const keys = Object.keys(fields);
  const at = new Array<number>(keys.length).fill(0);
  for (;;) {
    const o: Record<string, unknown> = {};
    keys.forEach((k, i) => {
      const v = fields[k]![at[i]!];
      if (v !== ABSENT) o[k] = v;
    });
    yield o;
    let i = 0;
    while (i < keys.length && ++at[i]! === fields[keys[i]!]!.length) at[i++] = 0;
    if (i === keys.length) return;
  }
}
const ABSENT = Symbol('absent');

const LEVELS = [ABSENT, undefined, 0, 6, 9, 10, -1, 2.5, '6', Number.NaN];
const POSITIVE = [ABSENT, 1, 1_048_576, 0, -5, 1.5, Number.MAX_SAFE_INTEGER + 2, Infinity, '1'];
const BOOLS = [ABSENT, true, false, 'true', 0, null];
const STRINGS = [ABSENT, 'x', '', '  ', 5, null];

describe('builder options: the hand check accepts only what the schema accepts', () => {
  it('holds for assets, releases and every scalar option', () => {
    const schema = optionSchemas().builder;
    let accepted = 0;
    let total = 0;
    const assets = [undefined, null, [], {}, { name: 'A' }, { name: '  ' }, { name: 'bad \ud800' }, { name: 5 }, { name: 'A', id: 'x' }, { name: 'A', id: 7 }];
    const releases = [
      ABSENT,
      undefined,
      null,
      {},
      { version: '1.0.0' },
      { version: 1 },
      { createdAt: new Date(0) },
      { createdAt: new Date(Number.NaN) },
      { createdAt: '2026-07-12T10:00:00Z' },
      { createdAt: 5 },
    ];
    for (const asset of assets) {
      for (const release of releases) {
        const base = { asset, ...(release === ABSENT ? {} : { release }) };
        const variants: Record<string, unknown>[] = [base];
        for (const [key, values] of Object.entries({
          compressionLevel: LEVELS,
          maxFrontmatterBytes: POSITIVE,
          maxFrontmatterNodes: POSITIVE,
          strict: BOOLS,
          state: STRINGS,
          tempDir: STRINGS,
          defaultDocumentType: STRINGS,
          consumer: [ABSENT, 'seed', 'sag-1.7', 'SEED', 3],
        })) {
          for (const v of values) if (v !== ABSENT) variants.push({ ...base, [key]: v });
        }
        for (const o of variants) {
          total++;
          if (!builderOptionsLookValid(o)) continue;
          accepted++;
          expect(schema.safeParse(o).success, JSON.stringify(o)).toBe(true);
        }
      }
    }
    // The check is not vacuous: it accepts the common shapes.
    expect(accepted).toBeGreaterThan(100);
    expect(total - accepted).toBeGreaterThan(1000);
    expect(
      builderOptionsLookValid({
        asset: { name: 'Docs', id: '019c2222-2222-7222-8222-222222222222' },
        release: { version: '1.2.0', createdAt: '2026-07-12T10:00:00Z' },
        compressionLevel: 6,
      }),
    ).toBe(true);
  });

  it('leaves what it does not know to the schema, with the schema’s errors and the same result', () => {
    const derived = { asset: { name: 'D', derivedFrom: { asset_id: '019c2222-2222-7222-8222-222222222222', version: '1.0.0', package_digest: `sha256:${'a'.repeat(64)}` } } };
    expect(builderOptionsLookValid(derived)).toBe(false);
    expect(resolveBuilderOptions(derived).derivedFrom).toEqual(derived.asset.derivedFrom);
    expect(() => resolveBuilderOptions({ asset: { name: '' } })).toThrow(
      expect.objectContaining({ code: 'OCTX_OPTIONS_INVALID', issues: [expect.objectContaining({ field: 'asset.name', message: 'asset.name must be a non-empty string' })] }),
    );
  });
});

describe('export options: the hand check accepts only what the schema accepts', () => {
  it('holds over combinations of every option', () => {
    const schema = optionSchemas().exportOptions;
    let accepted = 0;
    let total = 0;
    for (const o of combinations({
      output: [ABSENT, 'out.octx', '', 7],
      overwrite: [ABSENT, true, 'yes'],
      structure: [ABSENT, 'auto', 'require', 'all'],
      compressionLevel: [ABSENT, 0, 9, 10, 1.5],
      onProgress: [ABSENT, () => undefined, 'f'],
      signal: [ABSENT, new AbortController().signal, {}, { aborted: false, addEventListener: () => undefined }],
      limits: [ABSENT, {}, { maxEntries: 5 }, { maxEntries: '5' }, { maxEntries: Infinity }, [], null, new Map()],
      verify: [ABSENT, 'full', 'integrity', 'none'],
      vectors: [ABSENT, 'keep', 'drop'],
      previous: [ABSENT, 'p.octx', ''],
    })) {
      total++;
      if (!exportOptionsLookValid(o)) continue;
      accepted++;
      expect(schema.safeParse(o).success, JSON.stringify(o)).toBe(true);
    }
    expect(accepted).toBeGreaterThan(1000);
    expect(total - accepted).toBeGreaterThan(10_000);
  });

  it('resolves the same options whichever check accepted them', () => {
    const input = { output: 'out.octx', structure: 'require' as const, limits: { maxEntries: 50_000 }, verify: 'full' as const, strict: true };
    expect(exportOptionsLookValid(input)).toBe(true);
    const parsed = optionSchemas().exportOptions.parse(input);
    expect(resolveExportOptions(input)).toEqual(resolveExportOptions({ ...parsed, limits: { ...parsed.limits } }));
    // The limits are copied: changing the caller's object afterwards changes nothing.
    const resolved = resolveExportOptions(input);
    input.limits.maxEntries = 1;
    expect(resolved.customLimits).toEqual({ maxEntries: 50_000 });
  });
});

describe('the key lists written out for the hand checks', () => {
  it('are the schemas’ keys, in order', () => {
    const { builder, exportOptions } = optionSchemas();
    expect(BUILDER_SCHEMA_KEYS).toEqual(Object.keys(builder.shape));
    expect(ASSET_KEYS).toEqual(Object.keys(builder.shape.asset.shape));
    expect(EXPORT_SCHEMA_KEYS).toEqual(Object.keys(exportOptions.shape));
  });
});
