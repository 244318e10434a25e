/**
 * The site's navigation order recorded as the knowledge root's OKF `index.md`
 * (`docs-site/navigation.ts`): from mdBook's `SUMMARY.md` or MkDocs' `nav`. Written only where
 * the root has no `index.md` of its own; otherwise, and for generators whose navigation is code
 * (Docusaurus sidebars), it is reported as a convention not applied.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { parseSummary } from '../docs-site/mdbook.js';
import { mkdocsNavigation, navigationIndex, summaryNavigation, type NavItem } from '../docs-site/navigation.js';
import type { PackageBuilder } from '../package-builder.js';
import type { Conventions } from './conventions.js';
import type { PageContext } from './page-text.js';
import type { WorkdirScan } from './scan.js';

async function isFile(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Adds the navigation index when the site has one; returns its package path.
 * @param addedAt each added page's final path, by its path in the tree (NFC)
 */
export async function siteNavigation(
  builder: PackageBuilder,
  dir: string,
  scan: WorkdirScan,
  ctx: PageContext,
  addedAt: ReadonlyMap<string, string>,
  conventions: Conventions,
): Promise<string | undefined> {
  const site = ctx.site;
  if (site === undefined) return undefined;
  let sections: NavItem[] = [];
  let source = '';
  if (site.generator === 'mdbook' && (await isFile(join(dir, scan.tree, 'SUMMARY.md')))) {
    source = `${scan.tree}SUMMARY.md`;
    sections = summaryNavigation(parseSummary(await readFile(join(dir, source), 'utf8')));
  } else if (site.generator === 'mkdocs' && site.settings.nav !== undefined) {
    source = `${site.config} nav`;
    sections = mkdocsNavigation(site.settings.nav);
  } else if (site.generator === 'docusaurus') {
    for (const name of ['sidebars.js', 'sidebars.ts', 'sidebars.mjs', 'sidebars.cjs']) {
      if (await isFile(join(dir, name))) conventions.keep(`Docusaurus sidebar order (${name}: code, not read)`, name);
    }
    return undefined;
  }
  if (sections.length === 0) return undefined;
  const taken = [...addedAt.values()].includes('index.md');
  if (taken) {
    conventions.keep(`${site.label} navigation (${source}) not written: knowledge/index.md is the site's own page`, 'knowledge/index.md');
    return undefined;
  }
  const finalPath = (path: string): string | undefined => {
    const clean = posix.normalize(path.replace(/^\.\//, '').replace(/[?#].*$/, ''));
    return addedAt.get(clean.normalize('NFC'));
  };
  const { text, links } = navigationIndex(site.name ?? 'Contents', sections, finalPath);
  if (links === 0) return undefined;
  builder.addDocument({ path: 'index.md', markdown: text });
  conventions.apply(`${site.label} navigation order (${source}) as the OKF index knowledge/index.md`, 'knowledge/index.md', links);
  return 'knowledge/index.md';
}
