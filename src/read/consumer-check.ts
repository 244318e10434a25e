/**
 * The consumer section of a validation report: a consumer profile's rules run over a valid
 * package's documents and structure records (the same {@link ConsumerChecker} the planner runs
 * at export), and a note when the consumer does not use the package's vectors.
 */
import { ConsumerChecker, type ConsumerProfile } from '../consumers/index.js';
import { issue, type OctxIssue } from '../model/errors.js';
import { RECORD_KINDS, RECORD_KIND_ORDER } from '../model/record-kinds.js';
import type { OctxPackage } from './open-package.js';
import { splitFrontmatter } from '../knowledge/frontmatter.js';
import { isPythonTitle, pythonHeadingTitle } from '../knowledge/title.js';

/** The Markdown body of a document's text (after its frontmatter block). */
function bodyOf(text: string): string {
  const split = splitFrontmatter(text);
  return split.ok ? split.parts.body : text;
}

/** What a consumer would make of the package. */
export interface ConsumerReport {
  /** The profile's name (`sag-1.7`). */
  readonly name: string;
  /**
   * `true`: no rule of the profile fails; `false`: the consumer would refuse the package (the
   * errors name each record); `null`: not checked, because the package itself is invalid.
   */
  readonly compatible: boolean | null;
  /** Errors (`OCTX_CONSUMER_INCOMPATIBLE`) and warnings (`OCTX_CONSUMER_ADJUSTED`, `OCTX_CONSUMER_VECTORS_UNUSED`). */
  readonly issues: OctxIssue[];
}

/**
 * Runs `profile` over a package already validated (`valid`: the report's verdict;
 * `structureValid`: its sag-structured layer is declared and valid, so its records are read).
 */
export async function checkPackageForConsumer(
  pkg: OctxPackage,
  profile: ConsumerProfile,
  verdict: { readonly valid: boolean; readonly structureValid: boolean; readonly vectorsDeclared: boolean },
): Promise<ConsumerReport> {
  if (!verdict.valid) {
    return {
      name: profile.name,
      compatible: null,
      issues: [issue({ code: 'OCTX_CONSUMER_INCOMPATIBLE', message: `${profile.name}: not checked, the package is invalid (no consumer accepts it)` })],
    };
  }
  const checker = new ConsumerChecker(profile);
  if (checker.checks('document')) {
    for await (const d of pkg.documents()) {
      if (d.kind !== 'concept') continue;
      const title = d.frontmatter?.title;
      // Only a title a Python reader cannot use sends it to the body (decoded then, not before).
      const fallback = isPythonTitle(title) ? undefined : pythonHeadingTitle(bodyOf(d.text), d.path);
      checker.record(
        'document',
        { ...(d.documentId !== undefined ? { id: d.documentId } : {}), ...(title !== undefined ? { title } : {}), ...(fallback !== undefined ? { titleFallback: fallback } : {}) },
        { path: d.path },
      );
    }
  }
  if (verdict.structureValid) {
    for (const kind of RECORD_KIND_ORDER) {
      if (!checker.checks(kind)) continue;
      const path = RECORD_KINDS[kind].path;
      for await (const { line, record } of pkg.records(kind)) checker.record(kind, record as object as Record<string, unknown>, { path, line });
    }
  }
  const issues = [...checker.issues];
  if (verdict.vectorsDeclared && profile.vectors.policy === 'omit') {
    issues.push(
      issue({
        code: 'OCTX_CONSUMER_VECTORS_UNUSED',
        severity: 'warning',
        message: `${profile.name}: the package's vectors will be re-embedded, not reused: ${profile.vectors.reason.replace(/^vectors are left out for [^:]+: /, '')}`,
      }),
    );
  }
  return { name: profile.name, compatible: checker.errors === 0, issues };
}
