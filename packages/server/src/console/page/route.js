// Where the console is, in its address: `#view`, `#resources/NAME` for one account's page, or
// `#requests?username=NAME&status=4xx` for the request journal narrowed, so a view, an account or a
// search can be bookmarked, shared and reached with Back. The operator token may arrive in the address
// too (`#token=T`, as `sdp serve` prints the link): the page takes it out at once, so it is neither kept
// in the history nor shown.

/** The views, in the order the nav lists them. */
export const VIEW_IDS = ['accounts', 'resources', 'events', 'requests', 'clock', 'faults', 'streams'];

/** What the request journal's view narrows by, as `GET /_admin/requests` takes them. */
export const REQUEST_FILTERS = ['username', 'path', 'status', 'since'];

/**
 * Reads an address's fragment (with or without its `#`): the token it carries, the view and the account
 * it names, and the journal's filters. Anything unknown means the accounts view.
 */
export function parseHash(hash) {
  const raw = hash.replace(/^#/, '');
  const q = raw.indexOf('?');
  const parts = (q < 0 ? raw : raw.slice(0, q)).split('&');
  const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  let token = null;
  let view = 'accounts';
  let account = null;
  for (const part of parts) {
    if (part.startsWith('token=')) {
      token = safeDecode(part.slice('token='.length));
      continue;
    }
    if (part === '') continue;
    const [first, ...rest] = part.split('/');
    if (!VIEW_IDS.includes(first)) continue;
    view = first;
    if (first === 'resources' && rest.length > 0 && rest.join('/') !== '') account = safeDecode(rest.join('/'));
  }
  // A token given after the filters (`#requests?status=4xx&token=T`) is taken out all the same.
  if (query.has('token')) token = query.get('token');
  const filters = {};
  if (view === 'requests') for (const k of REQUEST_FILTERS) if (query.get(k)) filters[k] = query.get(k);
  return { token: token === '' ? null : token, view, account, filters };
}

/** The fragment of a place in the console: never the token. */
export function formatHash({ view, account, filters }) {
  if (view === 'resources' && account) return `#resources/${encodeURIComponent(account)}`;
  if (view === 'requests' && filters) {
    const query = new URLSearchParams();
    for (const k of REQUEST_FILTERS) if (filters[k]) query.set(k, filters[k]);
    const text = query.toString();
    if (text) return `#requests?${text}`;
  }
  return `#${view}`;
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
