import { ENDPOINTS, type Engine } from '@sdp/core';

export interface DemoAccount {
  username: string;
  apiKey: string;
}

const DEMO_FILTER = 'interaction.content contains "hello"';

/**
 * The one `curl` line printed at first start: a filter validation when that endpoint is served (the
 * platform's first call), otherwise the first served catalogue read that needs no parameters.
 */
export function demoCurl(engine: Engine, baseUrl: string, demo: DemoAccount): string {
  const auth = `-H 'Authorization: ${demo.username}:${demo.apiKey}'`;
  if (engine.handles('core.validate')) {
    const body = JSON.stringify({ csdl: DEMO_FILTER });
    return `curl -s -X POST ${auth} -H 'Content-Type: application/json' -d '${body}' ${baseUrl}/v1.5/validate`;
  }
  const read = ENDPOINTS.find((e) => engine.handles(e.id) && e.methods.includes('GET') && !e.path.includes('{') && e.group !== 'push');
  const path = read ? read.path : '/balance';
  return `curl -s -X GET ${auth} ${baseUrl}/v1.5${path}`;
}

export async function openDemoAccount(engine: Engine): Promise<DemoAccount> {
  const opened = await engine.openAccount({ username: 'demo' });
  return { username: opened.username, apiKey: opened.api_key };
}
