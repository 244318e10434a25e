/**
 * The distributed build on a real job queue: BullMQ over a real Redis (Debian `redis-server`,
 * started by the test), the example's flow (examples/distributed/) of 8 shard jobs and one merge
 * job, run by 2 worker processes. One worker freezes mid-shard (inside the export's write) and is
 * SIGKILLed there; BullMQ's stalled-job recovery (short lockDuration / stalledInterval) runs that
 * shard again on the other worker. The merged package is valid and is, byte for byte, the package
 * of the whole folder built in one process; nothing of the killed attempt is left (no work folder,
 * temporary output or spill).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadWorkdir, PackageBuilder, shardOfPath, validatePackage } from 'octx-export';
import { runFlow } from '../../examples/distributed/flow.js';
import { startRedis } from '../helpers/redis-server.js';
import { ROOT } from '../helpers/temp.js';

const redis = await startRedis();
const SHARDS = 8;
const ASSET = { id: '019c0000-0000-7000-8000-0000000000cc', name: 'Flow KB' };
const RELEASE = { version: '3.0.0', createdAt: '2026-08-01T00:00:00Z' };
const id = (kind: number, n: number): string => `019c0000-0000-7${kind.toString(16).padStart(3, '0')}-8000-${n.toString(16).padStart(12, '0')}`;

/** A working folder of 32 documents (every one of the 8 shards gets some), each with a chunk, an event and an entity, all events naming one shared entity; record files in key order. */
function corpus(dir: string): void {
  const docs = 32;
  mkdirSync(join(dir, 'knowledge/notes'), { recursive: true });
  mkdirSync(join(dir, 'data'));
  mkdirSync(join(dir, 'relations'));
  const lines: Record<string, string[]> = { chunks: [], events: [], entities: [], ce: [], ee: [] };
  lines.entities!.push(JSON.stringify({ id: id(4, 0), name: 'Shared', type: 'topic' }));
  for (let d = 0; d < docs; d++) {
    writeFileSync(
      join(dir, `knowledge/notes/note-${d}.md`),
      `---\ntype: Note\ntitle: Note ${d}\noctx:\n  document_id: ${id(1, d)}\n---\n# Note ${d}\n\n${'Text of the note. '.repeat(200)}\n`,
    );
    lines.chunks!.push(JSON.stringify({ id: id(2, d), document_id: id(1, d), ordinal: 0, text: `Text of note ${d}.` }));
    lines.events!.push(JSON.stringify({ id: id(3, d), title: `Event ${d}`, content: `Something in note ${d}.` }));
    lines.entities!.push(JSON.stringify({ id: id(4, d + 1), name: `Person ${d}`, type: 'person' }));
    lines.ce!.push(JSON.stringify({ chunk_id: id(2, d), event_id: id(3, d) }));
    lines.ee!.push(JSON.stringify({ event_id: id(3, d), entity_id: id(4, 0) }), JSON.stringify({ event_id: id(3, d), entity_id: id(4, d + 1) }));
  }
  const write = (path: string, l: string[]): void => writeFileSync(join(dir, path), `${l.join('\n')}\n`);
  write('data/chunks.jsonl', lines.chunks!);
  write('data/events.jsonl', lines.events!);
  write('data/entities.jsonl', lines.entities!);
  write('relations/chunk-events.jsonl', lines.ce!);
  write('relations/event-entities.jsonl', lines.ee!);
  const held = new Set(Array.from({ length: docs }, (_, d) => shardOfPath(`knowledge/notes/note-${d}.md`, SHARDS)));
  expect(held.size).toBe(SHARDS);
}

function worker(url: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/distributed/flow-worker.ts')], {
    cwd: ROOT,
    env: { ...process.env, REDIS_URL: url, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${err}`)));
  });
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe.skipIf(redis === undefined)('a BullMQ flow of shard builds and one merge (real redis-server, 2 worker processes)', () => {
  const server = redis!;
  const dir = mkdtempSync(join(tmpdir(), 'octx-flow-'));
  const workers: ChildProcess[] = [];
  afterAll(async () => {
    await Promise.all(
      workers.map(async (w) => {
        if (w.exitCode !== null || w.signalCode !== null) return;
        const exited = new Promise((r) => w.once('exit', r));
        w.kill('SIGKILL');
        await exited;
      }),
    );
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('survives a worker SIGKILLed mid-shard: the shard runs again elsewhere, the merged package is the whole build', { timeout: 60_000 }, async () => {
    const input = join(dir, 'input');
    corpus(input);
    const out = join(dir, 'out');
    mkdirSync(out);
    // The undisturbed result: the whole folder built in one process.
    const reference = join(dir, 'whole.octx');
    const b = new PackageBuilder({ asset: ASSET, release: RELEASE });
    await loadWorkdir(b, input);
    await b.export({ output: reference, structure: 'require' });

    const marker = join(dir, 'frozen');
    const [doomed, other] = await Promise.all([worker(server.url, { FREEZE_MARKER: marker }), worker(server.url)]);
    workers.push(doomed, other);
    const flow = runFlow(server.url, { input, output: join(out, 'kb.octx'), shards: SHARDS, asset: ASSET, release: RELEASE }, 45_000);
    await until(() => existsSync(marker), 20_000, 'the first worker to freeze mid-shard');
    // Mid-shard: its work folder holds the half-written package (the other worker may be in one too).
    const shardDir = join(out, 'kb.octx.shards');
    const working = readdirSync(shardDir).filter((f) => f.endsWith('.work'));
    expect(working.length).toBeGreaterThanOrEqual(1);
    expect(working.some((w) => readdirSync(join(shardDir, w)).includes('tmp'))).toBe(true);
    doomed.kill('SIGKILL');
    const result = await flow;
    expect(doomed.signalCode).toBe('SIGKILL');

    expect(result.shards).toEqual(Array.from({ length: SHARDS }, (_, i) => join(shardDir, `shard-${i}-of-${SHARDS}.octx`)));
    expect(result.output).toBe(join(out, 'kb.octx'));
    expect((await validatePackage(result.output)).valid).toBe(true);
    expect(sha(result.output)).toBe(sha(reference));
    // Nothing of the killed attempt or of the jobs' work folders is left.
    expect(readdirSync(out).sort()).toEqual(['kb.octx', 'kb.octx.shards']);
    expect(readdirSync(shardDir).sort()).toEqual(Array.from({ length: SHARDS }, (_, i) => `shard-${i}-of-${SHARDS}.octx`).sort());
    expect(readdirSync(dir).sort()).toEqual(['frozen', 'input', 'out', 'whole.octx']);
  });
});
