import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { Engine } from '@sdp/core';
import { creditsStream } from '@sdp/core/deciders';
import { fixedClock, seededIds } from '@sdp/core/kernel';
import { openSqliteStore } from '../sqlite-store.ts';
import { callsStream, CRASH_ACCOUNTS, CRASH_TEST_TIME, crashHandlers } from '../../test/served-calls.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../../..');
const dir = mkdtempSync(join(tmpdir(), 'sdp-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KILLS = 24;
const CONCURRENCY = 8;
const COST = 5; // core.validate

interface Ack {
  call: string;
  user: string;
  status: number;
}

/** Runs one server process, kills it with SIGKILL `afterMs` after it is ready, and returns what it acknowledged. */
function serveThenKill(path: string, run: number, afterMs: number): Promise<Ack[]> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, '../../test/crash-server-child.ts'), path, String(run), String(CONCURRENCY)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!timer && out.includes('ready\n')) timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') return fail(new Error(`server run ${run} exited by itself (code ${code}): ${err}`));
      // Only whole lines count: a line cut by the kill was never an acknowledgement.
      const lines = out.split('\n').slice(0, -1);
      done(lines.filter((l) => l.startsWith('ack ')).map((l) => {
        const [, call, user, status] = l.split(' ');
        return { call: call!, user: user!, status: Number(status) };
      }));
    });
  });
}

it(`every acknowledged call survives ${KILLS} SIGKILLs of the serving process, and no partial write does`, { timeout: 240_000 }, async () => {
  const path = join(dir, 'data/sdp.db');
  const setup = await openSqliteStore(path);
  const engine = new Engine({ store: setup, clock: fixedClock(CRASH_TEST_TIME), ids: seededIds(7), handlers: crashHandlers });
  for (const a of CRASH_ACCOUNTS) await engine.openAccount(a);
  await setup.close();

  // A fixed seed so a failure can be replayed with the same kill points.
  let seed = 20260301;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const acks: Ack[] = [];
  for (let run = 1; run <= KILLS; run++) acks.push(...(await serveThenKill(path, run, Math.floor(20 + random() * 400))));

  const store = await openSqliteStore(path);
  const log = await store.readAll();
  const byPosition = new Map(log.map((e) => [e.position, e]));
  const served = new Map<string, string>(); // call -> user
  for (const a of CRASH_ACCOUNTS) {
    const calls = await store.readStream(callsStream(a.username));
    const charges = await store.readStream(creditsStream(a.username));
    // Atomic: each served call was written in one append with its charge, right before it; no charge stands alone.
    expect(calls.length).toBe(charges.length);
    for (const c of calls) {
      const charge = byPosition.get(c.position - 1)!;
      expect(charge.stream).toBe(creditsStream(a.username));
      expect(charge.type).toBe('CreditsCharged');
      served.set((c.data as { call: string }).call, a.username);
    }
    // Versions stay dense after every crash.
    expect(calls.map((e) => e.version)).toEqual(calls.map((_, i) => i + 1));
  }
  expect(log.map((e) => e.position)).toEqual(log.map((_, i) => i + 1));

  // Every acknowledged 200 is in the log; no acknowledged refusal is.
  const admitted = acks.filter((a) => a.status === 200);
  const refused = acks.filter((a) => a.status !== 200);
  expect(admitted.length).toBeGreaterThan(KILLS * 10);
  for (const a of admitted) expect(served.get(a.call), `acknowledged call ${a.call}`).toBe(a.user);
  for (const r of refused) {
    expect(r.status).toBe(429);
    expect(served.has(r.call)).toBe(false);
  }
  // Served but never acknowledged: only calls that were in flight when a kill came.
  const acked = new Set(admitted.map((a) => a.call));
  const inDoubt = [...served.keys()].filter((c) => !acked.has(c));
  expect(inDoubt.length).toBeLessThanOrEqual(KILLS * CONCURRENCY);
  console.info(`crash test: ${KILLS} kills, ${admitted.length} calls acknowledged, ${refused.length} refused, ${inDoubt.length} served while in flight at a kill`);

  // Each account's remaining credits are its limit minus the costs of the calls its window served.
  const after = new Engine({ store, clock: fixedClock(CRASH_TEST_TIME), ids: seededIds(8), handlers: crashHandlers });
  for (const a of CRASH_ACCOUNTS) {
    const view = await after.accountView(a.username);
    const servedCount = [...served.values()].filter((u) => u === a.username).length;
    const ackedCount = admitted.filter((x) => x.user === a.username).length;
    expect(view.allowances.general.remaining).toBe(a.package.credits_per_hour - COST * servedCount);
    expect(servedCount - ackedCount).toBeGreaterThanOrEqual(0);
    expect(servedCount * COST).toBeLessThanOrEqual(a.package.credits_per_hour);
  }
  // The tight account ran out along the way, so refusals were exercised too.
  expect(refused.length).toBeGreaterThan(0);
  await store.close();
});
