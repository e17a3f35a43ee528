import { ENDPOINTS, accountOfStream, type Engine } from '@sdp/core';
import { type EventStore } from '@sdp/core/kernel';

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

/** The account a first start opens (unless an accounts file names the accounts). */
export const DEMO_USERNAME = 'demo';

export async function openDemoAccount(engine: Engine): Promise<DemoAccount> {
  const opened = await engine.openAccount({ username: DEMO_USERNAME });
  return { username: opened.username, apiKey: opened.api_key };
}

/**
 * Whether the store holds nothing but the demo account a first start opened, untouched (no call made
 * with it, nothing else written): such a store counts as empty for an import, which replaces it.
 */
export async function onlyUntouchedDemo(store: EventStore): Promise<boolean> {
  if ((await store.head()) !== 1) return false;
  const [only] = await store.readAll(0, 1);
  return only !== undefined && only.type === 'AccountOpened' && accountOfStream(only.stream) === DEMO_USERNAME;
}
