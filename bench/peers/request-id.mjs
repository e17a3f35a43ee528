// The peers' X-DataSift-Request-Id: 32 random hex digits a request, as the project's server sends, from
// random bytes drawn 4 KB at a time (the way a Node server would make them cheaply).
import { randomFillSync } from 'node:crypto';

const bytes = Buffer.alloc(4096);
let text = '';
let at = bytes.length * 2;

export function requestId() {
  if (at === bytes.length * 2) {
    text = randomFillSync(bytes).toString('hex');
    at = 0;
  }
  return text.slice(at, (at += 32));
}

/** The headers every answer of the project's API carries besides the rate figures and the body's. */
export const apiHeaders = () => ({ 'X-API-Version': '1.5', 'Access-Control-Allow-Origin': '*', 'X-DataSift-Request-Id': requestId() });
