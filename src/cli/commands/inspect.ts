import { VECTOR_TARGETS } from '../../vectors/targets.js';
import type { Command } from '../args.js';
import { EXIT_OK } from '../errors.js';
import { requirePackagePath } from '../fs-checks.js';

async function count(it: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of it) n++;
  return n;
}

export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'show asset, release, capabilities, record counts per layer and the vector config',
  description: 'Reads the package without judging it; run `validate` to check it.',
  positionals: [{ name: 'file', description: 'a .octx file (or an unpacked package folder)' }],
  options: {},
  examples: ['octx-export inspect out/three-kingdoms.octx', 'octx-export inspect out/three-kingdoms.octx --json'],
  async run(ctx) {
    await requirePackagePath(ctx.positionals[0]!, 'package');
    const { openPackage } = await import('../../read/open-package.js');
    const pkg = await openPackage(ctx.positionals[0]!);
    try {
      const info = pkg.info;
      let concepts = 0;
      let reserved = 0;
      for await (const d of pkg.documents()) {
        if (d.kind === 'concept') concepts++;
        else reserved++;
      }
      const counts = {
        documents: concepts,
        reservedDocuments: reserved,
        chunks: await count(pkg.chunks()),
        events: await count(pkg.events()),
        entities: await count(pkg.entities()),
        chunkEvents: await count(pkg.chunkEvents()),
        eventEntities: await count(pkg.eventEntities()),
        extensionFiles: info.files.filter((f) => f.path.startsWith('extensions/')).length,
      };
      const listed = new Set(info.files.map((f) => f.path));
      const vectors: Record<string, number | null> = {};
      for (const t of VECTOR_TARGETS) vectors[t] = listed.has(`vectors/${t}.arrow`) ? await count(pkg.vectors(t)) : null;
      const vectorConfig = (await pkg.vectorConfig()) ?? null;
      const doc = {
        ok: true,
        command: 'inspect',
        path: pkg.path,
        kind: pkg.kind,
        format: { format: info.format ?? null, version: info.formatVersion ?? null },
        asset: {
          id: info.assetId ?? null,
          name: info.assetName ?? null,
          ...(info.derivedFrom ? { derivedFrom: info.derivedFrom } : {}),
        },
        release: { version: info.version ?? null, createdAt: info.createdAt ?? null, packageDigest: info.packageDigest ?? null },
        capabilities: info.capabilities,
        counts: { ...counts, vectors },
        vectorConfig,
        files: info.files.length,
      };
      if (ctx.json) {
        ctx.io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
        return EXIT_OK;
      }
      const caps = Object.entries(info.capabilities).map(([n, v]) => `${n}/${v ?? '?'}`);
      const lines = [
        `${pkg.path} (${pkg.kind}, ${info.format ?? '?'} ${info.formatVersion ?? '?'}, ${info.files.length} files)`,
        `  asset         ${info.assetId ?? '?'} "${info.assetName ?? '?'}"`,
        ...(info.derivedFrom ? [`  derived from  ${info.derivedFrom.assetId ?? '?'} ${info.derivedFrom.version ?? '?'} (${info.derivedFrom.packageDigest ?? '?'})`] : []),
        `  release       ${info.version ?? '?'} (${info.createdAt ?? '?'})`,
        `  digest        ${info.packageDigest ?? '?'}`,
        `  capabilities  ${caps.length > 0 ? caps.join(', ') : 'none — documents only'}`,
        `  documents     ${concepts} concept(s), ${reserved} reserved`,
        `  chunks        ${counts.chunks}`,
        `  events        ${counts.events}`,
        `  entities      ${counts.entities}`,
        `  relations     ${counts.chunkEvents} chunk-event, ${counts.eventEntities} event-entity`,
        `  vectors       ${
          VECTOR_TARGETS.filter((t) => vectors[t] !== null)
            .map((t) => `${t} ${vectors[t]} rows`)
            .join(', ') || 'none'
        }`,
      ];
      if (vectorConfig) lines.push(`  vector config ${JSON.stringify(vectorConfig)}`);
      if (counts.extensionFiles > 0)
        lines.push(
          `  extensions    ${info.files
            .filter((f) => f.path.startsWith('extensions/'))
            .map((f) => f.path)
            .join(', ')}`,
        );
      ctx.io.stdout.write(`${lines.join('\n')}\n`);
      return EXIT_OK;
    } finally {
      await pkg.close();
    }
  },
};
