import { describe, expect, it } from 'vitest';
import { ENDPOINTS, VERSIONS, atLeast, type Endpoint } from '@sdp/core';
import { route, splitUrl } from './route.ts';
import { samplePath as fillTemplate } from './sample-paths.ts';

const cases = ENDPOINTS.flatMap((e: Endpoint) =>
  VERSIONS.flatMap((v) => e.forms.filter((f) => atLeast(v.id, f.from)).map((f) => ({ e, version: v.id, template: f.template }))),
);

describe('route: every catalogue path form, in every version that serves it', () => {
  it.each(cases.map((c) => [c.e.id, c.version, c.template, c] as const))('%s in %s at %s', (_id, _v, _t, c) => {
    const path = fillTemplate(c.template);
    const prefixes = c.version === '1.0' ? ['', '/v1', '/v1.0'] : [`/v${c.version}`];
    for (const prefix of prefixes) {
      for (const slash of ['', '/']) {
        for (const method of c.e.methods) {
          const r = route(method, `${prefix}${path}${slash}`, 'insight');
          expect(r.kind).toBe('endpoint');
          if (r.kind !== 'endpoint') continue;
          expect(r.version).toBe(c.version);
          expect(r.endpoint.id).toBe(c.e.id);
        }
      }
    }
  });
});

describe('route', () => {
  it('answers 404 for an unknown version prefix and for unknown paths', () => {
    expect(route('POST', '/v9.9/validate', 'insight').kind).toBe('not-found');
    expect(route('POST', '/v1.6/validate', 'insight').kind).toBe('not-found');
    expect(route('POST', '/v1.5/nothing/here', 'insight').kind).toBe('not-found');
    expect(route('POST', '/v1.5/%zz', 'insight').kind).toBe('not-found');
  });
  it('serves paths only from the version that introduced them (docs/contract.md#versions)', () => {
    expect(route('POST', '/v1.3/insight/facebook/analyze', 'insight').kind).toBe('not-found');
    expect(route('POST', '/v1.4/insight/facebook/analyze', 'insight').kind).toBe('endpoint');
  });
  it('reads the product word as insight', () => {
    const r = route('POST', '/v1.5/pylon/analyze', 'pylon');
    expect(r.kind === 'endpoint' && r.endpoint.id).toBe('insight.analyze');
    expect(route('POST', '/v1.5/pylon/analyze', 'insight').kind).toBe('not-found');
  });
  it('answers 405 with Allow listing the accepted methods and OPTIONS', () => {
    const r = route('GET', '/v1.5/validate', 'insight');
    expect(r).toMatchObject({ kind: 'method-not-allowed', allow: ['POST', 'OPTIONS'] });
    const get = route('PATCH', '/v1.5/push/get', 'insight');
    expect(get).toMatchObject({ kind: 'method-not-allowed', allow: ['GET', 'POST', 'OPTIONS'] });
  });
  it('refuses HEAD, which no client sends (docs/clients.md#methods-per-endpoint), and answers OPTIONS everywhere', () => {
    expect(route('HEAD', '/v1.5/push/get', 'insight')).toMatchObject({ kind: 'method-not-allowed', allow: ['GET', 'POST', 'OPTIONS'] });
    expect(route('HEAD', '/v1.5/validate', 'insight').kind).toBe('method-not-allowed');
    expect(route('OPTIONS', '/v1.5/validate', 'insight')).toMatchObject({ kind: 'options', allow: ['POST', 'OPTIONS'] });
  });
  it('reads canonical version prefixes only', () => {
    expect(route('POST', '/v1/validate', 'insight')).toMatchObject({ kind: 'endpoint', version: '1.0' });
    expect(route('POST', '/v1.5/validate', 'insight')).toMatchObject({ kind: 'endpoint', version: '1.5' });
    for (const v of ['/v1.05', '/v01.5', '/v001.0005', '/v1.50', '/v1.5.0']) expect(route('POST', `${v}/validate`, 'insight').kind, v).toBe('not-found');
  });
  it('splits absolute-form and fragment targets', () => {
    expect(splitUrl('http://h:1/v1/validate?x=1#f')).toEqual({ path: '/v1/validate', query: 'x=1' });
    expect(splitUrl('/a?b=c?d')).toEqual({ path: '/a', query: 'b=c?d' });
  });
});
