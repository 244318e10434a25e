/**
 * The shared id ledger on a real Redis (Debian `redis-server`, started by the test on a loopback
 * port): shard builds that never talk to each other get one id per producer key, the first to ask
 * mints it, and what the store says wins over what a state file proposed.
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdLedger, PackageBuilder, openPackage, validatePackage, entityIdentityKey, type IdLedgerStore } from 'octx-export';
import { RedisIdLedgerStore } from 'octx-export/distributed';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { tempDir } from '../helpers/temp.js';
import { failure, failureAsync } from '../helpers/errors.js';

const redis = await startRedis();
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let namespaceSeq = 0;
const stores: RedisIdLedgerStore[] = [];

/** A store on its own connection (each shard has its own client), in a namespace of its test. */
function store(server: TestRedis, namespace: string): RedisIdLedgerStore {
  const s = RedisIdLedgerStore.connect(server.url, { namespace });
  stores.push(s);
  return s;
}

describe.skipIf(redis === undefined)('RedisIdLedgerStore (real redis-server)', () => {
  const server = redis!;
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await admin?.quit();
    await server.stop();
  });

  it('gives every shard the same id for a key, whoever asks first; the hash holds exactly the minted ids', async () => {
    const ns = `t${++namespaceSeq}`;
    const shards = [0, 1, 2, 3].map(() => new IdLedger(undefined, { store: store(server, ns) }));
    const keys = Array.from({ length: 50 }, (_, i) => `entity-${i}`);
    // Each shard asks for an overlapping window of keys, all at once (four connections racing).
    await Promise.all(shards.map((ledger, s) => ledger.reserve({ entity: keys.slice(s * 10, s * 10 + 20), chunk: [`shard-${s}#0`] })));
    const stored = await admin.hgetall(`${ns}:entity`);
    expect(Object.keys(stored).sort()).toEqual(keys.slice(0, 50).sort());
    for (const [key, id] of Object.entries(stored)) {
      expect(id).toMatch(UUID7);
      for (let s = 0; s < 4; s++) if (keys.indexOf(key) >= s * 10 && keys.indexOf(key) < s * 10 + 20) expect(shards[s]!.entity(key)).toBe(id);
    }
    // Chunks live in their own hash; every shard's own key was minted once.
    const chunks = await admin.hgetall(`${ns}:chunk`);
    expect(Object.keys(chunks).sort()).toEqual(['shard-0#0', 'shard-1#0', 'shard-2#0', 'shard-3#0']);
    expect(shards[2]!.chunk('shard-2#0')).toBe(chunks['shard-2#0']);
    expect(await admin.exists(`${ns}:event`, `${ns}:document`)).toBe(0);
  });

  it('keys an entity identity as ids.entity does (type + NFC case-folded name), across shards', async () => {
    const ns = `t${++namespaceSeq}`;
    const a = new IdLedger(undefined, { store: store(server, ns) });
    const b = new IdLedger(undefined, { store: store(server, ns) });
    await a.reserve({ entity: [{ type: 'person', name: 'Cao Cao' }] });
    await b.reserve({ entity: [{ type: 'person', name: 'CAO CAO' }, 'plain-key'] });
    const id = a.entity({ type: 'person', name: 'Cao Cao' });
    expect(b.entity({ type: 'person', name: 'CAO CAO' })).toBe(id);
    expect(await admin.hget(`${ns}:entity`, 'identity:["person","cao cao"]')).toBe(id);
    expect(entityIdentityKey({ type: 'person', name: 'CAO CAO' })).toBe('identity:["person","cao cao"]');
    expect(b.entity('plain-key')).toMatch(UUID7);
    expect(b.entity('plain-key')).not.toBe(id);
  });

  it('refuses a key that was not reserved, instead of minting an id another shard may not share', async () => {
    const ledger = new IdLedger(undefined, { store: store(server, `t${++namespaceSeq}`) });
    await ledger.reserve({ event: ['ev:1'] });
    expect(ledger.event('ev:1')).toMatch(UUID7);
    const e = failure(() => ledger.event('ev:2'));
    expect(e.code).toBe('OCTX_LEDGER_KEY_UNRESERVED');
    expect(e.issues[0]!.field).toBe('ids.event');
    expect(e.message).toContain('"ev:2"');
    expect(failure(() => ledger.id('chunk', 'c')).code).toBe('OCTX_LEDGER_KEY_UNRESERVED');
  });

  it("proposes a state file's ids to the store, and takes the store's id where it already holds one", async () => {
    const ns = `t${++namespaceSeq}`;
    const held = '01890a5d-ac96-774b-bcce-b302099a8057';
    const remembered = '01890a5d-ac96-774b-bcce-b302099a8058';
    const mine = '01890a5d-ac96-774b-bcce-b302099a8059';
    await admin.hset(`${ns}:chunk`, 'held', held);
    const ledger = new IdLedger({ document: {}, chunk: { held: remembered, mine }, event: {}, entity: {} }, { store: store(server, ns) });
    await ledger.reserve({ chunk: ['held', 'mine'] });
    expect(ledger.chunk('held')).toBe(held);
    expect(ledger.chunk('mine')).toBe(mine);
    expect(await admin.hget(`${ns}:chunk`, 'mine')).toBe(mine);
  });

  it('claims more keys than one batch holds, in order', async () => {
    const ns = `t${++namespaceSeq}`;
    const ledger = new IdLedger(undefined, { store: store(server, ns) });
    const keys = Array.from({ length: 2500 }, (_, i) => `k${i}`);
    await ledger.reserve({ document: keys });
    expect(await admin.hlen(`${ns}:document`)).toBe(2500);
    const stored = await admin.hmget(`${ns}:document`, 'k0', 'k999', 'k1000', 'k2499');
    expect([ledger.document('k0'), ledger.document('k999'), ledger.document('k1000'), ledger.document('k2499')]).toEqual(stored);
    expect(new Set(keys.map((k) => ledger.document(k))).size).toBe(2500);
  });

  it('fails with OCTX_LEDGER_FAILED when the store holds something that is not a UUIDv7', async () => {
    const ns = `t${++namespaceSeq}`;
    await admin.hset(`${ns}:entity`, 'bad', 'not-an-id');
    const ledger = new IdLedger(undefined, { store: store(server, ns) });
    const e = await failureAsync(ledger.reserve({ entity: ['ok', 'bad'] }));
    expect(e.code).toBe('OCTX_LEDGER_FAILED');
    expect(e.message).toContain('"not-an-id"');
    expect(e.message).toContain(`${ns}:*`);
  });

  it('two builders (two shards) give a shared entity one id, and each package reads back valid', async () => {
    const ns = `t${++namespaceSeq}`;
    const dir = tempDir();
    const assetId = '01890a5d-ac96-774b-bcce-b302099a0001';
    const entityIds: string[] = [];
    for (const shard of [0, 1]) {
      const b = new PackageBuilder({ asset: { name: 'Shards', id: assetId }, release: { version: '1.0.0', createdAt: '2026-01-01T00:00:00Z' }, ledger: store(server, ns) });
      await b.ids.reserve({ document: [`doc-${shard}`], chunk: [`doc-${shard}#0`], event: [`ev-${shard}`], entity: [{ type: 'person', name: 'Liu Bei' }] });
      b.addDocument({ path: `d${shard}.md`, markdown: `---\ntype: Note\noctx:\n  document_id: ${b.ids.document(`doc-${shard}`)}\n---\n# D${shard}\n` });
      const chunk = b.ids.chunk(`doc-${shard}#0`);
      const event = b.ids.event(`ev-${shard}`);
      const entity = b.ids.entity({ type: 'person', name: shard === 0 ? 'Liu Bei' : 'LIU BEI' });
      entityIds.push(entity);
      b.addChunk({ id: chunk, document_id: b.ids.document(`doc-${shard}`), ordinal: 0, text: `Text ${shard}.` })
        .addEvent({ id: event, title: `Event ${shard}`, content: 'Something happened.' })
        .addEntity({ id: entity, name: 'Liu Bei', type: 'person' })
        .linkChunkEvent({ chunk_id: chunk, event_id: event })
        .linkEventEntity({ event_id: event, entity_id: entity });
      await b.export({ output: join(dir, `s${shard}.octx`) });
    }
    expect(entityIds[0]).toBe(entityIds[1]);
    for (const shard of [0, 1]) {
      const report = await validatePackage(join(dir, `s${shard}.octx`));
      expect(report.valid).toBe(true);
      const pkg = await openPackage(join(dir, `s${shard}.octx`));
      try {
        const entities = [];
        for await (const e of pkg.entities()) entities.push(e.record);
        expect(entities.map((e) => e.id)).toEqual([entityIds[0]]);
      } finally {
        await pkg.close();
      }
    }
  });

  it('reports a Redis that cannot be reached as OCTX_LEDGER_FAILED, naming the store', async () => {
    const port = server.port === 1 ? 2 : 1; // nothing listens on port 1 on loopback
    const s = RedisIdLedgerStore.connect(`redis://127.0.0.1:${port}`, { namespace: 'gone', redis: { maxRetriesPerRequest: 0, retryStrategy: () => null } });
    stores.push(s);
    const ledger = new IdLedger(undefined, { store: s });
    const e = await failureAsync(ledger.reserve({ chunk: ['c'] }));
    expect(e.code).toBe('OCTX_LEDGER_FAILED');
    expect(e.message).toContain(`redis 127.0.0.1:${port} gone:*`);
  });
});

describe('IdLedger stores and reservations (no Redis needed)', () => {
  it('reserve without a store mints locally, and the synchronous calls return the same ids', async () => {
    const ledger = new IdLedger();
    await ledger.reserve({ chunk: ['a'], entity: [{ type: 't', name: 'N' }] });
    const a = ledger.peek('chunk', 'a');
    expect(a).toMatch(UUID7);
    expect(ledger.chunk('a')).toBe(a);
    expect(ledger.entity({ type: 't', name: 'n' })).toBe(ledger.peek('entity', 'identity:["t","n"]'));
    expect(ledger.chunk('unreserved')).toMatch(UUID7); // no store: minting locally is the file ledger's behaviour
  });

  it('refuses an unknown kind, an empty key, and a store that answers the wrong number of ids', async () => {
    const ledger = new IdLedger();
    expect((await failureAsync(ledger.reserve({ widget: ['x'] } as never))).code).toBe('OCTX_OPTIONS_INVALID');
    expect((await failureAsync(ledger.reserve({ chunk: [''] }))).code).toBe('OCTX_OPTIONS_INVALID');
    const short: IdLedgerStore = { description: 'short store', claim: async () => [] };
    const e = await failureAsync(new IdLedger(undefined, { store: short }).reserve({ chunk: ['x'] }));
    expect(e.code).toBe('OCTX_LEDGER_FAILED');
    expect(e.issues[0]!.message).toBe('the shared id ledger short store answered 0 ids for 1 keys');
    const throwing: IdLedgerStore = {
      description: 'throwing store',
      claim: async () => {
        throw new Error('boom');
      },
    };
    const t = await failureAsync(new IdLedger(undefined, { store: throwing }).reserve({ chunk: ['x'] }));
    expect(t.code).toBe('OCTX_LEDGER_FAILED');
    expect(t.message).toBe('the shared id ledger throwing store failed: boom');
  });

  it('refuses a ledger option that is not a store, an empty namespace and a non-Redis URL', () => {
    const e = failure(() => new PackageBuilder({ asset: { name: 'x' }, ledger: { claim: 1 } as never }));
    expect(e.code).toBe('OCTX_OPTIONS_INVALID');
    expect(e.issues[0]!.field).toBe('ledger');
    expect(failure(() => RedisIdLedgerStore.connect('redis://127.0.0.1:1', { namespace: '' })).code).toBe('OCTX_OPTIONS_INVALID');
    const url = failure(() => RedisIdLedgerStore.connect('http://127.0.0.1:1', { namespace: 'n' }));
    expect(url.code).toBe('OCTX_OPTIONS_INVALID');
    expect(url.message).toContain('redis://');
  });
});
