/**
 * Seed 004 envelopes before any mapping: validated against the seed's JSON Schema exactly, the
 * latest envelope kept per `source.uri`, a source uri split into repository and path, and a
 * `content_hash` compared with the source file's bytes.
 */
import { createHash } from 'node:crypto';
import type { OctxIssue } from '../../model/errors.js';
import { compareUtf8 } from '../../model/paths.js';
import { inputIssue, issueLocation, throwInputProblems } from '../shared/input-issues.js';
import type { FromIngestOptions } from './ingest-types.js';
import { envelopeViolations, type IngestEnvelope } from './schema.js';

/**
 * Compares a seed 004 `content_hash` with the bytes of the source: `sha256:`/`sha1:`/`md5:`
 * prefixes or bare hex of 64/40/32 digits are recognised (40 hex digits match a raw SHA-1 or a
 * git blob id). Any other format is `unknown-format`.
 */
export function checkContentHash(hash: string, bytes: Uint8Array): 'match' | 'mismatch' | 'unknown-format' {
  const m = /^(?:(sha256|sha-256|sha1|sha-1|md5|git|blob)[:=])?([0-9a-fA-F]+)$/.exec(hash.trim());
  if (!m) return 'unknown-format';
  const hex = m[2]!.toLowerCase();
  const candidates: string[] = [];
  if (hex.length === 64) candidates.push(createHash('sha256').update(bytes).digest('hex'));
  else if (hex.length === 40) {
    candidates.push(createHash('sha1').update(bytes).digest('hex'));
    candidates.push(createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex'));
  } else if (hex.length === 32) candidates.push(createHash('md5').update(bytes).digest('hex'));
  else return 'unknown-format';
  return candidates.includes(hex) ? 'match' : 'mismatch';
}

/** The repository and file path of a source uri (`github:<owner>/<repo>@<path>`, any `scheme:path`, or a bare path). */
export function parseSourceUri(uri: string): { readonly repository?: string; readonly path: string } {
  const gh = /^github:([^/@\s]+\/[^@\s]+)@(.+)$/.exec(uri);
  if (gh) return { repository: gh[1]!, path: gh[2]!.replace(/^\/+/, '') };
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:(?:\/\/)?(.*)$/.exec(uri);
  if (scheme) return { path: scheme[1]!.replace(/^\/+/, '') };
  return { path: uri.replace(/^\/+/, '') };
}

/**
 * Validates seed 004 envelopes, exactly as the JSON Schema states them.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID`, one issue per violation with the rule named
 */
export function validateEnvelopes(envelopes: readonly unknown[], locate?: FromIngestOptions['locate']): IngestEnvelope[] {
  const problems: OctxIssue[] = [];
  envelopes.forEach((value, index) => {
    const at = issueLocation(locate?.(index));
    for (const v of envelopeViolations(value)) {
      problems.push(
        inputIssue({
          ...at,
          field: v.instancePath === '' ? '(envelope)' : v.instancePath,
          message: `envelope #${index + 1} breaks schema rule "${v.rule}" at ${v.schemaPath}: ${v.message}`,
        }),
      );
    }
  });
  throwInputProblems('ingest-candidate envelopes do not match the seed 004 schema:', problems);
  return envelopes as IngestEnvelope[];
}

/**
 * The latest envelope per `source.uri`: a later envelope replaces an earlier one, unless both
 * carry `extractor.extracted_at` and the earlier one is strictly newer.
 */
export function latestPerSource(envelopes: readonly IngestEnvelope[]): {
  kept: { envelope: IngestEnvelope; index: number }[];
  superseded: { uri: string; contentHash: string; index: number }[];
} {
  const current = new Map<string, { envelope: IngestEnvelope; index: number }>();
  const superseded: { uri: string; contentHash: string; index: number }[] = [];
  envelopes.forEach((envelope, index) => {
    const uri = envelope.source.uri;
    const cur = current.get(uri);
    if (!cur) {
      current.set(uri, { envelope, index });
      return;
    }
    const a = cur.envelope.extractor.extracted_at;
    const b = envelope.extractor.extracted_at;
    if (a !== undefined && b !== undefined && a > b) superseded.push({ uri, contentHash: envelope.source.content_hash, index });
    else {
      superseded.push({ uri, contentHash: cur.envelope.source.content_hash, index: cur.index });
      current.set(uri, { envelope, index });
    }
  });
  const kept = [...current.values()].sort((x, y) => compareUtf8(x.envelope.source.uri, y.envelope.source.uri));
  return { kept, superseded };
}
