import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_VERSION, ENDPOINTS, VERSIONS, atLeast, type VersionId } from '@sdp/core';
import { answerJsonSchemas } from '@sdp/core/internal';
import { openApiDocument } from '@sdp/http';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

// eslint-disable-next-line
type Doc = any;
let sdp: RunningSdp;
beforeAll(async () => {
  sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:05:37Z'), adminToken: 't', accessLog: 'off', product: 'social' });
});
afterAll(() => sdp.close());

/** A document with every `$ref` replaced by what it names, to read a nested schema directly. */
const resolved = async (version: VersionId): Promise<Doc> => SwaggerParser.dereference(structuredClone(openApiDocument(version)) as never);

const openApiPathOf = (template: string, product: string) => {
  const p = template.replace(/\{(\w+)=[\w|]+\}/g, '{$1}');
  return p.startsWith('/insight') ? `/${product}${p.slice('/insight'.length)}` : p;
};

describe('the OpenAPI documents, one per version', () => {
  for (const { id: version } of VERSIONS) {
    it(`API ${version}: a valid OpenAPI 3.1 document holding every path form and method of the catalogue`, async () => {
      const doc: Doc = openApiDocument(version, { product: 'insight' });
      await SwaggerParser.validate(structuredClone(doc));
      expect(doc.openapi).toBe('3.1.0');
      let operations = 0;
      for (const e of ENDPOINTS) {
        for (const form of e.forms) {
          const item = doc.paths[openApiPathOf(form.template, 'insight')];
          if (!atLeast(version, form.from)) continue;
          expect(item, `${e.id} at ${form.template} in ${version}`).toBeDefined();
          for (const m of e.methods) {
            const op = item[m.toLowerCase()];
            expect(op, `${m} ${form.template}`).toBeDefined();
            expect(op['x-sdp-endpoint']).toBe(e.id);
            expect(op['x-sdp-cost']).toBe(e.cost);
            // The success codes the contract names in this version (insight/start answers 204 before 1.3).
            expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(Object.keys(answerJsonSchemas(e.id, version, e.success))));
            operations++;
          }
        }
      }
      const documented = Object.values(doc.paths).reduce((n: number, item: Doc) => n + Object.keys(item).length, 0);
      expect(documented).toBe(operations);
      const refusal = atLeast(version, '1.2') ? '429' : '403';
      expect(doc.paths['/validate'].post.responses[refusal]).toEqual({ $ref: `#/components/responses/Error${refusal}` });
    });
  }

  it('documents the rate-limit fields the server sends: X-RateLimit-* by default, the IETF ones with ietf or both', async () => {
    const headersOf = (doc: Doc) => Object.keys(doc.paths['/validate'].post.responses['200'].headers);
    expect(headersOf(openApiDocument('1.5'))).toEqual(expect.arrayContaining(['X-RateLimit-Remaining']));
    expect(headersOf(openApiDocument('1.5'))).not.toContain('RateLimit');
    const ietf: Doc = openApiDocument('1.5', { rateLimitHeaders: 'ietf' });
    await SwaggerParser.validate(structuredClone(ietf));
    expect(headersOf(ietf)).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
    expect(headersOf(ietf)).not.toContain('X-RateLimit-Remaining');
    expect(headersOf(openApiDocument('1.5', { rateLimitHeaders: 'both' }))).toEqual(expect.arrayContaining(['RateLimit', 'X-RateLimit-Cost']));
  });

  it('describes each operation from its contract: parameters, request body, answers with examples, versions told apart', async () => {
    const doc: Doc = await resolved('1.5');
    const create = doc.paths['/push/create'].post;
    const body = create.requestBody.content['application/json'];
    expect(body.schema.required).toEqual(['name']);
    expect(body.schema.properties.hash).toMatchObject({ type: 'string', pattern: '^[0-9a-f]{32}$' });
    expect(body.schema.properties.output_params.type).toBe('object');
    expect(Object.keys(create.requestBody.content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    const answer = create.responses['200'].content['application/json'];
    expect(answer.schema.required).toEqual(expect.arrayContaining(['id', 'status', 'output_type']));
    expect(answer.example).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{32}$/), status: 'active' });
    const get = doc.paths['/push/get'].get;
    const names = get.parameters.map((x: Doc) => x.name);
    expect(names).toEqual(expect.arrayContaining(['id', 'include_finished', 'page', 'per_page', 'order_by']));
    expect(get.parameters.find((x: Doc) => x.name === 'include_finished').description).toMatch(/1\/0/);
    expect(doc.paths['/historics/start'].post.responses['204'].content).toBeUndefined();
    // Breaking changes show as schema differences: playback_id is refused from 1.2, so absent from its
    // documents (the parser keeps it only to say why), and insight/start answers {id} from 1.3.
    const before: Doc = await resolved('1.1');
    expect(before.paths['/push/create'].post.requestBody.content['application/json'].schema.properties.playback_id.pattern).toBe('^[0-9a-f]{20}$');
    for (const v of VERSIONS.filter((x) => atLeast(x.id, '1.2'))) {
      expect(JSON.stringify((await resolved(v.id)).paths['/push/create']), v.id).not.toContain('playback_id');
    }
    expect(body.schema.properties).not.toHaveProperty('playback_id');
    expect(body.example).not.toHaveProperty('playback_id');
    expect(Object.keys(before.paths['/insight/start'].post.responses)).toContain('204');
    expect(doc.paths['/insight/start'].post.responses['200'].content['application/json'].schema.required).toEqual(['id']);
  });

  it('describes the nested analysis and strategy requests: analysis types, their parameters, children, the task type choosing the request', async () => {
    const doc: Doc = await resolved('1.5');
    const analyze = doc.paths['/insight/analyze'].post.requestBody.content['application/json'].schema;
    const [freqDist, timeSeries] = analyze.properties.parameters.oneOf;
    expect(freqDist.properties.analysis_type.const).toBe('freqDist');
    expect(freqDist.properties.parameters.properties.threshold).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 200 });
    expect(freqDist.properties.parameters.required).toEqual(['target']);
    const grandchild = freqDist.properties.child.properties.child;
    expect(grandchild.properties.parameters.properties.target.description).toMatch(/fewer than 50 values/);
    expect(grandchild.properties.child.description).toMatch(/at most 3 levels/);
    expect(timeSeries.properties.parameters.properties.interval.enum).toEqual(['minute', 'hour', 'day', 'week', 'month']);
    expect(analyze.properties.filter.type).toBe('string');
    const task = doc.paths['/insight/{service}/task'].post.requestBody.content['application/json'];
    const [analysisTask, strategyTask] = task.schema.oneOf;
    expect(analysisTask.properties.type.const).toBe('analysis');
    expect(analysisTask.properties.parameters.properties.parameters.oneOf).toHaveLength(2);
    expect(strategyTask.properties.type.const).toBe('strategy');
    expect(strategyTask.properties.parameters.properties.parameters.properties.comparison_audience.enum).toEqual(['global']);
    expect(strategyTask.properties.parameters.properties.parameters.required).toEqual(['audience']);
    expect(task.example).toMatchObject({ type: 'analysis', parameters: { parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender' } } } });
    // Before 1.5 a task is an analysis: one choice.
    expect((await resolved('1.4')).paths['/insight/{service}/task'].post.requestBody.content['application/json'].schema.oneOf).toHaveLength(1);
  });

  it('names each shared shape once under components/schemas and refers to it: the error, a push subscription, a historics query, a source, an identity, each body', () => {
    const doc: Doc = openApiDocument('1.5');
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['Error', 'PushSubscription', 'HistoricsQueryWithDeliveryCount', 'ManagedSource', 'Identity', 'Task', 'AnalysisSpec', 'StrategyRequest', 'PushCreateBody']));
    expect(doc.components.responses.Error404.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(doc.paths['/push/create'].post.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PushSubscription' });
    expect(doc.paths['/push/get'].get.responses['200'].content['application/json'].schema.anyOf[1].properties.subscriptions.items).toEqual({ $ref: '#/components/schemas/PushSubscription' });
    const create = doc.paths['/push/create'].post.requestBody.content;
    expect(create['application/json'].schema).toEqual({ $ref: '#/components/schemas/PushCreateBody' });
    expect(create['application/x-www-form-urlencoded'].schema).toEqual(create['application/json'].schema);
    // Every reference names a shape the document holds, and each shape is used.
    const text = JSON.stringify(doc);
    const refs = new Set([...text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]));
    expect([...refs].filter((r) => !(r in schemas))).toEqual([]);
    expect(Object.keys(schemas).filter((n) => !refs.has(n))).toEqual([]);
    // Before 1.3 a recording is named by its hash, and before 1.1 a historics query has no delivery_count: shapes of their own.
    expect(Object.keys((openApiDocument('1.2') as Doc).components.schemas)).toContain('RecordingByHash');
    expect(Object.keys((openApiDocument('1.0') as Doc).components.schemas)).toContain('HistoricsQuery');
  });

  it('the 1.4 service-scoped insight forms are absent from 1.3 and present from 1.4', () => {
    expect(openApiDocument('1.3').paths).not.toHaveProperty(['/insight/{service}/get']);
    expect(openApiDocument('1.4').paths).toHaveProperty(['/insight/{service}/get']);
  });
});

describe('served by the server', () => {
  it('GET /v<version>/openapi.json and /openapi.json: no credentials, not charged, X-API-Version set; 404 for an unknown version', async () => {
    const r = await fetch(`${sdp.url}/v1.3/openapi.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-api-version')).toBe('1.3');
    expect(r.headers.get('x-ratelimit-cost')).toBeNull();
    const doc: Doc = await r.json();
    expect(doc.info.version).toBe('1.3');
    // The server's product word replaces `insight` in every path.
    expect(Object.keys(doc.paths)).toContain('/social/get');
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/insight'))).toBe(false);
    const current: Doc = await (await fetch(`${sdp.url}/openapi.json`)).json();
    expect(current.info.version).toBe(CURRENT_VERSION);
    const unknown = await fetch(`${sdp.url}/v9.9/openapi.json`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-api-version')).toBe(CURRENT_VERSION);
  });

  it('GET /docs is an HTML page with the renderer served from the package', async () => {
    const page = await fetch(`${sdp.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('/docs/redoc.standalone.js');
    expect(html).not.toMatch(/https?:\/\//);
    const js = await fetch(`${sdp.url}/docs/redoc.standalone.js`);
    expect(js.status).toBe(200);
    expect((await js.text()).length).toBeGreaterThan(100_000);
  });

  it('/docs and its renderer are answered as the documents are: gzip when asked, an ETag that answers 304', async () => {
    for (const path of ['/docs', '/docs/redoc.standalone.js', '/openapi.json']) {
      const plain = await fetch(`${sdp.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
      const text = await plain.text();
      expect(plain.headers.get('content-encoding'), path).toBeNull();
      // fetch decompresses what it is sent; the headers still say what came over the wire.
      const zipped = await fetch(`${sdp.url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(zipped.headers.get('content-encoding'), path).toBe('gzip');
      expect(zipped.headers.get('vary'), path).toBe('Accept-Encoding');
      expect(await zipped.text(), path).toBe(text);
      const again = await fetch(`${sdp.url}${path}`, { headers: { 'accept-encoding': 'gzip', 'if-none-match': zipped.headers.get('etag')! } });
      expect(again.status, path).toBe(304);
      expect(await again.text(), path).toBe('');
    }
  });

  it('names each operation by its own path and says what it costs, so the reference lists no two alike', async () => {
    const { openApiDocument } = await import('@sdp/http');
    const doc = openApiDocument('1.5');
    const ops = Object.values(doc.paths as Record<string, Record<string, { summary: string; description: string; 'x-sdp-cost': number }>>).flatMap((p) => Object.values(p));
    const summaries = ops.map((o) => o.summary);
    expect(new Set(summaries).size).toBe(summaries.length);
    expect(summaries).toContain('POST /insight/{service}/validate');
    for (const o of ops) expect(o.description).toMatch(/Costs|Not charged|Reports a cost/);
    expect(ops.find((o) => o.summary === 'POST /validate')!.description).toMatch(/^Costs 5 credits of the general allowance\./);
  });

  it('answers a browser\'s /favicon.ico with an empty 204, not a 404', async () => {
    const r = await fetch(`${sdp.url}/favicon.ico`);
    expect(r.status).toBe(204);
    expect(await r.text()).toBe('');
  });

  it('answers the health check without credentials, charges nothing, and keeps it out of every document', async () => {
    const r = await fetch(`${sdp.url}/_health`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-ratelimit-cost')).toBeNull();
    expect(await r.json()).toEqual({ status: 'ok' });
    const head = await fetch(`${sdp.url}/_health`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    expect((await fetch(`${sdp.url}/_health`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${sdp.url}/_health/deep`)).status).toBe(404);
    for (const v of VERSIONS) expect(Object.keys(openApiDocument(v.id).paths as object).filter((p) => p.includes('health')), v.id).toEqual([]);
  });

  it('answers GET / with the API\'s 404, pointing at /docs', async () => {
    const r = await fetch(`${sdp.url}/`);
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: string }).error).toMatch(/the API reference is at \/docs$/);
  });
});
