import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from 'octx-export';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll } from 'vitest';
import { ROOT } from '../helpers/temp.js';

/** Runs `node --import tsx examples/<name>.ts <args>` from the repository root. */
function runExample(name: string, args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const options = { cwd: ROOT, timeout: 55_000, encoding: 'utf8' as const, env: { ...process.env, ...env } };
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', `${name}.ts`), ...args], options, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

const EXAMPLES = ['pipeline-builder', 'documents-only', 'derived-asset', 'rag-adapter', 'ingest-adapter', 'sag-database', 'release-diff'] as const;
let dir: string;
const runs = new Map<string, { code: number; stdout: string; stderr: string }>();
const out = (name: string) => join(dir, `${name}.octx`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'octx-examples-'));
  // Two at a time: each run compiles the sources with tsx.
  for (let i = 0; i < EXAMPLES.length; i += 2) {
    await Promise.all(EXAMPLES.slice(i, i + 2).map(async (name) => runs.set(name, await runExample(name, [out(name)]))));
  }
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function capabilities(name: string): Promise<string[]> {
  const report = await validatePackage(out(name));
  expect(report.valid).toBe(true);
  expect(report.fullyValidated).toBe(true);
  return Object.keys(report.capabilities).sort();
}

describe('examples/ run and write valid packages', () => {
  it.each(EXAMPLES)('%s exits 0 without errors', (name) => {
    const r = runs.get(name)!;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/validation: valid/);
  });

  it('pipeline builder: structure and vectors', async () => {
    expect(await capabilities('pipeline-builder')).toEqual(['sag-structured', 'vectors']);
  });

  it('documents only: knowledge files and nothing else', async () => {
    expect(await capabilities('documents-only')).toEqual([]);
    const pkg = await openPackage(out('documents-only'));
    try {
      expect(pkg.info.files.map((f) => f.path)).toEqual(['knowledge/.claude/wiki/graph-rag.md', 'knowledge/.claude/wiki/nvidia.md']);
    } finally {
      await pkg.close();
    }
  });

  it('derived asset: names its source', async () => {
    expect(await capabilities('derived-asset')).toEqual(['sag-structured']);
    const pkg = await openPackage(out('derived-asset'));
    try {
      expect(pkg.info.derivedFrom?.version).toBe('1.0.0');
      expect(pkg.info.derivedFrom?.packageDigest).toMatch(/^sha256:/);
    } finally {
      await pkg.close();
    }
  });

  it('release diff: 1.0.0 → 1.1.0 reports the move, the edit, the removal and the re-embedded vector', async () => {
    expect(await capabilities('release-diff')).toEqual(['sag-structured', 'vectors']);
    const stdout = runs.get('release-diff')!.stdout;
    expect(stdout).toContain('changes since 1.0.0: documents +0 -1 ~1 →1; chunks +0 -1 ~1; chunk-events +0 -1 ~0; event-entities +0 -0 ~1; chunks vectors +0 -1 ~1\n');
    expect(stdout).toContain('moved:   knowledge/guide.md → knowledge/guides/install.md\n');
    expect(stdout).toContain('removed: knowledge/faq.md\n');
  });

  it('RAG adapter: documents-only, and says why', async () => {
    expect(await capabilities('rag-adapter')).toEqual([]);
    expect(runs.get('rag-adapter')!.stdout).toContain('structure: documents-only — seed 002 carries no events or entities');
  });

  it('ingest adapter and SAG database: sag-structured', async () => {
    expect(await capabilities('ingest-adapter')).toEqual(['sag-structured']);
    expect(await capabilities('sag-database')).toEqual(['sag-structured']);
    expect(runs.get('sag-database')!.stdout).toContain('ids: 2 preserved, 16 sag-compatible, 0 from the ledger');
  });
});

describe('examples/http-embeddings.ts against an embeddings server on 127.0.0.1', () => {
  let server: Server;
  const inputs: string[][] = [];
  beforeAll(async () => {
    // Speaks the OpenAI embeddings wire format: 8 unit-length floats per text, from its SHA-256.
    server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { input: string[]; model: string };
        inputs.push(body.input);
        const data = body.input.map((text, index) => {
          const h = createHash('sha256').update(text).digest();
          const v = Array.from({ length: 8 }, (_, i) => h.readInt16BE(i * 2) / 32768);
          const norm = Math.hypot(...v);
          return { object: 'embedding', index, embedding: v.map((x) => x / norm) };
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('embeds a release, then derives one and embeds only the missing chunk; both packages are valid', async () => {
    const port = (server.address() as AddressInfo).port;
    const r = await runExample('http-embeddings', [dir], { OCTX_EMBEDDINGS_URL: `http://127.0.0.1:${port}/v1`, OCTX_EMBEDDINGS_MODEL: 'loopback-embed' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.match(/validation: valid/g)).toHaveLength(2);
    expect(r.stdout).toContain('(1 record(s) embedded');
    // The derived release sent only the new chunk's text (after the width probes).
    expect(inputs.flat()).toContain('A hotfix skips the freeze but still needs a green regression suite.');
    expect(inputs.flat().filter((t) => t.startsWith('Every release starts'))).toHaveLength(1);
    for (const v of ['1.0.0', '1.1.0']) {
      const report = await validatePackage(join(dir, `http-embeddings-${v}.octx`));
      expect(report.fullyValidated).toBe(true);
    }
    const pkg = await openPackage(join(dir, 'http-embeddings-1.1.0.octx'));
    try {
      const rows = [];
      for await (const row of pkg.vectors('chunks')) rows.push(row.inputSha256);
      expect(rows).toHaveLength(2);
      expect(rows.every((d) => typeof d === 'string' && /^[0-9a-f]{64}$/.test(d))).toBe(true);
    } finally {
      await pkg.close();
    }
  }, 60_000);
});
