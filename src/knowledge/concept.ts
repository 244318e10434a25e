import { issue, type OctxIssue } from '../model/errors.js';
import { detachedString } from '../model/detached-string.js';
import { isUuidV7 } from '../model/ids.js';
import { parseFrontmatter, splitFrontmatter, type FrontmatterBounds } from './frontmatter.js';
import { describeRetyped, type RetypedScalar } from './pyyaml-reading.js';
import { describePyYaml, type PyYamlScalar } from './pyyaml-scalar.js';

/** What a reader learns from a Concept Document's text. */
export interface ConceptReading {
  /** Problems, with reference codes (`OCTX_DOCUMENT_FRONTMATTER`, `…_TYPE_REQUIRED`, `…_ID_INVALID`). */
  readonly issues: OctxIssue[];
  /** `octx.document_id` when it is a canonical UUIDv7. */
  readonly documentId?: string;
  /** The frontmatter mapping (YAML 1.2 reading) when it parsed. */
  readonly frontmatter?: Record<string, unknown>;
  /** The Markdown body after the frontmatter. */
  readonly body?: string;
}

/**
 * Reads a Concept Document as a consumer does (OCTX-REFERENCE §8.2): safe frontmatter that is a
 * mapping, a non-empty string `type` (under YAML 1.1 typing too, as the reference's PyYAML reads
 * it), and `octx.document_id` as a canonical UUIDv7.
 *
 * @param path package path, used in the issues
 * @param text the file text with any BOM already stripped
 * @param bounds a larger frontmatter block is refused unparsed (`OCTX_FRONTMATTER_TOO_LARGE`), and
 *   one of more YAML nodes too (`OCTX_FRONTMATTER_TOO_COMPLEX`); a number is the byte bound alone
 */
export function readConceptDocument(path: string, text: string, bounds?: number | FrontmatterBounds): ConceptReading {
  const issues: OctxIssue[] = [];
  const split = splitFrontmatter(text);
  if (!split.ok) return { issues: [issue({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, message: split.reason })] };
  if (split.parts.frontmatter === undefined) {
    return { issues: [issue({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, message: 'a Concept Document must start with a YAML frontmatter block (--- … ---)' })] };
  }
  const parsed = parseFrontmatter(split.parts.frontmatter, bounds);
  if (!parsed.ok) {
    if (parsed.tooLarge) return { issues: [issue({ code: 'OCTX_FRONTMATTER_TOO_LARGE', path, field: 'frontmatter', message: parsed.reason })] };
    if (parsed.tooComplex) return { issues: [issue({ code: 'OCTX_FRONTMATTER_TOO_COMPLEX', path, field: 'frontmatter', message: parsed.reason })] };
    return { issues: [issue({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, message: parsed.reason })] };
  }
  const { data, retyped } = parsed.value;
  const typeRetyped = retypedType(retyped);
  const typeProblem = documentTypeProblem(data.type, typeRetyped?.pyyaml);
  if (typeProblem) issues.push(issue({ code: 'OCTX_DOCUMENT_TYPE_REQUIRED', path, field: 'type', message: typeProblem }));
  // A value PyYAML (the reference reader) types otherwise is read differently by every consumer
  // that is not YAML 1.2: such a package does not mean one thing, so it is not valid.
  for (const r of retyped) {
    if (r !== typeRetyped) issues.push(issue({ code: 'OCTX_DOCUMENT_FRONTMATTER', path, field: r.topKey, message: describeRetyped(r) }));
  }
  const octx = data.octx;
  let documentId: string | undefined;
  if (octx === null || typeof octx !== 'object' || Array.isArray(octx)) {
    issues.push(issue({ code: 'OCTX_DOCUMENT_ID_INVALID', path, field: 'octx.document_id', message: 'frontmatter needs an octx mapping with document_id' }));
  } else {
    const id = (octx as Record<string, unknown>).document_id;
    // A canonical UUID is a string to PyYAML too (no YAML 1.1 resolver matches one).
    if (!isUuidV7(id)) {
      issues.push(
        issue({
          code: 'OCTX_DOCUMENT_ID_INVALID',
          path,
          field: 'octx.document_id',
          message: `octx.document_id must be a canonical lowercase UUIDv7 string (got ${JSON.stringify(id) ?? 'nothing'})`,
        }),
      );
    } else {
      // A copy: a slice of the block would keep the whole block alive while the reader holds ids.
      documentId = detachedString(id);
    }
  }
  return { issues, frontmatter: data, body: split.parts.body, ...(documentId ? { documentId } : {}) };
}

/** The retyped scalar that is the top-level `type` value, if any. */
export function retypedType(retyped: readonly RetypedScalar[]): RetypedScalar | undefined {
  return retyped.find((r) => r.where === 'type');
}

/**
 * Why a frontmatter `type` is unusable, or `undefined` when it is a non-empty string under both
 * YAML 1.2 and YAML 1.1 typing.
 *
 * @param pyyaml what PyYAML reads instead, when it does not read the YAML 1.2 string
 */
export function documentTypeProblem(type12: unknown, pyyaml?: PyYamlScalar): string | undefined {
  if (type12 === undefined) return 'type is missing';
  if (typeof type12 !== 'string') return `type must be a string (got ${typeof type12}); quote it in YAML`;
  if (type12.trim() === '') return 'type must not be empty';
  if (pyyaml !== undefined) return `type "${type12}" is not a string under YAML 1.1 (the reference's PyYAML reads ${describePyYaml(pyyaml)}); quote it`;
  return undefined;
}
