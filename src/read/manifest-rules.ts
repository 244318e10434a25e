/**
 * The manifest rules that need nothing but the manifest object (OCTX-REFERENCE §5 and
 * `schemas/octx-0.1/manifest.schema.json`): format and version, asset, release, capability
 * declarations and the shape of `files[]`. Inventory rules that need the container (missing
 * files, digests, payload kinds) are applied by the validator.
 */
import { issue, type OctxIssue } from '../model/errors.js';
import { isUuidV7 } from '../model/ids.js';
import { isSemVer } from '../model/semver.js';
import { OCTX_TIME_PATTERN, isOctxTime } from '../model/time.js';

/** Capabilities this reader understands, with the one version it supports. */
export const SUPPORTED_CAPABILITIES: Readonly<Record<string, string>> = Object.freeze({ 'sag-structured': '0.1', vectors: '0.1' });

const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
const FILE_SHA_PATTERN = /^[0-9a-f]{64}$/;
const DECLARATION_VERSION = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;

/** How a capability was declared. */
export interface CapabilityDeclaration {
  readonly name: string;
  /** `supported`: known name and version; `unsupported`: warning only; `invalid`: malformed. */
  readonly status: 'supported' | 'unsupported' | 'invalid';
  /** The declared version when well-formed. */
  readonly version?: string;
  /** Issues of this capability's layer (declaration problems or the unsupported warning). */
  readonly issues: readonly OctxIssue[];
}

/** Result of {@link checkManifest}. */
export interface ManifestCheck {
  /** Format-layer issues. */
  readonly formatIssues: readonly OctxIssue[];
  /** `format`/`format_version` are not `octx`/`0.1`: nothing else can be interpreted. */
  readonly versionUnsupported: boolean;
  /** Declared capabilities, in manifest order (empty when `capabilities` is absent or not an object). */
  readonly declarations: readonly CapabilityDeclaration[];
}

const M = 'manifest.json';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  if (typeof v === 'object') return 'an object';
  // What parsed JSON leaves: numbers and booleans.
  return typeof v === 'number' || typeof v === 'boolean' ? `${typeof v} ${v}` : typeof v;
}

/** Checks the manifest object. */
export function checkManifest(m: Record<string, unknown>): ManifestCheck {
  const out: OctxIssue[] = [];
  const schema = (field: string, message: string): void => {
    out.push(issue({ code: 'OCTX_SCHEMA_VALIDATION', path: M, field, message }));
  };

  if (m.format !== 'octx' || m.format_version !== '0.1') {
    if (m.format !== 'octx') {
      out.push(issue({ code: 'OCTX_FORMAT_VERSION_UNSUPPORTED', path: M, field: 'format', message: `format must be "octx" (got ${describe(m.format)})` }));
    }
    if (m.format_version !== '0.1') {
      out.push(
        issue({
          code: 'OCTX_FORMAT_VERSION_UNSUPPORTED',
          path: M,
          field: 'format_version',
          message: `format_version ${describe(m.format_version)} is not supported; this reader supports exactly "0.1"`,
        }),
      );
    }
    return { formatIssues: out, versionUnsupported: true, declarations: [] };
  }

  // asset
  const asset = m.asset;
  if (!isObject(asset)) schema('asset', asset === undefined ? 'asset is required' : `asset must be an object (got ${describe(asset)})`);
  else {
    if (!isUuidV7(asset.id)) schema('asset.id', `asset.id must be a canonical lowercase UUIDv7 (got ${describe(asset.id)})`);
    if (typeof asset.name !== 'string' || asset.name.length === 0) schema('asset.name', `asset.name must be a non-empty string (got ${describe(asset.name)})`);
    if (asset.derived_from !== undefined) {
      const d = asset.derived_from;
      if (!isObject(d)) schema('asset.derived_from', `asset.derived_from must be an object (got ${describe(d)})`);
      else {
        if (!isUuidV7(d.asset_id)) schema('asset.derived_from.asset_id', `asset.derived_from.asset_id must be a canonical lowercase UUIDv7 (got ${describe(d.asset_id)})`);
        if (!isSemVer(d.version)) schema('asset.derived_from.version', `asset.derived_from.version must be a SemVer 2.0.0 version (got ${describe(d.version)})`);
        if (typeof d.package_digest !== 'string' || !DIGEST_PATTERN.test(d.package_digest)) {
          schema('asset.derived_from.package_digest', `asset.derived_from.package_digest must be "sha256:" + 64 lowercase hex (got ${describe(d.package_digest)})`);
        }
        if (typeof d.asset_id === 'string' && d.asset_id === asset.id) {
          out.push(
            issue({
              code: 'OCTX_ASSET_DERIVED_FROM_SELF',
              path: M,
              field: 'asset.derived_from.asset_id',
              message: 'a derived asset needs its own asset.id, different from derived_from.asset_id',
            }),
          );
        }
      }
    }
  }

  // release
  const release = m.release;
  if (!isObject(release)) schema('release', release === undefined ? 'release is required' : `release must be an object (got ${describe(release)})`);
  else {
    if (!isSemVer(release.version)) {
      schema('release.version', `release.version must be a SemVer 2.0.0 version without a "v" prefix (got ${describe(release.version)})`);
    }
    const at = release.created_at;
    if (at === undefined) schema('release.created_at', 'release.created_at is required');
    else if (typeof at !== 'string' || !OCTX_TIME_PATTERN.test(at)) {
      schema('release.created_at', `release.created_at must match YYYY-MM-DDTHH:MM:SS[.fraction]Z (got ${describe(at)})`);
      out.push(
        issue({
          code: 'OCTX_RELEASE_CREATED_AT_INVALID',
          path: M,
          field: 'release.created_at',
          message: `release.created_at ${describe(at)} is not a UTC time in the OCTX profile (…Z, no offset)`,
        }),
      );
    } else if (!isOctxTime(at)) {
      out.push(
        issue({ code: 'OCTX_RELEASE_CREATED_AT_INVALID', path: M, field: 'release.created_at', message: `release.created_at ${describe(at)} is not a real calendar instant` }),
      );
    }
    const pd = release.package_digest;
    if (typeof pd !== 'string' || !DIGEST_PATTERN.test(pd)) {
      schema(
        'release.package_digest',
        pd === undefined ? 'release.package_digest is required' : `release.package_digest must be "sha256:" + 64 lowercase hex (got ${describe(pd)})`,
      );
    }
  }

  // capabilities
  const declarations: CapabilityDeclaration[] = [];
  if (m.capabilities !== undefined) {
    const caps = m.capabilities;
    if (!isObject(caps)) schema('capabilities', `capabilities must be an object (got ${describe(caps)})`);
    else if (Object.keys(caps).length === 0) schema('capabilities', 'capabilities must not be empty: omit the key when nothing is declared');
    else {
      for (const [name, decl] of Object.entries(caps)) {
        const field = `capabilities.${name}`;
        const version = isObject(decl) ? decl.version : undefined;
        if (!isObject(decl) || typeof version !== 'string' || !DECLARATION_VERSION.test(version)) {
          const why = !isObject(decl)
            ? `must be an object {"version": "major.minor"} (got ${describe(decl)})`
            : `version must be "major.minor" such as "0.1" (got ${describe(version)})`;
          declarations.push({
            name,
            status: 'invalid',
            issues: [
              issue({ code: 'OCTX_CAPABILITY_DECLARATION_INVALID', path: M, field, message: `capability ${name}: declaration ${why}` }),
              issue({ code: 'OCTX_SCHEMA_VALIDATION', path: M, field: isObject(decl) ? `${field}.version` : field, message: `capability ${name}: declaration ${why}` }),
            ],
          });
          continue;
        }
        const known = Object.hasOwn(SUPPORTED_CAPABILITIES, name);
        if (known && SUPPORTED_CAPABILITIES[name] === version) {
          declarations.push({ name, status: 'supported', version, issues: [] });
        } else {
          const message = known
            ? `capability ${name} version ${version} is not supported (this reader supports ${SUPPORTED_CAPABILITIES[name]}); it was not checked`
            : `capability ${name} ${version} is unknown to this reader; it was not checked`;
          declarations.push({ name, status: 'unsupported', version, issues: [issue({ code: 'OCTX_CAPABILITY_UNSUPPORTED', severity: 'warning', path: M, field, message })] });
        }
      }
    }
  }

  // files (shape only; the inventory is checked against the container by the validator)
  const files = m.files;
  if (!Array.isArray(files)) schema('files', files === undefined ? 'files is required' : `files must be an array (got ${describe(files)})`);
  else if (files.length === 0) schema('files', 'files must list at least one file');
  else {
    files.forEach((f: unknown, i: number) => {
      if (!isObject(f)) {
        schema(`files[${i}]`, `files[${i}] must be an object {path, sha256} (got ${describe(f)})`);
        return;
      }
      if (typeof f.path !== 'string' || f.path.length === 0) schema(`files[${i}].path`, `files[${i}].path must be a non-empty string (got ${describe(f.path)})`);
      if (typeof f.sha256 !== 'string' || !FILE_SHA_PATTERN.test(f.sha256)) {
        schema(`files[${i}].sha256`, `files[${i}].sha256 must be 64 lowercase hex digits without prefix (got ${describe(f.sha256)})`);
      }
    });
  }
  return { formatIssues: out, versionUnsupported: false, declarations };
}
