import type { ApiCall, CallAnswer } from '@sdp/core';
import { describe, expect, it } from 'vitest';
import { createApiHandler } from './api-handler.ts';
import type { WireRequest } from './wire.ts';

const request = (method: string, url: string, body = ''): WireRequest => {
  const bytes = new TextEncoder().encode(body);
  const headers: Record<string, string> = { authorization: 'alice:alice-key-0001', 'content-type': 'application/json' };
  return { method, url, header: (name) => headers[name], readBody: async () => bytes };
};

describe('HttpOptions.onCall', () => {
  it('hears each call the engine answered with its request, the decoded call and the answer, and nothing else', async () => {
    const heard: [WireRequest, ApiCall, CallAnswer][] = [];
    const answer: CallAnswer = { status: 200, body: { ok: true } };
    const handler = createApiHandler({ call: async () => answer }, { onCall: (req, call, a) => heard.push([req, call, a]) });
    const validate = request('POST', '/v1.5/validate?x=1', JSON.stringify({ csdl: 'fb.content contains "tea"' }));
    expect((await handler(validate)).status).toBe(200);
    expect((await handler(request('GET', '/v1.5/no-such-path'))).status).toBe(404);
    expect(heard).toHaveLength(1);
    const [req, call, a] = heard[0]!;
    expect(req).toBe(validate);
    expect(call).toMatchObject({ version: '1.5', endpoint: 'core.validate', params: { x: '1', csdl: 'fb.content contains "tea"' } });
    expect(a).toBe(answer);
  });
});
