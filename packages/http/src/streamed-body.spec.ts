import { describe, expect, it } from 'vitest';
import { fetchHandlerFor } from './fetch-handler.ts';
import { listen } from './node-listener.ts';
import type { WireHandler } from './wire.ts';

async function* lines(n: number): AsyncGenerator<string> {
  for (let i = 1; i <= n; i++) yield `{"n":${i}}\n`;
}
const streaming: WireHandler = async () => ({ status: 200, headers: { 'Content-Type': 'application/x-ndjson' }, stream: lines(5000) });
const expected = Array.from({ length: 5000 }, (_, i) => `{"n":${i + 1}}\n`).join('');

describe('a streamed body (WireResponse.stream)', () => {
  it('arrives whole and in order on the fetch face', async () => {
    const r = await fetchHandlerFor(streaming)(new Request('http://sdp.test/x'));
    expect(await r.text()).toBe(expected);
  });

  it('arrives whole and in order over a real socket', async () => {
    const server = await listen(streaming, { port: 0 });
    try {
      const r = await fetch(`${server.url}/x`);
      expect(r.headers.get('content-type')).toBe('application/x-ndjson');
      expect(await r.text()).toBe(expected);
    } finally {
      await server.close();
    }
  });
});
