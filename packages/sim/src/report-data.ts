import type { SimFigures } from './run-scenario.ts';
import type { HourRow } from './usage-ledger.ts';

/** The run as JSON: the scenario, each account's totals, every hour, every limiting day. */
export function resultJson(r: SimFigures): unknown {
  return {
    scenario: r.scenario,
    package: r.packageName,
    packages: r.packages,
    totals: r.totals.map(({ resetTimes, ...t }) => ({ ...t, resetTimes: resetTimes.map((x) => new Date(x).toISOString()) })),
    hours: r.hours,
    limitingDays: r.limitingDays,
    setup: r.setup,
    notes: r.notes,
    simulatedCalls: r.simulatedCalls,
    wallMs: Math.round(r.wallMs),
  };
}

function csvCell(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csv(header: string[], rows: unknown[][]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}

/** One line per account and hour; a column per endpoint group charged and per status answered. */
export function hoursCsv(rows: HourRow[]): string {
  const groups = [...new Set(rows.flatMap((r) => Object.keys(r.credits)))].sort();
  const statuses = [...new Set(rows.flatMap((r) => Object.keys(r.statuses)))].sort();
  const header = [
    'hour', 'start', 'account', 'calls', 'admitted', 'refused_rate', 'refused_queue', 'refused_stream', 'refused_connections', 'retries', 'gave_up',
    'rate_limited_s', 'analyze_limited_s', 'resets', 'remaining_end', 'remaining_min', 'tasks_queued_max', 'tasks_created', 'task_wait_mean_s', 'task_wait_max_s', 'analyze_credits',
    ...groups.map((g) => `credits_${g}`), ...statuses.map((s) => `status_${s}`),
  ];
  return csv(
    header,
    rows.map((r) => [
      r.hour, r.start, r.account, r.calls, r.admitted, r.refusedRate, r.refusedQueue, r.refusedStream, r.refusedConnections, r.retries, r.gaveUp,
      Math.round(r.rateLimitedSeconds), Math.round(r.analyzeLimitedSeconds), r.resets, r.remainingEnd, r.remainingMin, r.tasksQueuedMax, r.tasksCreated, Math.round(r.taskWaitMeanSeconds * 10) / 10, Math.round(r.taskWaitMaxSeconds * 10) / 10, r.analyzeCredits,
      ...groups.map((g) => r.credits[g] ?? 0), ...statuses.map((s) => r.statuses[s] ?? 0),
    ]),
  );
}

export function daysCsv(r: SimFigures): string {
  return csv(
    ['account', 'day', 'start', 'end', 'used', 'refused', 'limit'],
    r.limitingDays.map((d) => [d.account, d.day, d.start, d.end, d.used, d.refused, d.limit]),
  );
}
