/**
 * A process serving engine calls on a SQLite store until it is killed: `node --import tsx test/crash-server-child.ts
 * DB RUN CONCURRENCY`. Prints `ready`, then one line per answered call (`ack RUN-W-K USER STATUS`), written
 * synchronously once the engine has answered, i.e. once its append was committed.
 */
import { writeSync } from 'node:fs';
import { Engine } from '@sdp/core';
import { fixedClock, WRITE_POLICIES } from '@sdp/core/kernel';
import { randomIds } from '@sdp/clock';
import { openSqliteStore } from '../src/sqlite-store.ts';
import { CRASH_ACCOUNTS, CRASH_TEST_TIME, crashHandlers } from './served-calls.ts';

const [path, run, concurrency] = process.argv.slice(2);
const store = await openSqliteStore(path!);
// The sole writer of its file, as one `sdp serve` process on SQLite: an account's calls are pipelined,
// each decided on the pending writes of those before it, and answered once its own write is durable.
const engine = new Engine({ store, clock: fixedClock(CRASH_TEST_TIME), ids: randomIds(), handlers: crashHandlers, settings: { maxAttempts: 1000 }, writePolicy: WRITE_POLICIES['sole-writer'] });
print('ready\n');

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
    print(`ack ${call} ${account.username} ${answer.status}\n`);
  }
}

/** A whole line to stdout before anything else runs; the pipe is non-blocking, so a full one is retried. */
function print(line: string): void {
  for (;;) {
    try {
      writeSync(1, line);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EAGAIN') throw error;
    }
  }
}

await Promise.all(Array.from({ length: Number(concurrency) }, (_, w) => worker(w)));
