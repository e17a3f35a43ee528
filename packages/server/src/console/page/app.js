import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { admin, ApiError, token } from './api.js';
import { formatHash, parseHash } from './route.js';
import { AccountsView, ClockView, EventLogView, FaultsView, ResourcesView, StreamsView, html, iso } from './views.js';
import { RequestsView } from './requests-view.js';

const VIEWS = [
  ['accounts', 'Accounts', 'a'],
  ['resources', 'Resources', 'r'],
  ['events', 'Event log', 'e'],
  ['requests', 'Requests', 'q'],
  ['clock', 'Clock', 'c'],
  ['faults', 'Faults', 'f'],
  ['streams', 'Streams', 's'],
];

function TokenGate({ onAccepted, problem }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState(problem);
  const submit = async (ev) => {
    ev.preventDefault();
    token.set(value);
    try {
      await admin('GET', '/clock');
      onAccepted();
    } catch (e) {
      token.forget();
      setError(e instanceof ApiError && e.status === 401 ? 'That token is not this server’s admin token.' : String(e.message ?? e));
    }
  };
  return html`<main class="gate">
    <h1>sdp console</h1>
    <form onSubmit=${submit}>
      <label>Operator token <input type="password" name="token" autocomplete="off" autofocus required value=${value} onInput=${(e) => setValue(e.currentTarget.value)} /></label>
      <button type="submit">Open</button>
      <p class="hint">The token given to the server with <code>--admin-token</code> (the <code>console:</code> link the server printed carries it). It is kept in this tab only, until the tab closes.</p>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </form>
  </main>`;
}

function Console({ onLocked }) {
  const [view, setView] = useState(() => parseHash(location.hash).view);
  const [snapshot, setSnapshot] = useState(null);
  const [fetchedAt, setFetchedAt] = useState(0);
  const [tick, setTick] = useState(Date.now());
  const [error, setError] = useState(null);
  const [resourcesOf, setResourcesOf] = useState(() => parseHash(location.hash).account);
  const [requestFilters, setRequestFilters] = useState(() => parseHash(location.hash).filters);
  const polling = useRef(false);

  const refresh = async () => {
    try {
      const s = await admin('GET', '/accounts');
      setSnapshot(s);
      setFetchedAt(Date.now());
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return onLocked('The server no longer accepts this token.');
      setError(e.message);
    }
  };
  useEffect(() => {
    refresh();
    const poll = setInterval(async () => {
      // A tab in the background asks nothing of the server; it catches up when shown again.
      if (polling.current || document.hidden) return;
      polling.current = true;
      await refresh();
      polling.current = false;
    }, 1000);
    const clock = setInterval(() => setTick(Date.now()), 250);
    return () => { clearInterval(poll); clearInterval(clock); };
  }, []);
  // The address follows the view and the account shown (each a history entry, so Back returns), and the
  // view follows the address when it changes (Back, Forward, a pasted link).
  useEffect(() => {
    const hash = formatHash({ view, account: resourcesOf, filters: requestFilters });
    if (location.hash === hash) return;
    // Filters typed into the journal's view replace its entry (Back leaves the view, not a keystroke).
    if (view === 'requests' && parseHash(location.hash).view === 'requests') history.replaceState(null, '', hash);
    else location.hash = hash;
  }, [view, resourcesOf, requestFilters]);
  useEffect(() => {
    const onHash = () => {
      const place = parseHash(location.hash);
      setView(place.view);
      if (place.view === 'resources') setResourcesOf(place.account);
      if (place.view === 'requests') setRequestFilters(place.filters);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    // Alt+letter moves between views from anywhere, as the nav's access keys say.
    const onKey = (e) => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      const hit = VIEWS.find((v) => v[2] === e.key.toLowerCase());
      if (hit) { e.preventDefault(); setView(hit[0]); }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  // A system clock moves between polls; a manual one only when told.
  const now = snapshot ? snapshot.now + (snapshot.kind === 'system' ? tick - fetchedAt : 0) : tick;
  const onError = (message) => setError(message);
  const openResources = (u) => { setResourcesOf(u); setView('resources'); };
  const props = { snapshot, now, refresh, onError };
  return html`<div class="console">
    <header>
      <h1>sdp console</h1>
      <nav aria-label="views">${VIEWS.map(([id, label, key]) => html`<button class=${view === id ? 'current' : ''} aria-current=${view === id ? 'page' : undefined} data-view=${id} title=${`Alt+${key.toUpperCase()}`} onClick=${() => setView(id)}>${label}</button>`)}</nav>
      <div class="clock-chip" title="the server's clock">${snapshot ? html`<time>${iso(now)}</time> <span class="badge">${snapshot.kind}</span>` : '…'}</div>
      <button class="small" onClick=${() => { token.forget(); onLocked(null); }}>Forget token</button>
    </header>
    ${error && html`<p class="error" role="alert">${error} <button class="small" onClick=${() => setError(null)}>Dismiss</button></p>`}
    <main>
      ${view === 'accounts' && html`<${AccountsView} ...${props} openResources=${openResources} />`}
      ${view === 'resources' && html`<${ResourcesView} ...${props} username=${resourcesOf} setUsername=${setResourcesOf} />`}
      ${view === 'events' && html`<${EventLogView} ...${props} />`}
      ${view === 'requests' && html`<${RequestsView} ...${props} filters=${requestFilters} setFilters=${setRequestFilters} />`}
      ${view === 'clock' && html`<${ClockView} ...${props} />`}
      ${view === 'faults' && html`<${FaultsView} ...${props} />`}
      ${view === 'streams' && html`<${StreamsView} ...${props} />`}
    </main>
  </div>`;
}

function App() {
  const [open, setOpen] = useState(token.get() !== null);
  const [problem, setProblem] = useState(null);
  return open
    ? html`<${Console} onLocked=${(why) => { token.forget(); setProblem(why); setOpen(false); }} />`
    : html`<${TokenGate} problem=${problem} onAccepted=${() => setOpen(true)} />`;
}

render(html`<${App} />`, document.getElementById('app'));
