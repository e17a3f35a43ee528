import { describe, expect, it } from 'vitest';
import { ENDPOINTS, type Group } from './endpoints.ts';
import { pickMethod, resolvePath } from './routes.ts';
import { VERSIONS, atLeast, parseVersionPrefix } from './versions.ts';

/**
 * The published contract's endpoint tables (docs/contract.md#endpoints-and-costs), written out here rather
 * than derived from the catalogue, so a change to the catalogue that the contract does not make fails.
 * They live in the repository so that a clone tests against the same facts the development checkout does.
 * One group a heading; a row is `METHOD | path | success | cost`, the method left out where the group's
 * calls take any method.
 */
const PUBLISHED_TABLES = `
[tasks]
GET | /insight/{service}/task | 200 OK | 5
GET | /insight/{service}/task/{id} | 200 OK | 5
POST | /insight/{service}/task | 202 Accepted | 5
[insight]
/insight/analyze | 200 OK | 25
/insight/validate | 200 OK | 5
/insight/sample | 200 OK | 25
/insight/start | 200 OK | 25
/insight/compile | 200 OK | 5
/insight/get | 200 OK | 25
/insight/stop | 204 No Content | 5
/insight/tags | 200 OK | 25
/insight/update | 204 No Content | 25
[account]
GET | /account/identity | 200 OK | 5
POST | /account/identity | 201 Created | 5
GET | /account/identity/{id} | 200 OK | 5
PUT | /account/identity/{id} | 200 OK | 5
GET | /account/identity/limit/{service} | 200 OK | 25
GET | /account/identity/{identity_id}/token | 200 OK | 5
POST | /account/identity/{identity_id}/token | 201 Created | 25
GET | /account/identity/{identity_id}/token/{service} | 200 OK | 5
PUT | /account/identity/{identity_id}/token/{service} | 200 OK or 201 Created | 5
DELETE | /account/identity/{identity_id}/token/{service} | 204 No Content | 5
POST | /account/identity/{identity_id}/limit | 201 Created | 25
GET | /account/identity/{identity_id}/limit/{service} | 200 OK | 25
PUT | /account/identity/{identity_id}/limit/{service} | 200 OK or 201 Created | 25
DELETE | /account/identity/{identity_id}/limit/{service} | 204 No Content | 25
GET | /account/usage | 200 OK | 5
[core]
/validate | 200 OK | 5
/compile | 200 OK | 5
/usage | 200 OK | 25
/dpu | 200 OK | 5
/balance | 200 OK | 25
[push]
/push/validate | 200 OK | 5
/push/create | 200 OK | 5
/push/pause | 200 OK | 1
/push/resume | 200 OK | 1
/push/update | 200 OK | 5
/push/stop | 200 OK | 1
/push/delete | 204 No Content | 1
/push/log | 200 OK | 1
/push/get | 200 OK | 1
/pull | 200 OK | 0
[historics]
/historics/prepare | 200 OK | 25
/historics/start | 204 No Content | 25
/historics/stop | 204 No Content | 5
/historics/status | 200 OK | 5
/historics/update | 204 No Content | 5
/historics/delete | 204 No Content | 25
/historics/get | 200 OK | 25
/historics/pause | success code not shown | 5
/historics/resume | success code not shown | 5
[preview]
/preview/create | 202 Accepted | 25
/preview/get | 202 | 5
[sources]
/source/create | 201 Created | 25
/source/stop | 200 OK | 5
/source/start | 200 OK | 5
/source/update | 202 Accepted | 25
/source/delete | 204 No Content | 25
/source/get | 200 OK | 5
/source/log | 200 OK | 5
/source/auth/add | success code not shown | 25
/source/auth/remove | success code not shown | 25
/source/resource/add | success code not shown | 25
/source/resource/remove | success code not shown | 25
/source/category/get | success code not shown | 5
`;

function publishedRows() {
  const rows: { group: Group; method?: string; path: string; success: string; cost: number }[] = [];
  let group: Group | undefined;
  for (const line of PUBLISHED_TABLES.split('\n')) {
    const h = /^\[(\w+)\]$/.exec(line.trim());
    if (h) group = h[1] as Group;
    if (!group || h || !line.trim()) continue;
    const cells = line.split('|').map((c) => c.trim());
    const hasMethod = /^(GET|POST|PUT|DELETE)$/.test(cells[0]!);
    const [method, path, success, cost] = hasMethod ? cells : [undefined, ...cells];
    rows.push({ group, ...(method ? { method } : {}), path: path!, success: success!, cost: Number(cost) });
  }
  return rows;
}

describe('the catalogue against the published endpoint tables, row by row', () => {
  const rows = publishedRows();

  it('reads every row of the tables (all eight groups)', () => {
    expect(new Set(rows.map((r) => r.group)).size).toBe(8);
    expect(rows.length).toBe(ENDPOINTS.filter((e) => e.source === 'seed').length);
  });

  for (const row of rows) {
    it(`${row.method ?? '*'} ${row.path}: success ${row.success}, cost ${row.cost}`, () => {
      const matches = ENDPOINTS.filter((e) => e.path === row.path && e.group === row.group && (!row.method || e.methods.includes(row.method as never)));
      expect(matches).toHaveLength(1);
      const e = matches[0]!;
      expect(e.source).toBe('seed');
      expect(e.cost).toBe(row.cost);
      const codes = [...row.success.matchAll(/\b([2]\d\d)\b/g)].map((m) => Number(m[1]));
      if (codes.length > 0) {
        for (const c of codes) expect(e.success).toContain(c);
        // A code beyond the tables' comes from docs/contract.md and says so.
        if (e.success.some((c) => !codes.includes(c))) expect(e.note).toMatch(/docs\/contract\.md/);
      }
      else expect(e.note).toMatch(/success code/i);
    });
  }

  it('adds rows beyond the seed only with a note saying why', () => {
    for (const e of ENDPOINTS.filter((x) => x.source !== 'seed')) expect(e.note).toBeTruthy();
  });

  it('passes the body on as it is only to ingestion; every other endpoint reads parameters from it', () => {
    expect(ENDPOINTS.filter((e) => e.body === 'raw').map((e) => e.id)).toEqual(['ingest']);
    expect(ENDPOINTS.every((e) => e.body === 'raw' || e.body === 'params')).toBe(true);
  });

  it('gives analyze its own allowance and task creation none (docs/contract.md#hourly-allowances)', () => {
    expect(ENDPOINTS.find((e) => e.id === 'insight.analyze')!.allowance).toBe('analyze');
    expect(ENDPOINTS.find((e) => e.id === 'tasks.create')!.allowance).toBe('task-slots');
  });
});

describe('versions (docs/contract.md#versions)', () => {
  it('supports 1.0 to 1.5; /v1 means 1.0; unknown prefixes name nothing', () => {
    expect(VERSIONS.map((v) => v.id)).toEqual(['1.0', '1.1', '1.2', '1.3', '1.4', '1.5']);
    expect(parseVersionPrefix('v1')).toBe('1.0');
    expect(parseVersionPrefix('v1.5')).toBe('1.5');
    expect(parseVersionPrefix('v9.9')).toBeNull();
    expect(parseVersionPrefix('v1.6')).toBeNull();
  });

  it('keeps releases in order, and any deprecation announced 3 months before a sunset at least 12 months after release', () => {
    for (let i = 1; i < VERSIONS.length; i++) expect(VERSIONS[i]!.released > VERSIONS[i - 1]!.released).toBe(true);
    for (const v of VERSIONS) {
      if (!v.deprecation) continue;
      const months = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / (30.4 * 86_400_000);
      expect(months(v.released, v.deprecation.sunset)).toBeGreaterThanOrEqual(12);
      expect(months(v.deprecation.announced, v.deprecation.sunset)).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('routes', () => {
  const route = (version: Parameters<typeof resolvePath>[0], method: string, path: string) => {
    const m = resolvePath(version, path);
    if (!m) return null;
    const picked = pickMethod(m, method);
    return 'allow' in picked ? { allow: picked.allow } : { id: picked.id, params: m.params };
  };

  it('serves every endpoint of the seed in every version', () => {
    for (const v of VERSIONS) {
      for (const e of ENDPOINTS.filter((x) => x.source === 'seed')) {
        const template = e.forms[0]!.template.replace(/\{(\w+)(=[\w|]+)?\}/g, (_, name) => `x${name}`);
        expect(route(v.id, e.methods[0]!, template)).toMatchObject({ id: e.id });
      }
    }
  });

  it('serves an endpoint added beyond the seed from the version its first form names, and nowhere before (docs/contract.md#versions: adding is not breaking)', () => {
    const added = ENDPOINTS.filter((e) => e.forms[0]!.from !== '1.0');
    expect(added.map((e) => e.id)).toEqual(['insight.reference.list', 'insight.reference.get']);
    for (const e of added) {
      expect(e.source).toBe('project');
      const template = e.forms[0]!.template.replace(/\{(\w+)(=[\w|]+)?\}/g, (_, name) => `x${name}`);
      for (const v of VERSIONS) {
        if (atLeast(v.id, e.forms[0]!.from)) expect(route(v.id, 'GET', template)).toMatchObject({ id: e.id });
        else expect(route(v.id, 'GET', template), `${e.id} in ${v.id}`).toBeNull();
      }
    }
  });

  it('costs reference data 5 from the general allowance (docs/clients.md#reference-data)', () => {
    for (const id of ['insight.reference.list', 'insight.reference.get']) expect(ENDPOINTS.find((e) => e.id === id)).toMatchObject({ cost: 5, allowance: 'general', methods: ['GET'], success: [200] });
  });

  it('prefers literal segments: the identity limit list is not an identity', () => {
    expect(route('1.5', 'GET', '/account/identity/limit/facebook')).toEqual({ id: 'account.identity.limit.list', params: { service: 'facebook' } });
    expect(route('1.5', 'GET', '/account/identity/abc/limit/facebook')).toEqual({ id: 'account.identity.limit.get', params: { identity_id: 'abc', service: 'facebook' } });
  });

  it('serves service-scoped insight paths from 1.4 only', () => {
    expect(route('1.3', 'POST', '/insight/facebook/analyze')).toBeNull();
    expect(route('1.4', 'POST', '/insight/facebook/analyze')).toEqual({ id: 'insight.analyze', params: { service: 'facebook' } });
    expect(route('1.0', 'POST', '/insight/analyze')).toMatchObject({ id: 'insight.analyze' });
  });

  it('serves typed task paths from 1.5, telling a type from an id', () => {
    expect(route('1.5', 'GET', '/insight/linkedin/task/analysis')).toEqual({ id: 'tasks.list', params: { service: 'linkedin', type: 'analysis' } });
    expect(route('1.5', 'GET', '/insight/linkedin/task/analysis/abc')).toEqual({ id: 'tasks.get', params: { service: 'linkedin', type: 'analysis', id: 'abc' } });
    expect(route('1.5', 'GET', '/insight/linkedin/task/abc')).toEqual({ id: 'tasks.get', params: { service: 'linkedin', id: 'abc' } });
    expect(route('1.4', 'GET', '/insight/linkedin/task/analysis')).toEqual({ id: 'tasks.get', params: { service: 'linkedin', id: 'analysis' } });
  });

  it('lists the accepted methods for a 405', () => {
    expect(route('1.5', 'PATCH', '/account/identity')).toEqual({ allow: ['GET', 'POST'] });
    expect(route('1.5', 'GET', '/validate')).toEqual({ allow: ['POST'] });
  });

  it('tolerates trailing slashes and finds nothing for unknown paths', () => {
    expect(route('1.0', 'GET', '/account/identity/')).toMatchObject({ id: 'account.identity.list' });
    expect(route('1.0', 'GET', '/nope')).toBeNull();
    expect(route('1.0', 'GET', '/%E0%A4%A')).toBeNull();
  });
});
