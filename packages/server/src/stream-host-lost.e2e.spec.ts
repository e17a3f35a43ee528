/**
 * A server killed while it holds stream connections (SIGKILL: no disconnect written) does not keep the
 * account's places for ever: another server on the same store finds its liveness record lapsed and ends
 * its connections, as it was last known alive, so a connection that would have been refused is accepted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { everyStore } from '../test/every-store.ts';
import { account, pause, settings, WsClient, type Json } from '../test/stream-kit.ts';
import { startServer, type RunningSdp } from './server.ts';
import { listeningUrl } from '../test/listening-url.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

// Fast enough for a test, the same mechanism as the defaults (1 s renewals, 5 s lapse).
const PACE = { renewMs: 200, lapseMs: 2_500 };

/** A server process on `store`, killed by the test. */
async function serverProcess(store: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/test/stream-host-process.ts', store, JSON.stringify(PACE)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const { url } = await listeningUrl(child);
  return { child, url };
}

/** Opens a WebSocket stream, or says with which status its handshake was refused. */
function tryOpen(url: string): Promise<WebSocket | number> {
  return new Promise((done, fail) => {
    const ws = new WebSocket(url);
    ws.once('open', () => done(ws));
    ws.once('unexpected-response', (_req, res) => {
      done(res.statusCode ?? 0);
      res.resume();
    });
    ws.once('error', fail);
  });
}

const shared = everyStore('stream-host-lost').filter(([name]) => name !== 'memory');

describe.each(shared)('a stream server killed on the %s store', (_name, store) => {
  it.skipIf(store === undefined)('frees its places within seconds: the refused connection is then accepted, and its seconds end when it was last alive', async () => {
    // The survivor sweeps only when asked here (the open path is what is measured); not a sole writer.
    const survivor: RunningSdp = await startServer(settings({ store: store!, workers: 2, clock: 'system' }), { streamLiveness: { ...PACE, sweepMs: 3_600_000 } });
    try {
      const ada = await account(survivor, 'ada', { stream_connections: 1 });
      const bob = await account(survivor, 'bob', { stream_connections: 1 });
      const hash = await ada.compile('fb.content contains "coffee"');
      const doomed = await serverProcess(store!);
      const wsOn = (base: string, who: { username: string; key: string }) => `${base.replace(/^http/, 'ws')}/multi?username=${who.username}&api_key=${who.key}`;
      const held = new WsClient(await (async () => {
        const ws = await tryOpen(wsOn(doomed.url, ada));
        if (typeof ws === 'number') throw new Error(`refused ${ws}`);
        return ws;
      })());
      held.send({ action: 'subscribe', hash });
      await held.until((m: Json) => m.status === 'success');
      const bobs = await tryOpen(wsOn(doomed.url, bob));
      expect(bobs).toBeInstanceOf(WebSocket);

      const beforeKill = Date.now();
      doomed.child.kill('SIGKILL');
      await new Promise((r) => doomed.child.once('exit', r));
      // Its place is still held (its record has not lapsed yet): refused for want of one.
      expect(await tryOpen(wsOn(survivor.url, ada))).toBe(429);

      const killed = performance.now();
      let accepted: WebSocket | undefined;
      while (!accepted) {
        const got = await tryOpen(wsOn(survivor.url, ada));
        if (typeof got !== 'number') accepted = got;
        else {
          expect(got).toBe(429);
          expect(performance.now() - killed).toBeLessThan(10_000);
          await pause(100);
        }
      }
      expect(performance.now() - killed).toBeLessThan(10_000);
      accepted.close();

      const ended = async (username: string) =>
        (await survivor.store.readTypes(['StreamDisconnected'])).filter((e) => e.stream.endsWith(username)).map((e) => e.data as { at: number; reason: string });
      const [adaEnd] = await ended('ada');
      expect(adaEnd!.reason).toBe('host lost');
      // It ends when the killed server last renewed its record: before the kill, and (its place was still
      // held after it) within a lapse of it.
      expect(adaEnd!.at).toBeLessThanOrEqual(beforeKill);
      expect(adaEnd!.at).toBeGreaterThan(beforeKill - PACE.lapseMs);

      // Its seconds in /usage stopped there: they no longer run on.
      const seconds = async () => (await ada.call('/usage', { period: 'current' })).body.streams?.[hash]?.seconds ?? 0;
      const first = await seconds();
      await pause(1_100);
      expect(await seconds()).toBe(first);

      // Bob never reconnects: the sweep ends his connection too, then forgets the dead host.
      expect(await ended('bob')).toEqual([]);
      expect(await survivor.streams.sweep()).toBe(1);
      expect((await ended('bob')).map((e) => e.reason)).toEqual(['host lost']);
      expect(await survivor.store.capabilities.hostRecords!.lapsed(PACE.lapseMs, 10)).toEqual([]);
    } finally {
      await survivor.close();
    }
  }, 30_000);
});

describe.each(shared)('a stream server taken for dead while alive, on the %s store', (_name, store) => {
  it.skipIf(store === undefined)('its connection, ended by another server, is told with a failure and closed: the client reconnects', async () => {
    const first = await startServer(settings({ store: store!, workers: 2, clock: 'system' }), { streamLiveness: PACE });
    const second = await startServer(settings({ store: store!, workers: 2, clock: 'system' }), { setup: false, streamLiveness: PACE });
    try {
      const cy = await account(first, 'cy', { stream_connections: 1 });
      const hash = await cy.compile('fb.content contains "coffee"');
      const opened = await tryOpen(`${first.url.replace(/^http/, 'ws')}/multi?username=cy&api_key=${cy.key}`);
      if (typeof opened === 'number') throw new Error(`refused ${opened}`);
      const client = new WsClient(opened);
      client.send({ action: 'subscribe', hash });
      await client.until((m: Json) => m.status === 'success');
      // As if the first had stalled past the lapse: the second ends its connections.
      expect(await second.streams.hostGone(first.streams.host!)).toBe(1);
      const [failure] = await client.until((m: Json) => m.status === 'failure');
      expect(failure).toEqual({ status: 'failure', message: 'There was a problem keeping the connection alive' });
      await new Promise<void>((r) => (client.ws.readyState === WebSocket.CLOSED ? r() : client.ws.once('close', () => r())));
      expect(first.streams.connections()).toEqual([]);
    } finally {
      await second.close();
      await first.close();
    }
  }, 30_000);
});
