// The operator API as the page calls it. The token lives only in this tab (sessionStorage): a new tab
// or a closed one asks again, and nothing is written to disk by the page.
import { formatHash, parseHash } from './route.js';

const KEY = 'sdp-console-token';

// A link that carries the token (`sdp serve --admin-token` prints one) opens the console without asking:
// the token moves into this tab's storage and out of the address bar, before anything renders, so the
// history entry and a copied address hold no token.
const arrived = parseHash(location.hash);
if (arrived.token !== null) {
  sessionStorage.setItem(KEY, arrived.token);
  history.replaceState(null, '', `${location.pathname}${location.search}${formatHash(arrived)}`);
}

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (t) => sessionStorage.setItem(KEY, t),
  forget: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function send(method, path, body, accept = 'application/json') {
  const headers = { Authorization: `Bearer ${token.get() ?? ''}`, Accept: accept };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = JSON.parse(text).error ?? text;
    } catch {}
    throw new ApiError(res.status, `${method} ${path}: ${res.status} ${message}`);
  }
  return text;
}

/** A JSON operator call; null for 204. */
export async function admin(method, path, body) {
  const text = await send(method, `/_admin${path}`, body);
  return text === '' ? null : JSON.parse(text);
}

/** Stored events after a position, from the NDJSON export (`GET /_admin/events`). */
export async function eventsAfter(after, limit) {
  const text = await send('GET', `/_admin/events?after=${after}&limit=${limit}`, undefined, 'application/x-ndjson');
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}
