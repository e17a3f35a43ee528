// Where the console is, in its address: `#view`, or `#resources/NAME` for one account's page, so a view
// or an account can be bookmarked, shared and reached with Back. The operator token may arrive in the
// address too (`#token=T`, as `sdp serve` prints the link): the page takes it out at once, so it is
// neither kept in the history nor shown.

/** The views, in the order the nav lists them. */
export const VIEW_IDS = ['accounts', 'resources', 'events', 'clock', 'faults', 'streams'];

/**
 * Reads an address's fragment (with or without its `#`): the token it carries, the view and the account
 * it names. Anything unknown means the accounts view.
 */
export function parseHash(hash) {
  const parts = hash.replace(/^#/, '').split('&');
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
  return { token: token === '' ? null : token, view, account };
}

/** The fragment of a place in the console: never the token. */
export function formatHash({ view, account }) {
  return view === 'resources' && account ? `#resources/${encodeURIComponent(account)}` : `#${view}`;
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
