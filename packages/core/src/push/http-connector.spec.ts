import { describe, expect, it } from 'vitest';
import type { OutboundAnswer, OutboundHttp, OutboundRequest, PushBatch } from './connector.ts';
import { PushConnectors } from './connector.ts';
import { httpConnector, outcomeOf } from './http-connector.ts';

/** An outbound port that records requests and answers as told: the connector's whole view of the network. */
function fakeOutbound(answer: OutboundAnswer = { status: 200 }): OutboundHttp & { sent: OutboundRequest[] } {
  const sent: OutboundRequest[] = [];
  return { sent, send: async (r) => (sent.push(r), answer) };
}

const batch = (output_params: Record<string, unknown>, format: PushBatch['format'] = 'json_array'): PushBatch => ({
  subscription: { id: 's'.repeat(32), name: 'n', output_type: 'http', output_params, hash: 'h'.repeat(32), hash_type: 'stream' },
  deliveryId: 'd'.repeat(32),
  format,
  interactions: [{ interaction: { id: 'x' } }, { interaction: { id: 'y' } }],
  openedAt: Date.parse('2026-03-01T10:00:00Z'),
});

describe('the http connector', () => {
  it('sends one request per batch: method, format, delivery id, basic auth (UTF-8), gzip and TLS check as configured', async () => {
    const out = fakeOutbound();
    const http = httpConnector({ outbound: out });
    expect(await http.deliver(batch({ url: 'http://127.0.0.1:9/in', method: 'put', compression: 'gzip', verify_ssl: false, auth: { type: 'basic', username: 'ü', password: 'p:w' } }))).toEqual({ ok: true });
    expect(out.sent[0]).toEqual({
      url: 'http://127.0.0.1:9/in',
      method: 'PUT',
      headers: {
        'Content-Type': 'application/json',
        'X-DataSift-Format': 'json_array',
        Authorization: `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode('ü:p:w')))}`,
        'X-SDP-Delivery-Id': 'd'.repeat(32),
        'X-SDP-Subscription-Id': 's'.repeat(32),
      },
      body: '[{"interaction":{"id":"x"}},{"interaction":{"id":"y"}}]',
      gzip: true,
      verifyTls: false,
    });
    await http.deliver(batch({ url: 'http://localhost/in' }, 'json_new_line'));
    expect(out.sent[1]).toMatchObject({ method: 'POST', gzip: false, verifyTls: true, body: '{"interaction":{"id":"x"}}\n{"interaction":{"id":"y"}}' });
    expect(out.sent[1]!.headers['Authorization']).toBeUndefined();
  });

  it('refuses hosts outside the allowed list without sending anything, IPv6 written with or without brackets', async () => {
    const out = fakeOutbound();
    const http = httpConnector({ outbound: out, allowedHosts: ['hooks.example.test', '[::1]'] });
    expect(http.check!({ url: 'http://HOOKS.example.test:8000/x' })).toBeNull();
    expect(http.check!({ url: 'http://[::1]:8000/x' })).toBeNull();
    expect(http.check!({ url: 'http://127.0.0.1/x' })).toMatch(/does not deliver to 127\.0\.0\.1; it may deliver only to hooks\.example\.test, ::1/);
    expect(await http.deliver(batch({ url: 'http://169.254.169.254/' }))).toMatchObject({ ok: false });
    expect(out.sent).toEqual([]);
  });

  it('the ping is an empty batch marked X-SDP-Ping; a 400 names the URL and the reason', async () => {
    const out = fakeOutbound({ error: 'connection refused' });
    const connectors = new PushConnectors().register('http', httpConnector({ outbound: out }));
    await expect(connectors.admit('http', { url: 'http://127.0.0.1:1/' }, 'json_meta', true)).rejects.toThrow(
      'could not access the destination URL http://127.0.0.1:1/: Could not reach the endpoint: connection refused',
    );
    expect(out.sent[0]).toMatchObject({ body: '{"count":0,"interactions":[]}', headers: { 'X-SDP-Ping': 'true', 'X-DataSift-Format': 'json_meta' } });
    await connectors.admit('http', { url: 'http://127.0.0.1:1/' }, 'json_meta', false);
    await connectors.admit('pull', {}, 'json_meta', true);
    expect(out.sent).toHaveLength(1);
  });

  it('only a 2xx acknowledges; a redirect is reported, not followed', () => {
    expect(outcomeOf({ status: 204 })).toEqual({ ok: true });
    expect(outcomeOf({ status: 301 })).toEqual({ ok: false, message: 'The endpoint answered with a redirect (301), which is not followed' });
    expect(outcomeOf({ status: 500 })).toEqual({ ok: false, message: 'The endpoint returned a 500 internal server error' });
    expect(outcomeOf({ status: 418 })).toEqual({ ok: false, message: 'The endpoint returned a 418 error' });
    expect(outcomeOf({ error: 'no answer within 10 s' })).toEqual({ ok: false, message: 'Could not reach the endpoint: no answer within 10 s' });
  });
});
