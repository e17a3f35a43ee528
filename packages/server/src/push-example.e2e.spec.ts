import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { runPushExample } from '../test/push-walkthrough.ts';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
let sdp: RunningSdp | undefined;

afterAll(async () => {
  await sdp?.close();
});

describe('the worked example of docs/push.md', () => {
  it('runs as written: the receiver gets the ping and one json_meta batch; the curl answers are as shown', async () => {
    sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:00:00Z'), adminToken: 'secret', accessLog: 'off' });
    await runPushExample(root, sdp.url);
  }, 30_000);
});
