import { formatDuration } from './duration.ts';
import { limitingDayZone, localDateTime, offsetLabel, zoneNameAt } from './limiting-days.ts';
import type { SimFigures } from './run-scenario.ts';
import type { AccountTotals } from './usage-ledger.ts';

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** A plain-text table: columns padded to their widest cell, numbers on the right. */
export function textTable(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? n(c) : c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.every((r) => typeof r[i] === 'number'));
  const line = (r: (string | number)[]) => r.map((c, i) => (numeric[i] ? String(c).padStart(widths[i]!) : String(c).padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** Each account's totals: the same columns in the terminal summary and the HTML report. */
export const TOTALS_HEADER = ['account', 'package', 'credits/h', 'calls', 'admitted', 'refused', 'queue full', 'stream refused', 'retries', 'gave up', 'credits spent', 'rate-limited', 'resets', 'max queued'];

export function totalsRow(t: AccountTotals): (string | number)[] {
  return [
    t.account,
    t.packageName,
    t.creditsPerHour,
    t.calls,
    t.admitted,
    t.refusedRate,
    t.refusedQueue,
    // Stream charges and stream connections refused (each also has a column of its own in hours.csv).
    t.refusedStream + t.refusedConnections,
    t.retries,
    t.gaveUp,
    Object.values(t.credits).reduce((a, b) => a + b, 0),
    formatDuration(t.rateLimitedSeconds * 1000),
    t.resets,
    t.tasksQueuedMax,
  ];
}

/** The terminal summary of one run. */
/**
 * The run's start and end in the limiting day's zone, as the day table and the report's tables read, with
 * the zone's name and offset at each end (an end past a clock change names its own).
 */
function runSpan(r: SimFigures): string {
  const zone = limitingDayZone(r.scenario.limitingDay);
  const [from, to] = [Date.parse(r.scenario.start), Date.parse(r.scenario.end)];
  const label = (ms: number) => `${zoneNameAt(zone, ms)} (${offsetLabel(zone, ms)})`;
  return label(from) === label(to)
    ? `${localDateTime(from, zone)} to ${localDateTime(to, zone)} ${label(from)}`
    : `${localDateTime(from, zone)} ${label(from)} to ${localDateTime(to, zone)} ${label(to)}`;
}

export function summaryText(r: SimFigures): string {
  const out: string[] = [];
  const hours = r.scenario.durationMs / 3_600_000;
  out.push(`${r.scenario.name}: ${runSpan(r)} (${formatDuration(r.scenario.durationMs)}), API ${r.scenario.version}${r.packageName ? `, package ${r.packageName}` : ''}`);
  out.push(textTable(TOTALS_HEADER, r.totals.map(totalsRow)));
  for (const t of r.totals) {
    const groups = Object.entries(t.credits).sort((a, b) => b[1] - a[1]);
    if (groups.length > 0) out.push(`${t.account}: credits by group: ${groups.map(([g, c]) => `${g} ${n(c)}`).join(', ')}${t.analyzeCredits ? `; analyze allowance ${n(t.analyzeCredits)}` : ''}`);
  }
  for (const t of r.totals) {
    if (t.refusedConnections > 0) out.push(`${t.account}: ${n(t.refusedConnections)} stream connections refused (the package's stream_connections were all open)`);
  }
  for (const t of r.totals) {
    if (t.tasksCreated > 0 || t.refusedQueue > 0) {
      out.push(`${t.account}: ${n(t.tasksCreated)} analysis tasks queued, ${n(t.refusedQueue)} refused (queue full), longest queue ${n(t.tasksQueuedMax)}, longest wait for a result ${formatDuration(t.taskWaitMaxSeconds * 1000)}`);
    }
  }
  const days = r.limitingDays.filter((d) => d.used > 0 || d.refused > 0);
  if (days.length > 0) {
    const zone = limitingDayZone(r.scenario.limitingDay);
    const clock = r.scenario.limitingDay === 'pst' ? 'PST, UTC-08:00 all year' : `${zone.name}, America/Los_Angeles`;
    out.push(`recording capacity per limiting day (days start 00:00 ${clock}):`);
    out.push(textTable(['account', 'day', 'used', 'refused', 'limit'], days.map((d) => [d.account, d.day, d.used, d.refused, d.limit])));
  }
  for (const note of r.notes) out.push(`note: ${note}`);
  out.push(`${n(r.simulatedCalls)} calls in ${(r.wallMs / 1000).toFixed(2)} s of wall time (${n(r.simulatedCalls / Math.max(r.wallMs / 1000, 1e-3))} calls/s, ${n(hours / Math.max(r.wallMs / 1000, 1e-3))} simulated hours per second)`);
  return out.join('\n');
}
