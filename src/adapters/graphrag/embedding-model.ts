/**
 * The embedding model's name, from the GraphRAG project's settings file next to the output
 * folder, as each release's `graphrag init` template names it:
 *
 * | release | key |
 * | --- | --- |
 * | 3.x | `embedding_models.<id>.model`, `<id>` = `embed_text.embedding_model_id` (default `default_embedding_model`) |
 * | 2.x | `models.<id>.model`, `<id>` = `embed_text.model_id` (default `default_embedding_model`) |
 * | 1.x | `embeddings.llm.model` |
 *
 * A value still holding a `${VARIABLE}` (GraphRAG substitutes environment variables) is not a
 * name; the caller then needs `--embedding-model`. Nothing is ever guessed.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { readRegularFile } from '../../package/regular-file.js';

/** The model found, or why none was. */
export type SettingsModel = { readonly model: string; readonly file: string; readonly key: string } | { readonly model?: undefined; readonly why: string };

const get = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((o, k) => (o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[k] : undefined), v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** The settings file of the project whose output folder is `outputDir` (given, or `settings.yaml`/`.yml`/`.json` beside it). */
export function settingsFile(outputDir: string, given?: string): string | undefined {
  if (given !== undefined) return given;
  const project = dirname(resolve(outputDir));
  return ['settings.yaml', 'settings.yml', 'settings.json'].map((n) => join(project, n)).find((f) => existsSync(f));
}

/** Reads the embedding model's name from a settings file. */
export async function modelFromSettings(file: string): Promise<SettingsModel> {
  let data: unknown;
  try {
    data = parse(await readRegularFile(file), { maxAliasCount: 100 });
  } catch (e) {
    return { why: `${file} could not be read as YAML: ${(e as Error).message.split('\n')[0]}` };
  }
  const v3Id = str(get(data, 'embed_text', 'embedding_model_id')) ?? 'default_embedding_model';
  const v2Id = str(get(data, 'embed_text', 'model_id')) ?? 'default_embedding_model';
  const candidates: [string, unknown][] = [
    [`embedding_models.${v3Id}.model`, get(data, 'embedding_models', v3Id, 'model')],
    [`models.${v2Id}.model`, get(data, 'models', v2Id, 'model')],
    ['embeddings.llm.model', get(data, 'embeddings', 'llm', 'model')],
  ];
  for (const [key, value] of candidates) {
    const model = str(value);
    if (model === undefined) continue;
    if (/\$\{[^}]*\}/.test(model)) return { why: `${file} sets ${key} to ${JSON.stringify(model)}, an environment variable GraphRAG substitutes at run time` };
    return { model, file, key };
  }
  return { why: `${file} names no embedding model (${candidates.map(([k]) => k).join(', ')})` };
}
