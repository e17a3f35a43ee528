import { describe, expect, it } from 'vitest';
import { startServer } from './server.ts';
import { defaultSettings } from './settings.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');

describe('sdp serve on the memory store answers a call that waits on nothing at once', () => {
  it("the server's own store (the event schema over the memory store) keeps the engine's answer a value: nothing it put in front of the store replaced append", async () => {
    const sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, accessLog: 'off' });
    try {
      const { username, apiKey } = sdp.demo!;
      const call = { version: '1.5' as const, endpoint: 'core.validate' as const, credentials: { username, apiKey }, params: { csdl: 'interaction.content contains "tea"' } };
      await sdp.engine.answer(call);
      const answer = sdp.engine.answer(call);
      expect(answer).not.toBeInstanceOf(Promise);
      expect(answer).toMatchObject({ status: 200, rate: { cost: 5 } });
      // Over HTTP, the same call is answered as the engine answered it.
      const res = await fetch(`${sdp.url}/v1.5/validate`, { method: 'POST', headers: { authorization: `${username}:${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(call.params) });
      expect([res.status, res.headers.get('x-ratelimit-cost')]).toEqual([200, '5']);
    } finally {
      await sdp.close();
    }
  });
});
