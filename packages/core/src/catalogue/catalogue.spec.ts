import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, type Group } from './endpoints.ts';
import { pickMethod, resolvePath } from './routes.ts';
import { VERSIONS, atLeast, parseVersionPrefix } from './versions.ts';

/** The seed's §4 tables, read from the contract itself so the catalogue cannot drift from it. */
function seedRows() {
  const seed = readFileSync(fileURLToPath(new URL('../../../../../shared/spec/seed.md', import.meta.url)), 'utf8');
  const section = seed.slice(seed.indexOf('## 4. Endpoints'), seed.indexOf('## 5. Authentication'));
  const groups: Record<string, Group> = { '4.1': 'tasks', '4.2': 'insight', '4.3': 'account', '4.4': 'core', '4.5': 'push', '4.6': 'historics', '4.7': 'preview', '4.8': 'sources' };
  const rows: { group: Group; method?: string; path: string; success: string; cost: number }[] = [];
  let group: Group | undefined;
  for (const line of section.split('\n')) {
    const h = /^### (4\.\d)/.exec(line);
    if (h) group = groups[h[1]!];
    if (!group || !line.startsWith('| ') || line.includes('---') || /\| (Method|Path) \|/.test(line)) continue;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const hasMethod = /^(GET|POST|PUT|DELETE)$/.test(cells[0]!);
    const [method, path, success, cost] = hasMethod ? cells : [undefined, ...cells];
    rows.push({ group, ...(method ? { method } : {}), path: path!.replace(/`/g, ''), success: success!, cost: Number(cost) });
  }
  return rows;
}

describe('the catalogue against the seed (§4), row by row', () => {
  const rows = seedRows();

  it('reads every row of the seed (all eight groups)', () => {
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
        // A code beyond the seed's comes from docs/contract.md and says so.
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
