import type { JsonValue } from '../model/json.js';
import { jcsDigest } from '../model/json.js';
import { computePackageDigest } from './digest.js';
import { compareUtf8 } from '../model/paths.js';

/** `asset.derived_from`: the direct source Release of a Derived Asset. */
export interface DerivedFrom {
  readonly asset_id: string;
  readonly version: string;
  readonly package_digest: string;
}

/** One `files[]` entry: a payload path and the SHA-256 (lowercase hex, no prefix) of its bytes. */
export interface ManifestFile {
  readonly path: string;
  readonly sha256: string;
}

/** Capability declarations this SDK writes. */
export interface Capabilities {
  readonly 'sag-structured'?: { readonly version: '0.1' };
  readonly vectors?: { readonly version: '0.1' };
}

/** An OCTX 0.1 manifest as this SDK writes it. */
export interface Manifest {
  readonly format: 'octx';
  readonly format_version: '0.1';
  readonly asset: { readonly id: string; readonly name: string; readonly derived_from?: DerivedFrom };
  readonly release: { readonly version: string; readonly created_at: string; readonly package_digest: string };
  readonly capabilities?: Capabilities;
  readonly files: readonly ManifestFile[];
  readonly [unknown: string]: JsonValue | undefined | object;
}

/** What {@link buildManifest} needs. */
export interface ManifestInput {
  readonly assetId: string;
  readonly assetName: string;
  readonly derivedFrom?: DerivedFrom;
  readonly version: string;
  readonly createdAt: string;
  readonly capabilities: Capabilities;
  readonly files: readonly ManifestFile[];
}

/**
 * Builds the manifest with its package digest. Keys are in the spec's order, `files` in UTF-8
 * byte order of their paths (as the reference writes them) and `capabilities` is omitted when
 * nothing is declared (an empty object is invalid).
 */
export function buildManifest(input: ManifestInput): Manifest {
  const files = [...input.files].sort((a, b) => compareUtf8(a.path, b.path)).map((f) => ({ path: f.path, sha256: f.sha256 }));
  const asset = input.derivedFrom
    ? {
        id: input.assetId,
        name: input.assetName,
        derived_from: { asset_id: input.derivedFrom.asset_id, version: input.derivedFrom.version, package_digest: input.derivedFrom.package_digest },
      }
    : { id: input.assetId, name: input.assetName };
  const capabilities: Record<string, { version: '0.1' }> = {};
  if (input.capabilities['sag-structured']) capabilities['sag-structured'] = { version: '0.1' };
  if (input.capabilities.vectors) capabilities.vectors = { version: '0.1' };
  const draft = {
    format: 'octx' as const,
    format_version: '0.1' as const,
    asset,
    release: { version: input.version, created_at: input.createdAt, package_digest: '' },
    ...(Object.keys(capabilities).length > 0 ? { capabilities } : {}),
    files,
  };
  const digest = computePackageDigest(draft);
  return { ...draft, release: { ...draft.release, package_digest: digest } };
}

/** The exact `manifest.json` bytes: UTF-8, no BOM, two-space indented JSON, final newline. */
export function manifestBytes(manifest: Manifest): Buffer {
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
}

/**
 * Digest of what a manifest says apart from its release (version, time, digest): two releases
 * with the same content digest carry the same asset, capabilities and files. Used by release
 * protection to tell "same content" from "changed content".
 */
export function computeContentDigest(manifest: Manifest): string {
  const { release: _release, ...rest } = manifest;
  const files = [...manifest.files].sort((a, b) => compareUtf8(a.path, b.path));
  return jcsDigest({ ...rest, files });
}
