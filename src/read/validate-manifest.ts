/**
 * The manifest layer of `validatePackage` (steps 1 and 2): the package digest computed from the
 * manifest, and the inventory — `files[]` against the container (duplicates, payload kinds,
 * undeclared standard paths, missing files, at least one Concept Document).
 */
import { computePackageDigest } from '../package/digest.js';
import { isConceptPath, logicalPathProblem, payloadKind } from '../model/paths.js';
import { findUnsafeIntegerLiteral } from './strict-json.js';
import { SAG, VECTORS, type ValidationContext } from './validation-context.js';

const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
const FILE_SHA_PATTERN = /^[0-9a-f]{64}$/;

/** Computes the package digest from the manifest and compares it with the declared one. */
export function checkPackageDigest(ctx: ValidationContext, m: Record<string, unknown>): void {
  const unsafe = findUnsafeIntegerLiteral(ctx.pkg.manifestBytes.toString('utf8'));
  if (unsafe !== undefined) {
    ctx.format(
      'OCTX_PACKAGE_DIGEST_INVALID',
      `the manifest holds the integer ${unsafe}, outside ±(2^53−1): its JCS form, and so the package digest, cannot be computed`,
      'manifest.json',
    );
    return;
  }
  try {
    ctx.packageDigest = computePackageDigest(m);
  } catch (e) {
    ctx.format('OCTX_PACKAGE_DIGEST_INVALID', `the package digest cannot be computed: ${(e as Error).message}`, 'manifest.json', 'release.package_digest');
    return;
  }
  const declared = (m.release as Record<string, unknown> | undefined)?.package_digest;
  if (typeof declared === 'string' && DIGEST_PATTERN.test(declared) && declared !== ctx.packageDigest) {
    ctx.format(
      'OCTX_PACKAGE_DIGEST_MISMATCH',
      `release.package_digest is ${declared}, but the manifest's digest is ${ctx.packageDigest}`,
      'manifest.json',
      'release.package_digest',
    );
  }
}

/** Checks `files[]` against the container and records what is listed (`ctx.listed`, `ctx.state`). */
export function checkInventory(ctx: ValidationContext, m: Record<string, unknown>): void {
  const files = Array.isArray(m.files) ? (m.files as unknown[]) : [];
  const caps = m.capabilities !== null && typeof m.capabilities === 'object' && !Array.isArray(m.capabilities) ? (m.capabilities as Record<string, unknown>) : {};
  const declared = (name: string): boolean => Object.hasOwn(caps, name);
  const seen = new Set<string>();
  let concepts = 0;
  files.forEach((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return;
    const e = entry as Record<string, unknown>;
    const path = e.path;
    if (typeof path !== 'string' || path.length === 0) return;
    const field = `files[${i}].path`;
    if (path === 'manifest.json') {
      ctx.format('OCTX_MANIFEST_SELF_LISTED', 'manifest.json must not be listed in files', 'manifest.json', field);
      return;
    }
    if (seen.has(path)) {
      ctx.format('OCTX_FILE_PATH_DUPLICATE', `${path} is listed more than once`, path, field);
      return;
    }
    seen.add(path);
    const problem = logicalPathProblem(path);
    if (problem !== undefined) {
      ctx.format('OCTX_PAYLOAD_PATH_UNSUPPORTED', `files[${i}].path is not a safe logical path: ${problem}`, undefined, field);
      return;
    }
    const kind = payloadKind(path);
    if (kind === undefined) {
      ctx.format(
        'OCTX_PAYLOAD_PATH_UNSUPPORTED',
        `${path} is not an allowed payload path (knowledge/**.md, a standard data/relations/vectors path, or extensions/<reverse.dns>/<major.minor>/…)`,
        path,
        field,
      );
    } else if (kind === 'structure' && !declared(SAG)) {
      ctx.format('OCTX_STANDARD_PATH_UNDECLARED', `${path} belongs to sag-structured/0.1, which the manifest does not declare`, path, field);
    } else if (kind === 'vectors' && !declared(VECTORS)) {
      ctx.format('OCTX_STANDARD_PATH_UNDECLARED', `${path} belongs to vectors/0.1, which the manifest does not declare`, path, field);
    }
    if (isConceptPath(path)) concepts += 1;
    const sha = typeof e.sha256 === 'string' && FILE_SHA_PATTERN.test(e.sha256) ? e.sha256 : undefined;
    ctx.listed.set(path, sha);
    if (!ctx.source.has(path)) {
      ctx.format('OCTX_FILE_MISSING', `${path} is listed but not in the package`, path, field);
      ctx.state.set(path, 'missing');
    } else if (sha === undefined) ctx.state.set(path, 'unverifiable');
  });
  if (concepts === 0)
    ctx.format('OCTX_CONCEPT_REQUIRED', 'files must list at least one Concept Document (knowledge/**.md other than index.md and log.md)', 'manifest.json', 'files');
}
