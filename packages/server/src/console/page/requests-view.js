// The request journal (`GET /_admin/requests`): what the API port answered, newest first, with what each
// call was charged, the parameters the engine judged and the positions of the events it wrote.
import { useEffect, useState } from 'preact/hooks';
import { admin, ApiError } from './api.js';
import { html, iso } from './views.js';

const LIMIT = 200;

function query(filters) {
  const q = new URLSearchParams({ limit: String(LIMIT) });
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  return q.toString();
}

/** The filters as typed, sent once they read as the server reads them; a malformed one is said so, not sent. */
function problemOf(filters) {
  if (filters.status && !/^(\d{3}|[1-5]xx)$/i.test(filters.status)) return 'status: a code (404) or a class (4xx)';
  const since = filters.since;
  if (since && !/^\d+$/.test(since) && !(/^\d{4}-\d\d-\d\d/.test(since) && !Number.isNaN(Date.parse(since)))) return 'since: a time, ISO 8601 (2026-03-02T08:00:00Z) or epoch ms';
  return null;
}

function Entry({ r }) {
  const [open, setOpen] = useState(false);
  const cls = r.status >= 500 ? 'bad' : r.status >= 400 ? 'warn' : 'good';
  return html`<tbody class="request" data-path=${r.path} data-status=${r.status}>
    <tr>
      <td><button class="small" aria-expanded=${open} aria-label=${open ? 'hide the parameters' : 'show the parameters'} onClick=${() => setOpen(!open)}>${open ? '−' : '+'}</button></td>
      <td><time>${iso(Date.parse(r.time)).slice(11)}</time></td>
      <td>${r.method}</td>
      <td><code>${r.path}</code></td>
      <td>${r.version ?? ''}</td>
      <td>${r.account ?? ''}</td>
      <td><span class="badge ${cls}">${r.status}</span></td>
      <td class="cost">${r.cost ?? ''}</td>
      <td class="remaining">${r.remaining ?? ''}</td>
      <td>${r.ms}</td>
      <td class="positions">${r.positions ? `#${r.positions.first}${r.positions.last > r.positions.first ? `–${r.positions.last}` : ''}` : ''}</td>
    </tr>
    ${open &&
    html`<tr class="params"><td></td><td colspan="10">
      ${r.params === null ? html`<span class="none">not an API call: no parameters</span>` : html`<pre>${JSON.stringify(r.params, null, 2)}</pre>`}
      ${r.paramsCut && html`<p class="hint">cut to the journal's bound</p>`}
      ${r.positions && html`<p class="hint">wrote events #${r.positions.first} to #${r.positions.last}, one atomic write (see the <a href="#events">event log</a>)</p>`}
    </td></tr>`}
  </tbody>`;
}

export function RequestsView({ snapshot, filters, setFilters, onError }) {
  const [listed, setListed] = useState(null);
  const [missing, setMissing] = useState(false);
  const [follow, setFollow] = useState(true);
  const [typed, setTyped] = useState(filters);
  const problem = problemOf(typed);
  const load = () =>
    admin('GET', `/requests?${query(filters)}`).then(setListed, (e) => (e instanceof ApiError && e.status === 404 ? setMissing(true) : onError(e.message)));
  useEffect(() => {
    load();
    if (!follow) return undefined;
    const timer = setInterval(() => document.hidden || load(), 1000);
    return () => clearInterval(timer);
  }, [follow, JSON.stringify(filters)]);
  // The address follows the filters once they are good to send.
  useEffect(() => {
    if (problem === null && JSON.stringify(typed) !== JSON.stringify(filters)) setFilters(typed);
  }, [JSON.stringify(typed)]);
  useEffect(() => setTyped(filters), [JSON.stringify(filters)]);

  if (missing) return html`<section><h2>Requests</h2><p class="notice">This server keeps no request journal (<code>GET /_admin/requests</code>).</p></section>`;
  const set = (k) => (e) => setTyped({ ...typed, [k]: e.currentTarget.value });
  const clear = async () => {
    try {
      await admin('DELETE', '/requests');
      await load();
    } catch (e) {
      onError(e.message);
    }
  };
  const names = snapshot ? snapshot.accounts.map((a) => a.username) : [];
  return html`<section aria-labelledby="requests-h">
    <h2 id="requests-h">Requests <small>${listed ? `${listed.requests.length} shown · ${listed.seen} noted since the last clear · the newest ${listed.kept} kept` : '…'}</small></h2>
    <div class="toolbar">
      <label>username <input name="username" list="journal-accounts" placeholder="any" value=${typed.username ?? ''} onInput=${set('username')} /></label>
      <datalist id="journal-accounts">${names.map((n) => html`<option value=${n} />`)}</datalist>
      <label>path starts with <input name="path" placeholder="/v1.5/push" value=${typed.path ?? ''} onInput=${set('path')} /></label>
      <label>status <input name="status" placeholder="404 or 4xx" size="8" value=${typed.status ?? ''} onInput=${set('status')} /></label>
      <label>since <input name="since" placeholder="ISO 8601 or epoch ms" value=${typed.since ?? ''} onInput=${set('since')} /></label>
      <label class="check"><input type="checkbox" checked=${follow} onChange=${(e) => setFollow(e.currentTarget.checked)} /> follow live</label>
      <button onClick=${clear}>Clear the journal</button>
    </div>
    ${problem && html`<p class="hint" role="status">${problem}</p>`}
    ${listed === null
      ? html`<p>Loading…</p>`
      : html`<table class="requests">
          <thead><tr><th></th><th>time (UTC)</th><th>method</th><th>path</th><th>version</th><th>account</th><th>status</th><th>cost</th><th>remaining</th><th>ms</th><th>events</th></tr></thead>
          ${listed.requests.length === 0 && html`<tbody><tr><td colspan="11" class="none">no request matches</td></tr></tbody>`}
          ${listed.requests.map((r) => html`<${Entry} key=${r.n} r=${r} />`)}
        </table>`}
  </section>`;
}
