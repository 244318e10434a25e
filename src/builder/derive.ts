import { parseDocument } from 'yaml';
import { OctxError, type OctxIssue } from '../model/errors.js';
import { isUuidV7 } from '../model/ids.js';
import { isSemVer } from '../model/semver.js';
import type { DerivedFrom } from '../package/manifest.js';
import type { ArchiveLimits } from '../model/limits.js';
import { openPackage, type OctxPackage } from '../read/open-package.js';
import { validatePackage, type ValidationReport } from '../read/validate-package.js';
import { splitFrontmatter, stripBom } from '../knowledge/frontmatter.js';
import type { VectorConfigInput } from '../vectors/config.js';
import { VECTOR_TARGETS } from '../vectors/targets.js';
import { inputHashDeclaration } from '../vectors/input-digest.js';
import { VECTOR_TARGET_PATHS } from '../model/paths.js';
import type { VectorTarget } from '../vectors/targets.js';
import { RECORD_KIND_ORDER, type RecordKind } from '../model/record-kinds.js';
import { builderOptionKeyIssues, type PackageBuilderOptions } from './options.js';

/** Options of `PackageBuilder.derive(source, options)`. */
export interface DeriveOptions extends Omit<PackageBuilderOptions, 'asset'> {
  /** The new Asset: a new name, and optionally a new id (never the source's). */
  readonly asset: { readonly name: string; readonly id?: string };
  /**
   * Carry only the Markdown knowledge layer. For an invalid source this is the only way to
   * derive: readable Markdown is recovered and every Concept Document gets a new id.
   */
  readonly documentsOnly?: boolean;
  /**
   * Derive from a source whose format is valid but whose declared `sag-structured` or `vectors`
   * layer is invalid, leaving that layer behind (it is reported in `derivation.skipped`). Without
   * this, such a source is refused: a declared layer is never dropped silently (seed §8).
   */
  readonly dropInvalidLayers?: boolean;
  /** Limits for reading the source. */
  readonly limits?: Partial<ArchiveLimits>;
}

/** What a derivation carried over from its source, and what it could not. */
export interface DerivationSummary {
  readonly source: { readonly path: string; readonly assetId?: string; readonly version?: string; readonly packageDigest?: string; readonly valid: boolean };
  /** `full`: documents, extensions and every valid layer with ids kept; `documents-only`; `recovery`: readable Markdown of an invalid source, new ids. */
  readonly mode: 'full' | 'documents-only' | 'recovery';
  readonly derivedFrom?: DerivedFrom;
  readonly carried: { readonly documents: number; readonly extensions: number; readonly structure: boolean; readonly vectors: boolean };
  /** Source files or layers left behind, with the reason. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
  /** The source's validation issues. */
  readonly sourceIssues: readonly OctxIssue[];
}

/**
 * What a derivation writes into: the collecting half of `PackageBuilder`. Typed structurally so
 * that this module does not import the builder it fills (the builder imports this module for
 * `PackageBuilder.derive`).
 */
export interface DeriveTarget {
  addDocument(input: { path: string; markdown: string | Uint8Array }): unknown;
  addExtensionFile(path: string, bytes: Uint8Array): unknown;
  addRecord(kind: RecordKind, record: object): unknown;
  setVectorConfig(config: VectorConfigInput): unknown;
  addVector(target: VectorTarget, recordId: string, vector: Float32Array, options?: { inputSha256?: string }): unknown;
  dispose(): Promise<void>;
}

/** The keys of {@link DeriveOptions} beyond the builder's. */
const DERIVE_ONLY_KEYS = ['documentsOnly', 'dropInvalidLayers', 'limits'];

/**
 * Opens and fully validates `source`, creates a builder for a new Derived Asset with
 * `asset.derived_from` set to the source release, and copies the source content into it.
 * Unknown manifest fields of the source are not carried (OCTX-REFERENCE §5.3).
 * @param create makes the builder (keeps this module free of a runtime import cycle)
 */
export async function deriveBuilder<B extends DeriveTarget>(
  create: (options: PackageBuilderOptions) => B,
  source: string,
  options: DeriveOptions,
): Promise<{ builder: B; summary: DerivationSummary }> {
  // A misspelled option is refused before the source is read (the builder would name only its own keys).
  const unknown = builderOptionKeyIssues(options, DERIVE_ONLY_KEYS);
  if (unknown.length > 0) throw OctxError.aggregate('OCTX_OPTIONS_INVALID', 'derive options are invalid:', unknown);
  const report = await validatePackage(source, options.limits ? { limits: options.limits } : {});
  const manifest = (report.manifest ?? {}) as { asset?: { id?: unknown }; release?: { version?: unknown; package_digest?: unknown } };
  const sourceId = { assetId: str(manifest.asset?.id), version: str(manifest.release?.version), packageDigest: str(manifest.release?.package_digest) };
  const errors = report.issues.filter((i) => i.severity === 'error');
  if (errors.length > 0 && errors.every((i) => i.code === 'OCTX_RESOURCE_LIMIT')) {
    // Over a limit, the source is not invalid but unreadable here: documentsOnly would fail the same.
    throw OctxError.aggregate(
      'OCTX_DERIVATION_REQUIRED',
      `the source ${source} is above the resource limits, so it cannot be read to derive from it (documentsOnly fails the same); pass larger limits in the derive options when every consumer accepts larger packages:`,
      errors,
      report,
    );
  }
  if (!report.format.valid && !options.documentsOnly) {
    throw OctxError.aggregate(
      'OCTX_DERIVATION_REQUIRED',
      `the source ${source} is not a valid OCTX package, so it cannot be derived as is; pass documentsOnly: true to recover its readable Markdown into a new asset with new document ids:`,
      report.issues.filter((i) => i.severity === 'error'),
      report,
    );
  }
  if (report.format.valid && !report.valid && !options.documentsOnly && !options.dropInvalidLayers) {
    throw OctxError.aggregate(
      'OCTX_DERIVATION_REQUIRED',
      `the source ${source} declares a layer that is invalid; pass dropInvalidLayers: true to derive without it, or documentsOnly: true to carry only the documents:`,
      report.issues.filter((i) => i.severity === 'error'),
      report,
    );
  }
  const derivedFrom = derivedFromOf(sourceId, report);
  const { documentsOnly: _documentsOnly, limits: _limits, dropInvalidLayers: _drop, ...builderOptions } = options;
  const builder = create({ ...builderOptions, asset: { ...options.asset, ...(derivedFrom ? { derivedFrom } : {}) } });
  const summaryBase = { source: { path: source, ...clean(sourceId), valid: report.valid }, ...(derivedFrom ? { derivedFrom } : {}), sourceIssues: report.issues };
  let pkg: OctxPackage | undefined;
  try {
    pkg = await openPackage(source, options.limits ? { limits: options.limits } : {});
    if (!report.format.valid) {
      const { documents, skipped } = await recoverDocuments(builder, pkg);
      return { builder, summary: { ...summaryBase, mode: 'recovery', carried: { documents, extensions: 0, structure: false, vectors: false }, skipped } };
    }
    const skipped: { path: string; reason: string }[] = [];
    let documents = 0;
    for await (const doc of pkg.documents()) {
      builder.addDocument({ path: doc.path.slice('knowledge/'.length), markdown: doc.bytes });
      documents++;
    }
    if (options.documentsOnly) {
      return { builder, summary: { ...summaryBase, mode: 'documents-only', carried: { documents, extensions: 0, structure: false, vectors: false }, skipped } };
    }
    let extensions = 0;
    for (const f of pkg.listedFiles()) {
      if (!f.path.startsWith('extensions/')) continue;
      builder.addExtensionFile(f.path, await pkg.readFile(f.path));
      extensions++;
    }
    const structure = report.capabilities['sag-structured']?.valid === true;
    if (structure) {
      // Every kind of the table, records before the relations that name them.
      for (const kind of RECORD_KIND_ORDER) for await (const { record } of pkg.records(kind)) builder.addRecord(kind, record);
    } else if ('sag-structured' in report.capabilities) {
      skipped.push({ path: 'data/, relations/', reason: 'the source declares sag-structured but it is invalid; a consumer must rebuild it rather than import it' });
    }
    const vectors = structure && report.capabilities.vectors?.valid === true;
    if (vectors) {
      const config = (await pkg.vectorConfig()) as VectorConfigInput;
      builder.setVectorConfig(config);
      // Input digests travel with their vectors when the config declares the recipe we know
      // (the validator has already compared them with the records); otherwise they are dropped.
      const digests = inputHashDeclaration(config) === 'supported';
      for (const target of VECTOR_TARGETS) {
        if (!pkg.hasFile(VECTOR_TARGET_PATHS[target])) continue;
        for await (const row of pkg.vectors(target)) {
          builder.addVector(target, row.recordId, row.vector, digests && row.inputSha256 !== undefined ? { inputSha256: row.inputSha256 } : undefined);
        }
      }
    } else if ('vectors' in report.capabilities) {
      skipped.push({ path: 'vectors/', reason: 'the source vectors are invalid (or depend on an invalid structure); they are not carried' });
    }
    return { builder, summary: { ...summaryBase, mode: 'full', carried: { documents, extensions, structure, vectors }, skipped } };
  } catch (e) {
    await builder.dispose();
    throw e;
  } finally {
    await pkg?.close();
  }
}

/** `derived_from` only when the source names a well-formed release whose digest checks out. */
function derivedFromOf(id: { assetId?: string; version?: string; packageDigest?: string }, report: ValidationReport): DerivedFrom | undefined {
  if (!isUuidV7(id.assetId) || !isSemVer(id.version) || id.packageDigest === undefined || report.packageDigest !== id.packageDigest) return undefined;
  return { asset_id: id.assetId, version: id.version, package_digest: id.packageDigest };
}

/** Readable Markdown of an invalid source, with `octx.document_id` removed so new ids are minted. */
async function recoverDocuments(builder: DeriveTarget, pkg: OctxPackage): Promise<{ documents: number; skipped: { path: string; reason: string }[] }> {
  const skipped: { path: string; reason: string }[] = [];
  let documents = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const f of pkg.listedFiles()) {
    if (!f.path.startsWith('knowledge/') || !f.path.endsWith('.md')) continue;
    try {
      const bytes = await pkg.readFile(f.path);
      const text = withoutDocumentId(stripBom(decoder.decode(bytes)));
      builder.addDocument({ path: f.path.slice('knowledge/'.length), markdown: text });
      documents++;
    } catch (e) {
      skipped.push({ path: f.path, reason: e instanceof OctxError ? e.message : 'not readable UTF-8 Markdown' });
    }
  }
  return { documents, skipped };
}

function withoutDocumentId(text: string): string {
  const split = splitFrontmatter(text);
  if (!split.ok || split.parts.frontmatter === undefined) return text;
  const doc = parseDocument(split.parts.frontmatter);
  if (doc.errors.length > 0 || !doc.hasIn(['octx', 'document_id'])) return text;
  doc.deleteIn(['octx', 'document_id']);
  const rest = doc.getIn(['octx']) as { items?: unknown[] } | undefined;
  if (rest && Array.isArray(rest.items) && rest.items.length === 0) doc.delete('octx');
  const root = doc.contents as { items?: unknown[] } | null;
  if (!root || (Array.isArray(root.items) && root.items.length === 0)) return split.parts.body;
  const nl = split.parts.newline;
  return `---${nl}${doc.toString({ lineWidth: 0 })}---${nl}${split.parts.body}`;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function clean<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
