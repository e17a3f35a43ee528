import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { OutboundAnswer, OutboundHttp, OutboundRequest, PushBatch } from './connector.ts';
import { PushConnectors } from './connector.ts';
import { httpConnector, outcomeOf, ownEndpointProblem, type OwnEndpoints } from './http-connector.ts';

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

const OWN_PORT = 8080;

/** One octet, or a whole IPv4 address, in a spelling WHATWG URL reads as IPv4: decimal, octal or hex. */
const numberSpelling = (n: number) => fc.constantFrom(String(n), `0${n.toString(8)}`, `0x${n.toString(16)}`, `0X${n.toString(16).toUpperCase()}`);

/** 127.b.c.d however an IPv4 address may be written in a URL: four, three, two or one parts, any base. */
const loopbackV4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).chain(([b, c, d]) =>
  fc.oneof(
    fc.tuple(numberSpelling(127), numberSpelling(b), numberSpelling(c), numberSpelling(d)).map((p) => p.join('.')),
    fc.tuple(numberSpelling(127), numberSpelling(b), numberSpelling(c * 256 + d)).map((p) => p.join('.')),
    fc.tuple(numberSpelling(127), numberSpelling(b * 65536 + c * 256 + d)).map((p) => p.join('.')),
    numberSpelling(((127 * 256 + b) * 256 + c) * 256 + d),
  ).chain((text) => fc.constantFrom(text, `${text}.`)),
);

/** A name in any case, perhaps with the root's trailing dot. */
const anyCase = (name: string) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((up) => [...name].map((ch, i) => (up[i] ? ch.toUpperCase() : ch)).join(''));

/** Every way this suite knows to write "this machine" in a URL's host. */
const selfSpelling = fc.oneof(
  loopbackV4,
  fc.tuple(anyCase('localhost'), fc.constantFrom('', '.')).map(([n, dot]) => n + dot),
  fc.tuple(fc.constantFrom('a', 'ingest', 'x-y'), anyCase('localhost')).map(([sub, n]) => `${sub}.${n}`),
  fc.constantFrom('0.0.0.0', '0', '0x0', '0.0', '[::]', '[0:0:0:0:0:0:0:0]', '[::1]', '[0:0:0:0:0:0:0:1]', '[0::1]', '[::0:1]', '[::ffff:0.0.0.0]'),
  // Inside IPv6 the IPv4 tail is plain decimal only.
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.constantFrom('::ffff:', '::FFFF:', '0:0:0:0:0:ffff:', '::')).map(([b, c, d, prefix]) => `[${prefix}127.${b}.${c}.${d}]`),
  fc.tuple(fc.nat(255), fc.nat(65535)).map(([b, low]) => `[::FFFF:${(0x7f00 + b).toString(16)}:${low.toString(16)}]`),
);

describe('no delivery back into the server itself', () => {
  const own: OwnEndpoints = { ports: [OWN_PORT, 9090], addresses: ['192.168.1.5', 'fe80::1'] };
  const open = (o: OwnEndpoints = own) => httpConnector({ outbound: fakeOutbound(), own: () => o });
  /** The check's problem when it is the own-endpoint one (hosts outside the allowed list are refused otherwise). */
  const allowAll = (connector: ReturnType<typeof httpConnector>) => (url: string) => {
    const problem = connector.check!({ url });
    return problem !== null && problem.includes('itself') ? problem : null;
  };

  test.prop([selfSpelling, fc.constantFrom('http', 'https', 'HTTP'), fc.constantFrom(OWN_PORT, 9090)], { numRuns: 300 })(
    'every spelling of loopback or unspecified at one of its ports is refused, naming why',
    (host, scheme, port) => {
      const problem = allowAll(open())(`${scheme}://${host}:${port}/v1.5/ingest/abc`);
      expect(problem).toMatch(/^output_params\.url: this server does not deliver to itself \(.* port \d+ is where it listens\)/);
    },
  );

  test.prop([selfSpelling], { numRuns: 100 })('the same hosts at another port are not the server', (host) => {
    expect(allowAll(open())(`http://${host}:8081/v1.5/ingest/abc`)).toBeNull();
  });

  it('the default port counts when the server listens on it; its own interface addresses count too', () => {
    const check = allowAll(open({ ports: [80, 443], addresses: ['192.168.1.5', 'fe80::1'] }));
    expect(check('http://localhost/ingest')).toMatch(/localhost port 80 is where it listens/);
    expect(check('https://127.0.0.1/ingest')).toMatch(/port 443/);
    expect(check('http://192.168.1.5/')).toMatch(/itself/);
    expect(check('http://3232235781/')).toMatch(/itself/); // 192.168.1.5 as one number
    expect(check('http://[FE80:0::1]/')).toMatch(/itself/);
    expect(check('http://[::ffff:192.168.1.5]/')).toMatch(/itself/);
    expect(check('http://192.168.1.6/')).toBeNull();
    expect(check('http://[fe80::2]/')).toBeNull();
    expect(check('http://localhost.example/')).toBeNull();
  });

  it('is asked again at each check and at delivery: nothing is sent to itself', async () => {
    const out = fakeOutbound();
    const ports: number[] = [];
    const http = httpConnector({ outbound: out, own: () => ({ ports, addresses: [] }) });
    expect(http.check!({ url: 'http://127.1:4000/' })).toBeNull();
    ports.push(4000);
    expect(http.check!({ url: 'http://127.1:4000/' })).toMatch(/itself/);
    expect(await http.deliver(batch({ url: 'http://LOCALHOST.:4000/v1.5/ingest/s' }))).toEqual({ ok: false, message: expect.stringMatching(/does not deliver to itself/) });
    const connectors = new PushConnectors().register('http', http);
    await expect(connectors.admit('http', { url: 'http://[::ffff:127.0.0.1]:4000/' }, 'json_meta', true)).rejects.toThrow(/does not deliver to itself/);
    expect(out.sent).toEqual([]);
  });

  it('judges the bare addresses a name resolves to, as the outbound adapter passes them', () => {
    const o: OwnEndpoints = { ports: [8080], addresses: ['10.0.0.7'] };
    for (const address of ['127.0.1.1', '::1', '::ffff:127.0.0.1', '0.0.0.0', '::', '10.0.0.7', '::ffff:10.0.0.7', '::1%lo']) {
      expect(ownEndpointProblem(address, 8080, o), address).toMatch(/itself/);
    }
    for (const address of ['10.0.0.8', '2001:db8::1', '93.184.216.34']) expect(ownEndpointProblem(address, 8080, o), address).toBeNull();
    expect(ownEndpointProblem('127.0.0.1', 8081, o)).toBeNull();
  });
});
