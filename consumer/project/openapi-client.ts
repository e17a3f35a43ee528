// A client generated from the served OpenAPI document: `openapi-typescript` wrote `api.d.ts` from
// GET /v1.5/openapi.json, and `openapi-fetch` builds typed calls on it. Compiled strictly, then run
// against the installed server: node openapi-client.js <url> <username> <api key>.
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const [url, username, apiKey] = process.argv.slice(2);
if (!url || !username || !apiKey) throw new Error('usage: openapi-client.js <url> <username> <api key>');
const api = createClient<paths>({ baseUrl: `${url}/v1.5`, headers: { authorization: `${username}:${apiKey}` } });

function must<T>(what: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

const csdl = 'fb.content contains "coffee"';

// The generated types refuse what the schemas refuse: these do not compile (never called).
const refusedAtCompileTime = () => {
  // @ts-expect-error csdl is text
  void api.POST('/validate', { body: { csdl: 1 } });
  // @ts-expect-error push/create needs a name
  void api.POST('/push/create', { body: { hash: 'x' } });
};
void refusedAtCompileTime;
const validated = must('validate', await api.POST('/validate', { body: { csdl } }));
const dpu: string = validated.dpu;
const compiled = must('compile', await api.POST('/compile', { body: { csdl } }));
const hash: string = compiled.hash;

const created = must('push create', await api.POST('/push/create', { body: { name: 'typed', hash, output_type: 'pull', output_params: { format: 'json_array' } } }));
const subscriptionId: string = created.id;
const got = must('push get', await api.GET('/push/get', { params: { query: { id: subscriptionId } } }));
if (!('id' in got) || got.id !== subscriptionId || got.status !== 'active') throw new Error(`push get answered ${JSON.stringify(got)}`);

const now = Math.floor(Date.now() / 1000);
const prepared = must('historics prepare', await api.POST('/historics/prepare', { body: { hash, start: now - 7200, end: now - 3600, sources: ['facebook'], name: 'typed past' } }));
const historicsId: string = prepared.id;
const one = must('historics get', await api.GET('/historics/get', { params: { query: { id: historicsId } } }));
if (!('id' in one) || one.id !== historicsId) throw new Error(`historics get answered ${JSON.stringify(one)}`);
for (const [what, r] of [
  ['historics start', await api.POST('/historics/start', { body: { id: historicsId } })],
  ['historics stop', await api.POST('/historics/stop', { body: { id: historicsId } })],
  ['historics delete', await api.POST('/historics/delete', { body: { id: historicsId } })],
] as const) {
  if (r.response.status !== 204) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
}
const gone = await api.GET('/historics/get', { params: { query: { id: historicsId } } });
if (gone.response.status !== 404 || typeof gone.error?.error !== 'string') throw new Error(`a deleted query answered ${gone.response.status}`);
console.log(`ok ${dpu} ${hash} ${subscriptionId} ${historicsId}`);
