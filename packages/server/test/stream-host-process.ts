/**
 * A server as its own process for tests that kill it (`SIGKILL`): started as a process of `--workers`
 * is (sharing the store, not its sole writer), on the system clock, with the stream's liveness records
 * renewed at the pace given as JSON in argv[3]. Prints `listening on URL` once it serves.
 */
import { startServer } from '../src/server.ts';
import { defaultSettings } from '../src/settings.ts';

const [store, pace] = process.argv.slice(2);
const running = await startServer({ ...defaultSettings(), port: 0, store: store!, workers: 2, clock: 'system', accessLog: 'off' }, {
  setup: false,
  background: false,
  streamLiveness: JSON.parse(pace ?? '{}'),
});
process.stdout.write(`listening on ${running.url}\n`);
