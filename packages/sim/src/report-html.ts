import { dayBoundaries, limitingDayZone, localStamp, utcStamp, zoneNameAt } from './limiting-days.ts';
import { TOTALS_HEADER, totalsRow } from './report-table.ts';
import { formatDuration } from './duration.ts';
import type { SimFigures } from './run-scenario.ts';
import { barChart, downsample, emptyChart, lineChart, type BarStack } from './svg-chart.ts';
import { html, page, type Markup } from './markup.ts';
import type { LimitingDayMode } from '@sdp/core';

const PALETTE = ['#1f6fd1', '#e8590c', '#2b8a3e', '#9c36b5', '#c92a2a', '#0b7285', '#5c940d', '#d6336c'];
const WIDTH = 1000;
const HEIGHT = 300;
/** Charts come first, each in a block of this height, so a screenshot can find each one. */
export const CHART_BLOCK = { header: 60, height: 320, width: WIDTH, ids: ['chart-credits', 'chart-refusals', 'chart-capacity', 'chart-queue'] };

const n = (x: number) => Math.round(x).toLocaleString('en-US');

type Cell = string | number | { text: string; title: string };

function table(header: string[], rows: Cell[][]): Markup {
  const cell = (c: Cell) => (typeof c === 'object' ? html`<td title=${c.title}>${c.text}</td>` : typeof c === 'number' ? html`<td class="num">${n(c)}</td>` : html`<td>${c}</td>`);
  return html`<table><thead><tr>${header.map((x) => html`<th>${x}</th>`)}</tr></thead><tbody>${rows.map((r) => html`<tr>${r.map(cell)}</tr>`)}</tbody></table>`;
}

/** The run as one self-contained HTML page: inline SVG charts, tables, no scripts. */
export function reportHtml(r: SimFigures, mode: LimitingDayMode = r.scenario.limitingDay): string {
  const start = Date.parse(r.scenario.start);
  const end = Date.parse(r.scenario.end);
  const accounts = r.totals.map((t) => t.account);
  const color = (i: number) => PALETTE[i % PALETTE.length]!;
  const HOUR = 3_600_000;
  // Times read in the limiting day's zone, the one the account's days and capacity are counted in.
  const zone = limitingDayZone(mode);

  const maxLimit = Math.max(...Object.values(r.series).map((s) => s.limit), 1);
  const credits = lineChart(
    {
      id: 'chart-credits',
      title: 'General credits remaining',
      width: WIDTH,
      height: HEIGHT,
      x: [start, end],
      y: [0, maxLimit],
      yLabel: 'credits',
      unit: 'credits remaining',
      zone,
      legend: accounts.map((a, i) => ({ name: a, color: color(i) })),
      hlines: accounts.length === 1 ? [{ at: r.series[accounts[0]!]!.limit, label: `limit ${n(r.series[accounts[0]!]!.limit)}`, dashed: true }] : [],
    },
    accounts.map((a, i) => ({ name: a, color: color(i), step: true, points: downsample(r.series[a]!.remaining, start, 60_000, 1200, 'min') })),
  );

  const hours = Math.ceil((end - start) / HOUR);
  const per = Math.max(1, Math.ceil(hours / 400));
  const bars: BarStack[] = [];
  for (let h = 0; h < hours; h += per) {
    let rate = 0;
    let queue = 0;
    let stream = 0;
    let connections = 0;
    for (const row of r.hours) {
      if (row.hour < h || row.hour >= h + per) continue;
      rate += row.refusedRate;
      queue += row.refusedQueue;
      stream += row.refusedStream;
      connections += row.refusedConnections;
    }
    bars.push({
      x0: start + h * HOUR,
      x1: Math.min(end, start + (h + per) * HOUR),
      parts: [
        { name: 'rate-limited calls', value: rate, color: '#c92a2a' },
        { name: 'task queue full', value: queue, color: '#e8590c' },
        { name: 'stream charges refused', value: stream, color: '#9c36b5' },
        { name: 'stream connections refused', value: connections, color: '#5f3dc4' },
      ],
    });
  }
  const maxBar = Math.max(0, ...bars.map((b) => b.parts.reduce((s, p) => s + p.value, 0)));
  const refusalsTitle = `Refusals per ${per === 1 ? 'hour' : `${per} hours`}`;
  const refusals =
    maxBar === 0
      ? emptyChart({ id: 'chart-refusals', title: refusalsTitle, width: WIDTH, height: HEIGHT }, 'No refusals in this run: every call, task, stream charge and stream connection was admitted.')
      : barChart(
          {
            id: 'chart-refusals',
            title: refusalsTitle,
            width: WIDTH,
            height: HEIGHT,
            x: [start, end],
            y: [0, maxBar * 1.05],
            yLabel: 'refusals',
            zone,
            legend: [
              { name: 'rate-limited', color: '#c92a2a' },
              { name: 'queue full', color: '#e8590c' },
              { name: 'stream refused', color: '#9c36b5' },
            ],
          },
          bars,
        );

  const days = r.limitingDays;
  const byDay = new Map<string, { start: number; end: number; used: number; refused: number; limit: number }>();
  for (const d of days) {
    const cur = byDay.get(d.day) ?? { start: Date.parse(d.start), end: Date.parse(d.end), used: 0, refused: 0, limit: 0 };
    cur.used += d.used;
    cur.refused += d.refused;
    cur.limit = Math.max(cur.limit, d.limit);
    byDay.set(d.day, cur);
  }
  const dayLimit = Math.max(0, ...[...byDay.values()].map((d) => d.limit));
  const boundaries = dayBoundaries(start, end, mode);
  const dayPeak = Math.max(0, ...[...byDay.values()].map((d) => d.used + d.refused));
  // Scaled to the data; the limit is drawn when it is near enough to read against the bars.
  const limitNear = dayLimit > 0 && dayLimit <= dayPeak * 1.5;
  const capacityTitle = `Recording capacity per limiting day (days start 00:00 ${mode === 'pst' ? 'PST, UTC-08:00' : 'America/Los_Angeles'})${dayLimit > 0 && !limitNear ? `; the daily limit of ${n(dayLimit)} is far above` : ''}`;
  const capacity =
    dayPeak === 0
      ? emptyChart({ id: 'chart-capacity', title: capacityTitle, width: WIDTH, height: HEIGHT }, 'Nothing was recorded or refused: no recording ran.')
      : barChart(
          {
            id: 'chart-capacity',
            title: capacityTitle,
            width: WIDTH,
            height: HEIGHT,
            x: [start, end],
            y: [0, Math.max(dayPeak * 1.1, limitNear ? dayLimit * 1.1 : 0)],
            yLabel: 'interactions',
            unit: 'interactions',
            zone,
            legend: [
              { name: 'recorded', color: '#2b8a3e' },
              { name: 'refused (over a cap)', color: '#c92a2a' },
            ],
            hlines: limitNear ? [{ at: dayLimit, label: `daily account limit ${n(dayLimit)}`, dashed: true }] : [],
            vlines: boundaries.map((b) => ({ at: b, color: '#888', dashed: true, ...(boundaries.length <= 10 ? { label: `${localStamp(b, zone).slice(0, 5)} 00:00` } : {}) })),
          },
          [...byDay.values()].map((d) => ({
            x0: Math.max(start, d.start),
            x1: Math.min(end, d.end),
            parts: [
              { name: 'recorded', value: d.used, color: '#2b8a3e' },
              { name: 'refused', value: d.refused, color: '#c92a2a' },
            ],
          })),
        );

  const queueMax = Math.max(0, ...r.totals.map((t) => t.tasksQueuedMax));
  const queueLimit = r.totals.find((t) => t.queueLimit !== null)?.queueLimit ?? 0;
  const queueTitle = 'Analysis tasks queued (largest X-Analysis-Tasks-Queued per interval)';
  const queueLimitNear = queueLimit > 0 && queueLimit <= queueMax * 1.5;
  const queue =
    queueMax === 0
      ? emptyChart({ id: 'chart-queue', title: queueTitle, width: WIDTH, height: HEIGHT }, 'No analysis tasks were queued.')
      : lineChart(
          {
            id: 'chart-queue',
            title: queueTitle,
            width: WIDTH,
            height: HEIGHT,
            x: [start, end],
            y: [0, Math.max(queueMax, queueLimitNear ? queueLimit : 0) * 1.1],
            yLabel: 'tasks',
            unit: 'tasks queued',
            zone,
            legend: accounts.map((a, i) => ({ name: a, color: color(i) })),
            hlines: queueLimitNear ? [{ at: queueLimit, label: `queue limit ${n(queueLimit)}`, dashed: true }] : [],
          },
          accounts.map((a, i) => ({ name: a, color: color(i), step: true, points: downsample(r.series[a]!.queued, start, 60_000, 1200, 'max') })),
        );

  const totals = table(TOTALS_HEADER, r.totals.map(totalsRow));
  const daysTable = table(['account', 'limiting day', 'starts', 'recorded', 'refused', 'limit'], days.map((d) => [d.account, d.day, { text: `${localStamp(Date.parse(d.start), zone)} ${zoneNameAt(zone, Date.parse(d.start))}`, title: utcStamp(Date.parse(d.start)) }, d.used, d.refused, d.limit]));
  const shownHours = r.hours.slice(0, 2000);
  const hoursTable = table(
    [`hour (${zone.name})`, 'account', 'calls', 'admitted', 'refused', 'queue full', 'credits', 'rate-limited s', 'resets', 'remaining at end'],
    shownHours.map((h) => [{ text: localStamp(Date.parse(h.start), zone), title: utcStamp(Date.parse(h.start)) }, h.account, h.calls, h.admitted, h.refusedRate, h.refusedQueue, Object.values(h.credits).reduce((a, b) => a + b, 0), Math.round(h.rateLimitedSeconds), h.resets, h.remainingEnd]),
  );
  const block = (svg: Markup) => html`<figure class="block">${svg}</figure>`;
  const when = (ms: number) => html`<span title=${utcStamp(ms)}>${new Date(ms + zone.offsetAt(ms)).toISOString().slice(0, 10)} ${localStamp(ms, zone, false)} ${zoneNameAt(zone, ms)}</span>`;
  return page(html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <title>${r.scenario.name}: simulation report</title>
      <style dangerouslySetInnerHTML=${{ __html: STYLE }} />
    </head>
    <body>
      <header>
        <h1>${r.scenario.name}${r.packageName ? ` · package ${r.packageName}` : ''}</h1>
        <div>${when(start)} to ${when(end)} (${formatDuration(r.scenario.durationMs)}), API ${r.scenario.version}, ${n(r.simulatedCalls)} calls</div>
      </header>
      ${block(credits)}${block(refusals)}${block(capacity)}${block(queue)}
      <section><h2>Accounts</h2><div class="scroll" id="accounts">${totals}</div>${r.notes.map((x) => html`<p>${x}</p>`)}</section>
      <section><h2>Limiting days</h2><div class="scroll">${daysTable}</div></section>
      <section><h2>Hours</h2><div class="scroll">${hoursTable}</div>${r.hours.length > shownHours.length ? html`<p>First ${shownHours.length} of ${r.hours.length} rows; the CSV and JSON hold them all.</p>` : null}</section>
    </body>
  </html>`);
}

/** The page's one style sheet: a constant, so it is written as it stands. */
const STYLE = `
body{margin:0 auto;max-width:${WIDTH}px;font:13px/1.4 system-ui,sans-serif;color:#222;background:#fff}
svg.chart{display:block;width:100%;height:auto}.scroll{overflow-x:auto}
header{height:${CHART_BLOCK.header}px;box-sizing:border-box;padding:10px 16px;overflow:hidden}
header h1{font-size:17px;margin:0}
figure.block{margin:0;height:${CHART_BLOCK.height}px;max-width:100%;overflow:hidden}
svg .title{font-size:13px;font-weight:600;fill:#222}svg .tick{font-size:10px;fill:#555}svg .ref{font-size:10px;fill:#333}
svg .legend{font-size:11px;fill:#333}svg .axis{font-size:11px;fill:#555}
section{padding:8px 16px}table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #ddd;padding:2px 4px}th{vertical-align:bottom}td.num{text-align:right}
`;
