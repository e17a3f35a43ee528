/**
 * A process serving engine calls on a SQLite store until it is killed: `node --import tsx test/crash-server-child.ts
 * DB RUN CONCURRENCY`. Prints `ready`, then one line per answered call (`ack RUN-W-K USER STATUS`), written
 * synchronously once the engine has answered, i.e. once its append was committed.
 */
import { writeSync } from 'node:fs';
import { Engine, fixedClock } from '@sdp/core';
import { randomIds } from '@sdp/clock';
import { openSqliteStore } from '../src/sqlite-store.ts';
import { CRASH_ACCOUNTS, CRASH_TEST_TIME, crashHandlers } from '../src/crash/served-calls.ts';

const [path, run, concurrency] = process.argv.slice(2);
const store = await openSqliteStore(path!);
const engine = new Engine({ store, clock: fixedClock(CRASH_TEST_TIME), ids: randomIds(), handlers: crashHandlers, settings: { maxAttempts: 1000 } });
writeSync(1, 'ready\n');

async function worker(w: number): Promise<void> {
  for (let k = 0; ; k++) {
    const account = CRASH_ACCOUNTS[(w + k) % CRASH_ACCOUNTS.length]!;
    const call = `${run}-${w}-${k}`;
    const answer = await engine.call({
      version: '1.5',
      endpoint: 'core.validate',
      credentials: { username: account.username, apiKey: account.api_key },
      params: { call },
    });
    writeSync(1, `ack ${call} ${account.username} ${answer.status}\n`);
  }
}

await Promise.all(Array.from({ length: Number(concurrency) }, (_, w) => worker(w)));
