import { describe, expect, it } from 'vitest';
import type { EndpointId } from '../catalogue/endpoints.ts';
import type { VersionId } from '../catalogue/versions.ts';
import { termsOf } from './contract.ts';
import { readParams } from './read.ts';

/**
 * Requests as the original client libraries send them (docs/clients.md#how-parameters-travel, docs/clients.md), after the HTTP face merged
 * path, query and body: numbers and booleans as text, nested values as JSON text or flattened
 * `output_params.*` keys, lists as comma strings, empty optionals, echoed path parameters. No schema may
 * refuse one: each reads in the version its client speaks.
 */
const HASH = '2459b03a13577579bca76471778a5c3d';
const QUERY = '78434c21a5879eeb17c4';
const ID32 = '66ffc332bad6590a8052852bd5c55275';
const REC = '33a402f1e92ba4af528fd31c93bfb45f6521f6b6';

const REQUESTS: [client: string, version: VersionId, endpoint: EndpointId, params: Record<string, unknown>][] = [
  ['P: with_estimate 1/0, include_finished as text', '1.5', 'push.get', { include_finished: '1', page: '1', per_page: '20', order_by: 'created_at', order_dir: 'desc' }],
  ['R: include_finished 0, all=false, per_page 20', '1.5', 'push.get', { include_finished: 0, all: 'false', per_page: 20, order_by: 'created_at' }],
  ['N: the route table spells historic_id', '1.5', 'push.get', { historic_id: QUERY }],
  ['H: output_params flattened in a JSON body', '1.5', 'push.create', { name: 'h', output_type: 's3', hash: HASH, 'output_params.bucket': 'b', 'output_params.auth.access_key': 'k', 'output_params.auth.secret_key': 's' }],
  ['J: a form with flattened output_params and text epochs', '1.5', 'push.create', { name: 'j', output_type: 'http', historics_id: QUERY, 'output_params.url': 'http://x', 'output_params.format': 'json', start: '1516139814', end: '0' }],
  ['D: output_params as JSON text, initial_status', '1.5', 'push.create', { name: 'd', output_type: 'pull', hash: HASH, output_params: '{"format":"json_new_line"}', initial_status: 'paused' }],
  ['N 1.0: playback_id as a synonym', '1.0', 'push.create', { name: 'n', output_type: 'pull', playback_id: QUERY }],
  ['J: push/validate with a flattened form', '1.5', 'push.validate', { output_type: 'http', 'output_params.url': 'http://x', 'output_params.delivery_frequency': '10' }],
  ['J: push/update flattened', '1.5', 'push.update', { id: ID32, 'output_params.delivery_frequency': '60', name: 'n' }],
  ['R: pull sends cursor= empty, size as text', '1.5', 'push.pull', { id: ID32, cursor: '', size: '20971520' }],
  ['R: push/log with perPage (misspelt)', '1.5', 'push.log', { id: ID32, perPage: '50', page: 1, order_by: 'request_time' }],
  ['R/P: historics/prepare sources as a comma string, sample as text', '1.5', 'historics.prepare', { hash: HASH, start: '1430870400', end: 1430874000, sources: 'facebook,tumblr', name: 'q', sample: '10' }],
  ['D: historics/prepare sources as an array', '1.5', 'historics.prepare', { hash: HASH, start: 1430870400, end: 1430874000, sources: ['tumblr'], name: 'q' }],
  ['P: historics/get with max and page', '1.5', 'historics.get', { max: '20', page: '1' }],
  ['R: historics/stop with a reason', '1.5', 'historics.stop', { id: QUERY, reason: 'done' }],
  ['H: historics/status with sources', '1.5', 'historics.status', { start: 1430870400, end: 1430956800, sources: 'tumblr' }],
  ['R: preview/create with triples joined by ;', '1.5', 'preview.create', { hash: HASH, start: 1430870400, end: 1430874000, sources: 'tumblr', parameters: 'language.tag,freqDist,5;interaction.id,targetVol,hour' }],
  ['P/J: preview/create with a list of triples', '1.5', 'preview.create', { hash: HASH, start: '1430870400', parameters: ['language.tag,freqDist,5', 'interaction.id,targetVol,hour'] }],
  ['R: source/create with JSON-text nested values', '1.5', 'source.create', { source_type: 'facebook_page', name: 'p', parameters: '{"comments":true}', resources: '[{"parameters":{"id":"1"}}]', auth: '[{"parameters":{"value":"t"}}]' }],
  ['H: source/create with nulls and validate as text', '1.5', 'source.create', { source_type: 'facebook_page', name: 'p', id: null, status: null, created_at: null, validate: 'false', parameters: [], resources: [{ parameters: { id: '1' } }], auth: [] }],
  ['J: source/auth/remove with auth_ids as JSON text', '1.5', 'source.auth.remove', { id: ID32, auth_ids: `["${ID32}"]` }],
  ['D: source/resource/remove with ids as a comma string', '1.5', 'source.resource.remove', { id: ID32, resource_ids: `${ID32},${ID32}` }],
  ['J: source/get paged', '1.5', 'source.get', { page: '1', per_page: '20' }],
  ['R: insight/analyze v1 with empty filter, start, end', '1.0', 'insight.analyze', { hash: HASH, filter: '', start: '', end: '', parameters: { analysis_type: 'freqDist', parameters: { threshold: 5, target: 'fb.author.age' } } }],
  ['N: insight/analyze with the service echoed', '1.5', 'insight.analyze', { service: 'facebook', id: REC, parameters: '{"analysis_type":"timeSeries","parameters":{"interval":"hour","span":12}}' }],
  ['J: insight/start with "name": null', '1.5', 'insight.start', { hash: HASH, name: null }],
  ['R: insight/start in 1.3 by hash and name', '1.3', 'insight.start', { hash: HASH, name: 'r' }],
  ['R: insight/get paged in 1.5', '1.5', 'insight.get', { page: 1, per_page: 25, order_by: 'created_at', order_dir: 'asc' }],
  ['R: insight/sample with count as text', '1.5', 'insight.sample', { id: REC, count: '10', start: 1516139814, end: '1516143414', filter: 'fb.content contains "a"' }],
  ['R: task create with nested parameters', '1.5', 'tasks.create', { service: 'linkedin', type: 'analysis', subscription_id: REC, name: 'n', parameters: { start: 1515535050, end: 1516139850, parameters: { analysis_type: 'freqDist', parameters: { target: 'li.user.member.metro_area', threshold: 5 } } } }],
  ['R: task list with status', '1.5', 'tasks.list', { service: 'linkedin', type: 'analysis', status: 'completed', per_page: '10' }],
  ['P: account/usage with period and epochs as text', '1.5', 'account.usage', { period: 'daily', start: '1516060800', end: '1516147200' }],
  ['P: core usage with period', '1.5', 'core.usage', { period: 'day' }],
  ['P: dpu by historics id', '1.5', 'core.dpu', { historics_id: QUERY }],
  ['J: identity get with its id echoed in the query', '1.5', 'account.identity.get', { id: ID32 }],
  ['R: identity create with master as text', '1.5', 'account.identity.create', { label: 'l', status: 'active', master: 'true' }],
  ['D: identity update with a capitalised boolean', '1.5', 'account.identity.update', { id: ID32, master: 'True', status: 'disabled' }],
  ['H: limit create with figures as text', '1.5', 'account.identity.limit.create', { identity_id: ID32, service: 'facebook', total_allowance: '100000', analyze_queries: '' }],
  ['R: limit update clearing a figure with null', '1.5', 'account.identity.limit.update', { identity_id: ID32, service: 'facebook', total_allowance: null }],
  ['R: token create', '1.5', 'account.identity.token.create', { identity_id: ID32, service: 'facebook', token: 'fed85f6b316fb18930ee28e8754f4963' }],
  ['R: reference list with a trailing slash path', '1.5', 'insight.reference.list', { service: 'linkedin' }],
];

describe('no real client is refused by a schema', () => {
  it.each(REQUESTS)('%s (%s %s)', (_client, version, endpoint, params) => {
    expect(() => readParams(termsOf(endpoint, version).params, params)).not.toThrow();
  });

  it('reads the spellings as the values they mean', () => {
    const j = readParams(termsOf('push.create', '1.5').params, REQUESTS[4]![3]) as Record<string, unknown>;
    expect(j).toMatchObject({ output_params: { url: 'http://x', format: 'json' }, start: 1516139814, end: 0 });
    const d = readParams(termsOf('account.identity.update', '1.5').params, { id: ID32, master: 'True' }) as Record<string, unknown>;
    expect(d['master']).toBe(true);
    const r = readParams(termsOf('source.create', '1.5').params, REQUESTS[18]![3]) as Record<string, unknown>;
    expect(r['resources']).toEqual([{ parameters: { id: '1' } }]);
  });
});
