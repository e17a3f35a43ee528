import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import htm from 'htm';
import { admin, ApiError, eventsAfter } from './api.js';
import { groupWrites } from './writes.js';

export const html = htm.bind(h);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');
const clockTime = (ms) => iso(ms).slice(11, 19);
const fmt = (n) => Number(n).toLocaleString('en-US');

function countdown(ms) {
  if (ms <= 0) return 'now';
  const s = Math.ceil(ms / 1000);
  const m = Math.floor(s / 60);
  return m >= 60 ? `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m` : `${m}:${String(s % 60).padStart(2, '0')}`;
}

/** A button that runs an async action, showing a failure beside it instead of losing it. */
function useAction(onError) {
  const [busy, setBusy] = useState(false);
  return [
    busy,
    async (work) => {
      setBusy(true);
      try {
        await work();
      } catch (e) {
        onError(e instanceof ApiError ? e.message : String(e));
      } finally {
        setBusy(false);
      }
    },
  ];
}

// ---------------------------------------------------------------- accounts

function Gauge({ label, allowance, now, recent }) {
  const { limit, remaining, reset } = allowance;
  const left = reset * 1000 - now;
  return html`<div class="gauge" data-allowance=${label}>
    <div class="gauge-head"><span>${label}</span><span class="figure" data-remaining=${remaining}>${fmt(remaining)} / ${fmt(limit)}</span></div>
    <meter min="0" max=${limit} low=${limit * 0.2} high=${limit * 0.5} optimum=${limit} value=${remaining} aria-label=${`${label} credits remaining`}></meter>
    <div class="gauge-foot">
      <span class="recent" title="cost of the latest calls, newest first">${recent.length ? recent.map((c) => `−${c.cost}`).join(' ') : 'no calls'}</span>
      <span class="reset" title=${`resets at ${iso(reset * 1000)}`}>resets in ${countdown(left)}</span>
    </div>
  </div>`;
}

function PackageForm({ account, onSaved, onError }) {
  const p = account.package;
  const [fields, setFields] = useState({ credits_per_hour: p.credits_per_hour, analyze_credits_per_hour: p.analyze_credits_per_hour, task_slots: p.task_slots, index_capacity_per_month: p.index_capacity_per_month, concurrent_recordings: p.concurrent_recordings });
  const [busy, run] = useAction(onError);
  const save = (ev) => {
    ev.preventDefault();
    run(async () => {
      await admin('PUT', `/accounts/${encodeURIComponent(account.username)}/package`, fields);
      onSaved();
    });
  };
  return html`<form class="package-form" onSubmit=${save} aria-label=${`package of ${account.username}`}>
    ${Object.keys(fields).map(
      (k) => html`<label>${k.replaceAll('_', ' ')}<input type="number" min="0" name=${k} value=${fields[k]} onInput=${(e) => setFields({ ...fields, [k]: Number(e.currentTarget.value) })} /></label>`,
    )}
    <button type="submit" disabled=${busy}>Save package</button>
  </form>`;
}

function AccountRow({ a, now, onChanged, onOpen, onError }) {
  const [editing, setEditing] = useState(false);
  const [busy, run] = useAction(onError);
  const u = encodeURIComponent(a.username);
  return html`<tr data-account=${a.username} class=${a.denied ? 'denied' : ''}>
    <th scope="row"><button class="link" onClick=${() => onOpen(a.username)} title="resources of this account">${a.username}</button></th>
    <td class="package">
      <div>${fmt(a.package.credits_per_hour)}/h · analyze ${fmt(a.package.analyze_credits_per_hour)}/h · ${a.package.task_slots} slot${a.package.task_slots === 1 ? '' : 's'}</div>
      <button class="small" aria-expanded=${editing} onClick=${() => setEditing(!editing)}>${editing ? 'Close' : 'Change package'}</button>
      ${editing && html`<${PackageForm} account=${a} onError=${onError} onSaved=${() => { setEditing(false); onChanged(); }} />`}
    </td>
    <td class="state">
      <span class="badge ${a.denied ? 'bad' : 'good'}" title=${a.denied_reason ?? ''}>${a.denied ? 'denied' : 'allowed'}</span>
      <button class="small" disabled=${busy} onClick=${() => run(async () => { await admin('POST', `/accounts/${u}/${a.denied ? 'allow' : 'deny'}`, a.denied ? {} : { reason: 'denied from the console' }); onChanged(); })}>${a.denied ? 'Allow' : 'Deny'}</button>
    </td>
    <td><${Gauge} label="general" allowance=${a.allowances.general} now=${now} recent=${a.recent_charges.filter((c) => c.allowance !== 'analyze')} /></td>
    <td><${Gauge} label="analyze" allowance=${a.allowances.analyze} now=${now} recent=${a.recent_charges.filter((c) => c.allowance === 'analyze')} /></td>
    <td class="queues">${a.task_queues.map((q) => html`<div data-slot=${q.slot}>slot ${q.slot}: <strong>${q.queued}</strong> queued${q.finishes[0] ? html` · next ${clockTime(q.finishes[0])}` : ''}</div>`)}</td>
    <td class="capacity" title=${`limiting day ${a.capacity_today.day}`}>
      <meter min="0" max=${Math.max(1, a.capacity_today.limit)} value=${a.capacity_today.used} aria-label="recording capacity used today"></meter>
      <div>${fmt(a.capacity_today.used)} / ${fmt(a.capacity_today.limit)}</div>
    </td>
  </tr>`;
}

function CreateAccount({ onCreated, onError }) {
  const [username, setUsername] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [credits, setCredits] = useState('');
  const [opened, setOpened] = useState(null);
  const [busy, run] = useAction(onError);
  const submit = (ev) => {
    ev.preventDefault();
    run(async () => {
      const body = { username };
      if (apiKey) body.api_key = apiKey;
      if (credits) body.package = { credits_per_hour: Number(credits) };
      setOpened(await admin('POST', '/accounts', body));
      setUsername('');
      setApiKey('');
      setCredits('');
      onCreated();
    });
  };
  return html`<form class="create" onSubmit=${submit} aria-label="create an account">
    <label>username <input name="username" required value=${username} onInput=${(e) => setUsername(e.currentTarget.value)} /></label>
    <label>API key <input name="api_key" placeholder="generated" value=${apiKey} onInput=${(e) => setApiKey(e.currentTarget.value)} /></label>
    <label>credits per hour <input name="credits_per_hour" type="number" min="0" placeholder="10000" value=${credits} onInput=${(e) => setCredits(e.currentTarget.value)} /></label>
    <button type="submit" disabled=${busy}>Create account</button>
    ${opened && html`<output class="opened">Opened <strong>${opened.username}</strong>, API key <code>${opened.api_key}</code></output>`}
  </form>`;
}

export function AccountsView({ snapshot, now, refresh, openResources, onError }) {
  if (!snapshot) return html`<p>Loading…</p>`;
  return html`<section aria-labelledby="accounts-h">
    <h2 id="accounts-h">Accounts <small>${snapshot.accounts.length}</small></h2>
    <${CreateAccount} onCreated=${refresh} onError=${onError} />
    <table class="accounts">
      <thead><tr><th>account</th><th>package</th><th>state</th><th>general allowance</th><th>analyze allowance</th><th>task slots</th><th>recording capacity today</th></tr></thead>
      <tbody>${snapshot.accounts.map((a) => html`<${AccountRow} key=${a.username} a=${a} now=${now} onChanged=${refresh} onOpen=${openResources} onError=${onError} />`)}</tbody>
    </table>
  </section>`;
}

// ---------------------------------------------------------------- resources

export function ResourcesView({ snapshot, username, setUsername, onError }) {
  const [resources, setResources] = useState(null);
  const [stamp, setStamp] = useState(0);
  useEffect(() => {
    if (!username) return;
    let live = true;
    admin('GET', `/accounts/${encodeURIComponent(username)}/resources`).then((r) => live && setResources(r.resources), (e) => onError(e.message));
    return () => (live = false);
  }, [username, stamp]);
  const names = snapshot ? snapshot.accounts.map((a) => a.username) : [];
  const kinds = ['recordings', 'historics', 'previews', 'push', 'sources', 'identities'];
  return html`<section aria-labelledby="resources-h">
    <h2 id="resources-h">Resources of an account</h2>
    <div class="toolbar">
      <label>account <select value=${username ?? ''} onChange=${(e) => { setResources(null); setUsername(e.currentTarget.value); }}>
        <option value="">choose…</option>${names.map((n) => html`<option value=${n}>${n}</option>`)}
      </select></label>
      <button onClick=${() => setStamp(stamp + 1)} disabled=${!username}>Reload</button>
    </div>
    ${username && !resources && html`<p>Loading…</p>`}
    ${resources &&
    kinds.map((kind) => {
      const rows = resources.filter((r) => r.kind === kind);
      return html`<div class="kind" data-kind=${kind}>
        <h3>${kind} <small>${rows.length}</small></h3>
        ${rows.length === 0
          ? html`<p class="none">none</p>`
          : html`<table class="resources"><thead><tr><th>id</th><th>name</th><th>state</th><th>transitions and the calls that caused them</th></tr></thead><tbody>
              ${rows.map(
                (r) => html`<tr data-resource=${r.id}>
                  <td><code>${r.id}</code></td><td>${r.name ?? ''}</td><td><span class="badge">${r.state}</span></td>
                  <td><details><summary>${r.transitions.length} event${r.transitions.length === 1 ? '' : 's'}</summary><ol class="transitions">
                    ${r.transitions.map((t) => html`<li><time>${iso(t.time)}</time> <strong>${t.type}</strong> → ${t.state} ${t.call ? html`<span class="call">by <code>${t.call.endpoint}</code> (cost ${t.call.cost}, write at #${t.call.position})</span>` : html`<span class="call">by the clock or the operator</span>`}</li>`)}
                  </ol></details></td>
                </tr>`,
              )}</tbody></table>`}
      </div>`;
    })}
  </section>`;
}

// ---------------------------------------------------------------- event log

const PAGE = 500;
/** Events the page holds while following: the oldest go first ("Load older" brings them back). */
const KEPT = 5000;

export function EventLogView({ snapshot, onError }) {
  const [events, setEvents] = useState([]);
  // Writes the server recorded as it made them, by first position: grouped exactly, not from the envelope.
  const [known, setKnown] = useState(() => new Map());
  const learnWrites = (after, until) =>
    admin('GET', `/writes?after=${after}${until === undefined ? '' : `&until=${until}`}`).then((r) =>
      setKnown((held) => {
        const next = new Map(held);
        for (const w of r.writes) next.set(w[0], w);
        return next;
      }),
    );
  const [from, setFrom] = useState(null);
  const [missing, setMissing] = useState(false);
  const [follow, setFollow] = useState(true);
  const [filter, setFilter] = useState({ account: '', stream: '', type: '' });
  const head = snapshot?.head;
  const last = events.length ? events[events.length - 1].position : from;

  // The newest page first, then only what follows it.
  useEffect(() => {
    if (head === undefined || from !== null) return;
    const start = Math.max(0, head - PAGE);
    eventsAfter(start, PAGE)
      .then(async (es) => { await learnWrites(start); setFrom(start); setEvents(es); })
      .catch((e) => (e.status === 404 ? setMissing(true) : onError(e.message)));
  }, [head, from]);
  useEffect(() => {
    if (!follow || from === null) return;
    const timer = setInterval(() => {
      if (document.hidden) return;
      // Read from the last event held: if it is no longer there (a reset emptied the log), start over.
      const lastEvent = events[events.length - 1];
      const after = lastEvent ? lastEvent.position - 1 : from;
      eventsAfter(after, PAGE + 1).then(async (es) => {
        if (lastEvent && es[0]?.id !== lastEvent.id) { setFrom(null); setEvents([]); setKnown(new Map()); return; }
        const fresh = lastEvent ? es.slice(1) : es;
        if (fresh.length === 0) return;
        // A little behind the new events too: a write is recorded just after its events become readable.
        await learnWrites(Math.max(0, after - 50));
        setEvents((held) => {
          const all = [...held, ...fresh];
          if (all.length <= KEPT) return all;
          setFrom(all[all.length - KEPT - 1].position);
          return all.slice(-KEPT);
        });
      }, (e) => onError(e.message));
    }, 1000);
    return () => clearInterval(timer);
  }, [follow, from, last]);

  const older = () => {
    const start = Math.max(0, from - PAGE);
    eventsAfter(start, from - start)
      .then(async (es) => { await learnWrites(start, from); setFrom(start); setEvents((now) => [...es, ...now]); })
      .catch((e) => onError(e.message));
  };

  if (missing) return html`<section><h2>Event log</h2><p class="notice">This server has no event export (<code>GET /_admin/events</code>).</p></section>`;
  const matches = (e) => (!filter.stream || e.stream.includes(filter.stream)) && (!filter.type || e.type === filter.type);
  const writes = groupWrites(events, [...known.values()])
    .filter((w) => !filter.account || w.account === filter.account)
    .filter((w) => w.events.some(matches))
    .reverse();
  const types = [...new Set(events.map((e) => e.type))].sort();
  const names = snapshot ? snapshot.accounts.map((a) => a.username) : [];
  const set = (k) => (e) => setFilter({ ...filter, [k]: e.currentTarget.value });
  return html`<section aria-labelledby="log-h">
    <h2 id="log-h">Event log <small>${events.length} events from #${from === null ? '…' : from + 1}</small></h2>
    <div class="toolbar">
      <label>account <select name="account" value=${filter.account} onChange=${set('account')}><option value="">all</option>${names.map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
      <label>stream <input name="stream" placeholder="e.g. credits:" value=${filter.stream} onInput=${set('stream')} /></label>
      <label>type <select name="type" value=${filter.type} onChange=${set('type')}><option value="">all</option>${types.map((t) => html`<option value=${t}>${t}</option>`)}</select></label>
      <label class="check"><input type="checkbox" checked=${follow} onChange=${(e) => setFollow(e.currentTarget.checked)} /> follow live</label>
      <button onClick=${older} disabled=${!from}>Load older</button>
    </div>
    <ol class="writes">
      ${writes.map(
        (w) => html`<li class="write" data-account=${w.account ?? ''}>
          <div class="write-head">
            <span>#${w.events[0].position}${w.events.length > 1 ? `–${w.events[w.events.length - 1].position}` : ''}</span>
            <time>${iso(w.time)}</time>
            <span>${w.account ?? '(no account)'}</span>
            ${w.call ? html`<span class="call">call <code>${w.call.endpoint}</code> charged ${w.call.cost}</span>` : html`<span class="call">no charge</span>`}
            ${w.events.length > 1 && html`<span class="atomic" title=${w.recorded ? 'appended together, as this server recorded it: the charge and the effects committed as one' : 'appended together, as read from the events (time, positions, account): the charge and the effects committed as one'}>one atomic write · ${w.events.length} events</span>`}
          </div>
          <ul>${w.events.filter(matches).map((e) => html`<li class="event" data-type=${e.type}><details><summary><strong>${e.type}</strong> <code>${e.stream}</code> v${e.version} <span class="pos">#${e.position}</span></summary><pre>${JSON.stringify(e.data, null, 2)}</pre></details></li>`)}</ul>
        </li>`,
      )}
    </ol>
  </section>`;
}

// ---------------------------------------------------------------- clock

/** What a move of the clock from `before` to `after` made due, read from the accounts seen before it. */
function dueBetween(accounts, before, after) {
  const due = [];
  for (const a of accounts) {
    for (const [name, al] of Object.entries(a.allowances)) {
      const at = al.reset * 1000;
      if (al.remaining < al.limit && at > before && at <= after) due.push({ at, what: `${a.username}: ${name} allowance refilled to ${fmt(al.limit)}` });
    }
    for (const q of a.task_queues) for (const at of q.finishes) if (at > before && at <= after) due.push({ at, what: `${a.username}: a task on slot ${q.slot} finished` });
  }
  return due.sort((x, y) => x.at - y.at);
}

export function ClockView({ snapshot, now, refresh, onError }) {
  const [to, setTo] = useState('');
  const [last, setLast] = useState(null);
  const [busy, run] = useAction(onError);
  if (!snapshot) return html`<p>Loading…</p>`;
  const manual = snapshot.kind === 'manual';
  const resets = snapshot.accounts.flatMap((a) => Object.values(a.allowances).filter((al) => al.remaining < al.limit).map((al) => al.reset * 1000)).filter((t) => t > now);
  const nextReset = resets.length ? Math.min(...resets) : null;
  const move = (body, label) =>
    run(async () => {
      const before = snapshot;
      const moved = await admin('POST', '/clock', body);
      let written = [];
      try {
        written = await eventsAfter(before.head, 200);
      } catch (e) {
        if (e.status !== 404) throw e;
      }
      setLast({ label, from: before.now, to: moved.now, due: dueBetween(before.accounts, before.now, moved.now), written });
      await refresh();
    });
  const submitTo = (ev) => {
    ev.preventDefault();
    const ms = Date.parse(to.endsWith('Z') ? to : `${to}Z`);
    if (Number.isNaN(ms)) return onError(`Not a time: ${to}`);
    move({ to: ms }, `to ${iso(ms)}`);
  };
  return html`<section aria-labelledby="clock-h">
    <h2 id="clock-h">Clock</h2>
    <p class="now"><time data-now=${now}>${iso(now)}</time> <span class="badge">${snapshot.kind}</span></p>
    ${manual
      ? html`<div class="toolbar">
          <button disabled=${busy || nextReset === null} onClick=${() => move({ to: nextReset }, 'to the next reset')}>Advance to next reset${nextReset ? ` (${clockTime(nextReset)})` : ''}</button>
          <button disabled=${busy} onClick=${() => move({ advance_ms: HOUR }, 'one hour')}>+1 hour</button>
          <button disabled=${busy} onClick=${() => move({ advance_ms: DAY }, 'one day')}>+1 day</button>
          <form onSubmit=${submitTo}><label>to (UTC) <input name="to" placeholder=${iso(now + HOUR)} value=${to} onInput=${(e) => setTo(e.currentTarget.value)} /></label><button type="submit" disabled=${busy}>Advance</button></form>
        </div>`
      : html`<p>The server runs on the system clock; start it with <code>--clock manual</code> to move time from here.</p>`}
    ${last &&
    html`<div class="due" aria-live="polite">
      <h3>Moved ${last.label}: ${iso(last.from)} → ${iso(last.to)}</h3>
      ${last.due.length === 0 && last.written.length === 0 ? html`<p>Nothing became due on the way.</p>` : ''}
      <ul>${last.due.map((d) => html`<li><time>${iso(d.at)}</time> ${d.what}</li>`)}</ul>
      ${last.written.length > 0 && html`<p>Written while the clock moved:</p><ul>${last.written.map((e) => html`<li><time>${iso(e.time)}</time> <strong>${e.type}</strong> <code>${e.stream}</code></li>`)}</ul>`}
    </div>`}
  </section>`;
}

// ---------------------------------------------------------------- streams

/** The stream connections open on the process that answers, polled each second (`GET /_admin/streams`). */
export function StreamsView({ onError }) {
  const [connections, setConnections] = useState(null);
  useEffect(() => {
    const load = () => admin('GET', '/streams').then((r) => setConnections(r.connections), (e) => onError(e.message));
    load();
    const timer = setInterval(() => document.hidden || load(), 1000);
    return () => clearInterval(timer);
  }, []);
  return html`<section aria-labelledby="streams-h">
    <h2 id="streams-h">Streams</h2>
    ${connections === null
      ? html`<p>…</p>`
      : html`<table class="streams"><thead><tr><th>connection</th><th>username</th><th>transport</th><th>hashes</th><th>opened</th><th>delivered</th></tr></thead><tbody>
          ${connections.length === 0 && html`<tr><td colspan="6" class="none">no stream connection is open on this process</td></tr>`}
          ${connections.map(
            (c) => html`<tr key=${c.id}>
              <td><code>${c.id}</code></td>
              <td>${c.username}</td>
              <td>${c.transport}</td>
              <td title=${c.hashes.join('\n')}>${c.hashes.length}${c.hashes.length > 0 ? html` <code>${c.hashes[0].slice(0, 8)}…</code>` : ''}</td>
              <td><time>${iso(c.opened_at * 1000)}</time></td>
              <td>${c.delivered}</td>
            </tr>`,
          )}
        </tbody></table>`}
  </section>`;
}

// ---------------------------------------------------------------- faults

export function FaultsView({ onError }) {
  const [faults, setFaults] = useState(null);
  const [missing, setMissing] = useState(false);
  const [form, setForm] = useState({ status: '503', username: '', endpoint: '', count: '', probability: '', delay_ms: '', retry_after: '', drop: false });
  const [busy, run] = useAction(onError);
  const load = () => admin('GET', '/faults').then((r) => setFaults(r.faults), (e) => (e.status === 404 ? setMissing(true) : onError(e.message)));
  useEffect(() => {
    load();
    const timer = setInterval(() => document.hidden || load(), 1000);
    return () => clearInterval(timer);
  }, []);
  if (missing) return html`<section><h2>Faults</h2><p class="notice">This server has no fault rules (<code>/_admin/faults</code>).</p></section>`;
  const add = (ev) => {
    ev.preventDefault();
    run(async () => {
      const body = {};
      if (form.drop) body.drop = true;
      else if (form.status) body.status = Number(form.status);
      for (const k of ['username', 'endpoint']) if (form[k]) body[k] = form[k];
      for (const k of ['count', 'probability', 'delay_ms', 'retry_after']) if (form[k] !== '') body[k] = Number(form[k]);
      await admin('POST', '/faults', body);
      await load();
    });
  };
  const set = (k) => (e) => setForm({ ...form, [k]: e.currentTarget.type === 'checkbox' ? e.currentTarget.checked : e.currentTarget.value });
  return html`<section aria-labelledby="faults-h">
    <h2 id="faults-h">Faults</h2>
    <form class="create" onSubmit=${add} aria-label="add a fault rule">
      <label>status <select name="status" value=${form.status} onChange=${set('status')}>${['', '500', '502', '503', '504'].map((s) => html`<option value=${s}>${s || 'none'}</option>`)}</select></label>
      <label class="check"><input type="checkbox" name="drop" checked=${form.drop} onChange=${set('drop')} /> drop the connection</label>
      <label>username <input name="username" placeholder="any" value=${form.username} onInput=${set('username')} /></label>
      <label>endpoint <input name="endpoint" placeholder="any (catalogue id)" value=${form.endpoint} onInput=${set('endpoint')} /></label>
      <label>count <input name="count" type="number" min="1" placeholder="every call" value=${form.count} onInput=${set('count')} /></label>
      <label>probability <input name="probability" type="number" min="0" max="1" step="0.01" placeholder="1" value=${form.probability} onInput=${set('probability')} /></label>
      <label>delay ms <input name="delay_ms" type="number" min="0" value=${form.delay_ms} onInput=${set('delay_ms')} /></label>
      <label>Retry-After s <input name="retry_after" type="number" min="0" value=${form.retry_after} onInput=${set('retry_after')} /></label>
      <button type="submit" disabled=${busy}>Add rule</button>
    </form>
    ${faults === null
      ? html`<p>Loading…</p>`
      : html`<table class="faults"><thead><tr><th>id</th><th>answer</th><th>username</th><th>endpoint</th><th>remaining</th><th>probability</th><th></th></tr></thead><tbody>
          ${faults.length === 0 && html`<tr><td colspan="7" class="none">no rules: every call is answered normally</td></tr>`}
          ${faults.map(
            (f) => html`<tr data-fault=${f.id}>
              <td><code>${f.id}</code></td>
              <td>${f.drop ? 'drop' : f.status ?? 'the normal answer'}${f.delay_ms ? ` after ${f.delay_ms} ms` : ''}${f.retry_after != null ? `, Retry-After ${f.retry_after}` : ''}</td>
              <td>${f.username ?? 'any'}</td><td>${f.endpoint ?? 'any'}</td>
              <td class="remaining">${f.remaining ?? '∞'}</td><td>${f.probability ?? 1}</td>
              <td><button class="small" disabled=${busy} onClick=${() => run(async () => { await admin('DELETE', `/faults/${encodeURIComponent(f.id)}`); await load(); })}>Remove</button></td>
            </tr>`,
          )}</tbody></table>
          ${faults.length > 0 && html`<button disabled=${busy} onClick=${() => run(async () => { await admin('DELETE', '/faults'); await load(); })}>Remove all</button>`}`}
  </section>`;
}
