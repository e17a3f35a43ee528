import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '@sdp/core';
import { creditsStream } from '@sdp/core/deciders';
import { fixedClock, seededIds } from '@sdp/core/kernel';
import { PostgresEventStore } from '../postgres-store.ts';
import { testDatabase, testSchema } from '../../test/test-database.ts';
import { ADMISSION_ACCOUNT, ADMISSION_TIME, admissionHandlers, BALANCE_COST } from '../../test/near-limit.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../../..');
const db = await testDatabase();
const schema = testSchema('admission');
const PROCESSES = 2;
const CALLERS = 25;
const ROUNDS = 6;

interface Answer {
  process: number;
  status: number;
  limit: number;
  remaining: number;
  cost: number;
  reset: number;
  resetTtl: number;
}

interface Child {
  ready: Promise<void>;
  go(): void;
  done: Promise<Answer[]>;
}

function startProcess(url: string, index: number): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, '../../test/admission-caller-child.ts'), url, schema, String(CALLERS)], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onReady: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    if (out.startsWith('ready\n')) onReady();
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const done = new Promise<Answer[]>((ok, fail) =>
    child.on('exit', (code) => {
      if (code !== 0) return fail(new Error(`server process ${index} exited with ${code}: ${err}`));
      ok(out.split('\n').filter((l) => l.startsWith('ack ')).map((l) => {
        const [status, limit, remaining, cost, reset, resetTtl] = l.slice(4).split(' ').map(Number);
        return { process: index, status: status!, limit: limit!, remaining: remaining!, cost: cost!, reset: reset!, resetTtl: resetTtl! };
      }));
    }),
  );
  return { ready, go: () => child.stdin.write('go\n'), done };
}

describe.skipIf('skip' in db)('two server processes on one PostgreSQL store', () => {
  const url = 'url' in db ? db.url : '';
  afterAll(async () => {
    const store = await PostgresEventStore.connect(url, { schema });
    await store.drop();
    await store.close();
  });

  it('never admit more than the allowance, and every refusal says cost > remaining with its rate figures', { timeout: 180_000 }, async () => {
    const store = await PostgresEventStore.connect(url, { schema });
    // A process that gets its `go` while the other is still descheduled can spend the whole allowance
    // alone (its lane pipelines the calls); the invariants hold then too, but sharing went untested. So
    // the race is run again, each time checked in full, until both processes admitted calls.
    let shared = false;
    for (let round = 0; round < ROUNDS && !shared; round++) shared = await race(store);
    expect(shared, `in ${ROUNDS} rounds one process always spent the whole allowance alone`).toBe(true);
    await store.close();
  });

  async function race(store: PostgresEventStore): Promise<boolean> {
    await store.clear();
    const engine = new Engine({ store, clock: fixedClock(ADMISSION_TIME), ids: seededIds(3), handlers: admissionHandlers });
    await engine.openAccount(ADMISSION_ACCOUNT);

    const children = Array.from({ length: PROCESSES }, (_, i) => startProcess(url, i));
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    const answers = (await Promise.all(children.map((c) => c.done))).flat();

    const limit = ADMISSION_ACCOUNT.package.credits_per_hour;
    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    // Admitted costs never exceed the allowance; demand was far above it, so all of it went.
    expect(admitted.length * BALANCE_COST).toBeLessThanOrEqual(limit);
    expect(admitted.length).toBe(limit / BALANCE_COST);
    // Each admitted answer reports a distinct remaining figure: no two callers spent the same credits.
    expect(new Set(admitted.map((a) => a.remaining)).size).toBe(admitted.length);
    expect(refused).toHaveLength(PROCESSES * CALLERS);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.cost).toBe(BALANCE_COST);
      expect(r.cost).toBeGreaterThan(r.remaining);
      expect(r.limit).toBe(limit);
      expect(r.reset).toBeGreaterThan(ADMISSION_TIME / 1000);
      expect(r.resetTtl).toBeGreaterThan(0);
    }
    // The log agrees: exactly one charge per admitted call.
    const charges = await store.readStream(creditsStream(ADMISSION_ACCOUNT.username));
    expect(charges).toHaveLength(admitted.length);
    expect((await engine.accountView(ADMISSION_ACCOUNT.username)).allowances.general.remaining).toBe(limit - admitted.length * BALANCE_COST);
    // Both processes admitted calls: the allowance really was shared across processes.
    return Array.from({ length: PROCESSES }, (_, p) => admitted.some((a) => a.process === p)).every(Boolean);
  }
});

if ('skip' in db) console.warn(db.skip);
