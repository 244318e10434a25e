/**
 * Which docs generator a folder is the site of, read from the generator's own config file (never
 * run): its site name (the default asset name) and the folder that holds its pages. One table,
 * `GENERATORS`, in the order the configs are looked for.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import type * as JsConfig from './js-config.js';
import type { Literal } from './js-config.js';

/** The JavaScript config reader (acorn) loads only for a site with a JavaScript config. */
const jsConfig = (): Promise<typeof JsConfig> => import('./js-config.js');

/** A docs generator whose conventions the loader applies. */
export type DocsGenerator = 'mdbook' | 'docusaurus' | 'starlight' | 'mkdocs' | 'vitepress' | 'hugo';

/** A folder's docs site, as its generator's config describes it. */
export interface DocsSite {
  readonly generator: DocsGenerator;
  /** The generator's name as people write it (`mdBook`, `Docusaurus`…). */
  readonly label: string;
  /** The config file read, relative to the folder. */
  readonly config: string;
  /** The site's name from the config (`title`, `site_name`, `[book] title`), when it is a literal. */
  readonly name?: string;
  /** The folder that holds the pages, relative to the folder (`.` for itself). */
  readonly contentDir: string;
  /** The config's literal values (for the navigation: mkdocs `nav`, and what else a convention needs). */
  readonly settings: Readonly<Record<string, Literal>>;
}

/** Config files are small; a larger one is not read (it is not a config this reads). */
const MAX_CONFIG_BYTES = 1024 * 1024;

async function readConfig(dir: string, rel: string): Promise<string | undefined> {
  try {
    const st = await lstat(join(dir, rel));
    if (!st.isFile() || st.size > MAX_CONFIG_BYTES) return undefined;
    return await readFile(join(dir, rel), 'utf8');
  } catch {
    return undefined;
  }
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The first of `names` that is a file of `dir`, with its text. */
async function firstConfig(dir: string, names: readonly string[]): Promise<{ rel: string; text: string } | undefined> {
  for (const rel of names) {
    const text = await readConfig(dir, rel);
    if (text !== undefined) return { rel, text };
  }
  return undefined;
}

function str(v: Literal | undefined): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** A relative folder from a config, cleaned; `fallback` when it is absent or leaves the folder. */
function folder(v: Literal | undefined, fallback: string): string {
  const s = str(v);
  if (s === undefined) return fallback;
  const clean = posix.normalize(s.replace(/^\.\//, '')).replace(/\/+$/, '');
  return clean === '' || clean.startsWith('..') || clean.startsWith('/') ? fallback : clean;
}

function record(v: unknown): Record<string, Literal> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, Literal>) : {};
}

const JS_EXTENSIONS = ['mjs', 'js', 'ts', 'mts', 'cjs', 'cts'];
const jsNames = (stem: string): string[] => JS_EXTENSIONS.map((e) => `${stem}.${e}`);
const isTs = (rel: string): boolean => /\.[mc]?ts$/.test(rel);

interface Detector {
  readonly generator: DocsGenerator;
  readonly label: string;
  detect(dir: string): Promise<Omit<DocsSite, 'generator' | 'label'> | undefined>;
}

/** The generators, in the order their configs are looked for (the most specific first). */
const GENERATORS: readonly Detector[] = [
  {
    generator: 'mdbook',
    label: 'mdBook',
    async detect(dir) {
      const found = await firstConfig(dir, ['book.toml']);
      if (!found) return undefined;
      let data: Record<string, unknown> = {};
      try {
        data = parseToml(found.text);
      } catch {
        // An unreadable book.toml still names an mdBook; its defaults apply.
      }
      const book = record(data.book);
      const name = str(book.title);
      return { config: found.rel, ...(name ? { name } : {}), contentDir: folder(book.src, 'src'), settings: book };
    },
  },
  {
    generator: 'docusaurus',
    label: 'Docusaurus',
    async detect(dir) {
      const found = await firstConfig(dir, jsNames('docusaurus.config'));
      if (!found) return undefined;
      const { exportedObject, parseConfigSource, propertyOf } = await jsConfig();
      const program = parseConfigSource(found.text, isTs(found.rel));
      const config = program ? exportedObject(program) : undefined;
      const name = str(propertyOf(config, 'title'));
      const presets = propertyOf(config, 'presets');
      // presets: [['classic', { docs: { path: 'docs' } }]]
      const classic = Array.isArray(presets) ? (presets as Literal[]).find((p) => Array.isArray(p) && typeof p[0] === 'string') : undefined;
      const docs = record(record(Array.isArray(classic) ? classic[1] : undefined).docs);
      // The navbar names each sidebar it shows (`{type: 'docSidebar', sidebarId, label}`).
      const navbar = record(record(propertyOf(config, 'themeConfig')).navbar).items ?? [];
      return { config: found.rel, ...(name ? { name } : {}), contentDir: folder(docs.path, 'docs'), settings: { docs, navbar } };
    },
  },
  {
    generator: 'starlight',
    label: 'Starlight',
    async detect(dir) {
      const found = await firstConfig(dir, jsNames('astro.config'));
      if (!found || !(await isFolder(join(dir, 'src/content/docs')))) return undefined;
      const { firstCallArgument, parseConfigSource, propertyOf } = await jsConfig();
      const program = parseConfigSource(found.text, isTs(found.rel));
      const options = program ? firstCallArgument(program, 'starlight') : undefined;
      const title = propertyOf(options, 'title');
      // A translated title is an object of locales: the root locale's (`en`), else the first.
      const name = str(title) ?? str(record(title).en) ?? str(Object.values(record(title))[0]);
      return { config: found.rel, ...(name ? { name } : {}), contentDir: 'src/content/docs', settings: {} };
    },
  },
  {
    generator: 'mkdocs',
    label: 'MkDocs',
    async detect(dir) {
      const found = await firstConfig(dir, ['mkdocs.yml', 'mkdocs.yaml']);
      if (!found) return undefined;
      let data: Record<string, Literal> = {};
      try {
        // MkDocs configs carry Python tags (!!python/name:…, !ENV): read as their plain values.
        data = record(parseYaml(found.text, { logLevel: 'silent', strict: false }));
      } catch {
        // the defaults apply
      }
      const name = str(data.site_name);
      return { config: found.rel, ...(name ? { name } : {}), contentDir: folder(data.docs_dir, 'docs'), settings: data };
    },
  },
  {
    generator: 'vitepress',
    label: 'VitePress',
    async detect(dir) {
      for (const root of ['.', 'docs']) {
        const found = await firstConfig(dir, jsNames(`${root === '.' ? '' : `${root}/`}.vitepress/config`));
        if (!found) continue;
        const { exportedObject, parseConfigSource, propertyOf } = await jsConfig();
        const program = parseConfigSource(found.text, isTs(found.rel));
        const config = program ? exportedObject(program) : undefined;
        const name = str(propertyOf(config, 'title'));
        const src = folder(propertyOf(config, 'srcDir'), '.');
        const contentDir = root === '.' ? src : src === '.' ? root : `${root}/${src}`;
        return { config: found.rel, ...(name ? { name } : {}), contentDir, settings: {} };
      }
      return undefined;
    },
  },
  {
    generator: 'hugo',
    label: 'Hugo',
    async detect(dir) {
      const found = await firstConfig(dir, ['hugo.toml', 'hugo.yaml', 'hugo.yml', 'hugo.json', 'config.toml', 'config.yaml', 'config.yml', 'config.json']);
      if (!found) return undefined;
      let data: Record<string, Literal> = {};
      try {
        const ext = found.rel.slice(found.rel.lastIndexOf('.') + 1);
        data = record(ext === 'toml' ? parseToml(found.text) : ext === 'json' ? JSON.parse(found.text) : parseYaml(found.text, { logLevel: 'silent' }));
      } catch {
        // the defaults apply
      }
      const contentDir = folder(data.contentDir, 'content');
      // A config.toml alone is any tool's config; with Hugo's content folder it is Hugo's.
      if (found.rel.startsWith('config.') && !(await isFolder(join(dir, contentDir)))) return undefined;
      const name = str(data.title);
      return { config: found.rel, ...(name ? { name } : {}), contentDir, settings: {} };
    },
  },
];

/** The docs site `dir` is the root of, from the first generator config found; `undefined` when none. */
export async function detectDocsSite(dir: string): Promise<DocsSite | undefined> {
  for (const g of GENERATORS) {
    const found = await g.detect(dir);
    if (found) return { generator: g.generator, label: g.label, ...found };
  }
  return undefined;
}
