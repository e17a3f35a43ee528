import { describe, expect, it } from 'vitest';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { MemoryHostLiveness } from '../kernel/host-liveness.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { streamConnectionsDecider, streamConnectionsStream, streamUsage } from './stream-connections.ts';
import { HOST_LOST, LostHosts } from './lost-hosts.ts';
import { StreamCalls } from './stream-calls.ts';
import { streamHandlers } from './stream-handlers.ts';
import type { StreamHosting } from './lost-hosts.ts';
import type { Engine as EngineType } from '../pipeline/engine.ts';
import type { CallAnswer } from '../handling/handler.ts';

/** A host's stream calls, answering as the tests read them: the body of a 200, or a rejection with the status. */
function host(engine: EngineType, hosting: StreamHosting) {
  const calls = new StreamCalls(engine, hosting);
  const ok = async (answer: Promise<CallAnswer>) => {
    const a = await answer;
    if (a.status !== 200) throw Object.assign(new Error(JSON.stringify(a.body)), { status: a.status });
    return a.body as Record<string, unknown>;
  };
  const creds = (username: string) => ({ username, apiKey: `${username}-key-01` });
  return {
    open: async (username: string, transport: 'websocket' | 'http') => (await ok(calls.open(creds(username), transport))).connection as string,
    subscribe: (username: string, connection: string, hash: string) => ok(calls.subscribe(creds(username), connection, hash)),
    close: (username: string, connection: string, reason: string) => ok(calls.close(username, connection, reason)),
  };
}

const T0 = Date.parse('2026-03-01T12:00:00Z');
const LAPSE = 5_000;

/** Two hosts of connections on one store, one clock moved by hand, liveness in memory. */
async function twoHosts(usernames = ['alice']) {
  let now = T0;
  const clock = { now: () => now };
  const store = new MemoryEventStore();
  const engine = new Engine({ store, clock, ids: seededIds(7), handlers: { ...filterHandlers, ...streamHandlers } });
  for (const username of usernames) await engine.openAccount({ username, api_key: `${username}-key-01`, package: { stream_connections: 1 } });
  const liveness = new MemoryHostLiveness(clock);
  const hosting = (host: string) => ({ host, liveness, lapseMs: LAPSE });
  const compile = async (username: string, csdl: string): Promise<string> =>
    ((await engine.call({ version: '1.5', endpoint: 'core.compile', credentials: { username, apiKey: `${username}-key-01` }, params: { csdl } })).body as { hash: string }).hash;
  const state = (username: string) => engine.command((uow) => uow.load(streamConnectionsDecider, streamConnectionsStream(username)));
  const disconnects = async () => (await store.readTypes(['StreamDisconnected'])).map((e) => e.data as { connection: string; at: number; reason: string });
  return {
    engine,
    liveness,
    advance: (ms: number) => void (now += ms),
    dead: host(engine, hosting('dead')),
    alive: host(engine, hosting('alive')),
    sweeper: new LostHosts(engine, hosting('alive')),
    compile,
    state,
    disconnects,
  };
}

describe('connections of a host that died', () => {
  it('a connection that would be refused for want of a place is accepted once the holder of the place has lapsed; its seconds end when the holder was last alive', async () => {
    const p = await twoHosts();
    const hash = await p.compile('alice', 'fb.content contains "coffee"');
    await p.liveness.renew('dead', T0);
    await p.liveness.renew('alive', T0);
    const held = await p.dead.open('alice', 'websocket');
    await p.dead.subscribe('alice', held, hash);
    p.advance(2_000);
    await p.liveness.renew('dead', T0 + 2_000);
    // Then it dies: no more renewals. Within the lapse its place is still its own.
    p.advance(LAPSE - 1);
    await p.liveness.renew('alive', T0 + 2_000 + LAPSE - 1);
    await expect(p.alive.open('alice', 'websocket')).rejects.toMatchObject({ status: 429 });
    p.advance(2);
    await p.liveness.renew('alive', T0 + 2_000 + LAPSE + 1);
    const fresh = await p.alive.open('alice', 'websocket');
    expect(await p.disconnects()).toEqual([{ connection: held, at: T0 + 2_000, reason: HOST_LOST }]);
    const state = await p.state('alice');
    expect(Object.keys(state.connections)).toEqual([fresh]);
    expect(state.connections[fresh]!.host).toBe('alive');
    p.advance(60_000);
    expect(streamUsage(state, T0, T0 + 120_000).get(hash)?.seconds).toBe(2);
  });

  it('a live holder keeps its place: the new connection is refused', async () => {
    const p = await twoHosts();
    await p.liveness.renew('dead', T0);
    await p.dead.open('alice', 'http');
    p.advance(LAPSE * 3);
    await p.liveness.renew('dead', T0 + LAPSE * 3);
    await expect(p.alive.open('alice', 'http')).rejects.toMatchObject({ status: 429 });
    expect(await p.disconnects()).toEqual([]);
  });

  it('the sweep ends a lapsed host’s connections on every account it held, within its bound, then forgets the host; never its own', async () => {
    const users = ['ann', 'ben', 'cat'];
    const p = await twoHosts(users);
    await p.liveness.renew('dead', T0);
    await p.liveness.renew('alive', T0);
    for (const u of users) await p.dead.open(u, 'websocket');
    await p.engine.changePackage('ann', { stream_connections: 2 });
    const own = await p.alive.open('ann', 'websocket');
    p.advance(LAPSE + 1);
    // `alive` has lapsed too by the records, but a sweep never ends its own host's connections.
    expect(await p.sweeper.sweep(2)).toBe(2);
    expect((await p.disconnects()).map((d) => d.reason)).toEqual([HOST_LOST, HOST_LOST]);
    // Two accounts were as many as it asked for, so it could not know they were the last: still listed.
    expect(await p.liveness.lapsed(LAPSE, 10)).toEqual([{ host: 'dead', aliveAt: T0, accounts: ['cat'] }, { host: 'alive', aliveAt: T0, accounts: ['ann'] }]);
    expect(await p.sweeper.sweep(2)).toBe(1);
    expect(await p.liveness.lapsed(LAPSE, 10)).toEqual([{ host: 'alive', aliveAt: T0, accounts: ['ann'] }]);
    expect(await p.sweeper.sweep(2)).toBe(0);
    for (const u of users) expect(Object.keys((await p.state(u)).connections)).toEqual(u === 'ann' ? [own] : []);
  });

  it("a host's holdings are the accounts it serves now: the last connection of an account closed, its holding is released", async () => {
    const p = await twoHosts(['ann', 'ben']);
    await p.liveness.renew('dead', T0);
    await p.engine.changePackage('ann', { stream_connections: 2 });
    const a1 = await p.dead.open('ann', 'websocket');
    const a2 = await p.dead.open('ann', 'http');
    const b1 = await p.dead.open('ben', 'websocket');
    p.advance(LAPSE + 1);
    const held = async () => (await p.liveness.lapsed(LAPSE, 10))[0]?.accounts;
    expect(await held()).toEqual(['ann', 'ben']);
    await p.dead.close('ann', a1, 'client closed');
    expect(await held()).toEqual(['ann', 'ben']);
    await p.dead.close('ann', a2, 'client closed');
    await p.dead.close('ben', b1, 'client closed');
    expect(await held()).toEqual([]);
  });

  it('a host whose own renewals broke (the store away) judges nobody dead until they have gone through for a lapse; a death it is told of it ends at once', async () => {
    const p = await twoHosts(['ann', 'ben']);
    let judging = false;
    const hosting = { host: 'alive', liveness: p.liveness, lapseMs: LAPSE, mayJudge: () => judging };
    const gate = host(p.engine, hosting);
    const sweeper = new LostHosts(p.engine, hosting);
    await p.liveness.renew('dead', T0);
    await p.liveness.renew('other', T0);
    const deadConn = await p.dead.open('ann', 'websocket');
    const otherConn = await host(p.engine, { host: 'other', liveness: p.liveness, lapseMs: LAPSE }).open('ben', 'websocket');
    p.advance(LAPSE * 2);
    await p.liveness.renew('alive', T0 + LAPSE * 2);
    expect(await sweeper.sweep()).toBe(0);
    await expect(gate.open('ann', 'websocket')).rejects.toMatchObject({ status: 429 });
    // Told that `dead` exited: ended at once, `other` (silent, but not known dead) left as it is.
    await p.liveness.expire('dead');
    expect(await sweeper.sweep(undefined, 'dead')).toBe(1);
    expect((await p.disconnects()).map((d) => d.connection)).toEqual([deadConn]);
    judging = true;
    expect(await sweeper.sweep()).toBe(1);
    expect((await p.disconnects()).map((d) => d.connection)).toEqual([deadConn, otherConn]);
  });
});
