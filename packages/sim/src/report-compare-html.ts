import { answerLines, type Comparison } from './compare-packages.ts';
import { formatDuration } from './duration.ts';
import { priceText } from './price.ts';
import { downsample, lineChart } from './svg-chart.ts';
import { html, page } from './markup.ts';
import { limitingDayZone } from './limiting-days.ts';

const PALETTE = ['#1f6fd1', '#e8590c', '#2b8a3e', '#9c36b5', '#c92a2a', '#0b7285', '#5c940d', '#d6336c'];
const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** Packages side by side: a table, credits remaining for the first account under each, links to each report. */
export function compareHtml(c: Comparison, linkOf: (name: string) => string): string {
  const first = c.runs[0]?.result;
  const start = first ? Date.parse(first.scenario.start) : 0;
  const end = first ? Date.parse(first.scenario.end) : 1;
  const account = first?.totals[0]?.account ?? '';
  // Times in the limiting day's zone, as in each package's report (named on the axis, UTC on hover).
  const zone = limitingDayZone(first?.scenario.limitingDay ?? 'pst');
  const chart = lineChart(
    {
      id: 'chart-compare-credits',
      title: `General credits remaining for ${account}, per package`,
      width: 1000,
      height: 300,
      x: [start, end],
      y: [0, Math.max(1, ...c.runs.map((r) => r.result.series[account]?.limit ?? 0))],
      yLabel: 'credits',
      unit: 'credits remaining',
      zone,
      legend: c.runs.map((r, i) => ({ name: r.name, color: PALETTE[i % PALETTE.length]! })),
    },
    c.runs.map((r, i) => ({ name: r.name, color: PALETTE[i % PALETTE.length]!, step: true, points: downsample(r.result.series[account]?.remaining ?? [], start, 60_000, 1200, 'min') })),
  );
  const pick = c.answer.cheapest?.name ?? c.smallestWithoutRefusals;
  const rows = c.runs.map((r) => {
    const t = r.result.totals;
    const sum = (f: (x: (typeof t)[number]) => number) => t.reduce((s, x) => s + f(x), 0);
    const cells = [
      html`<a href=${linkOf(r.name)}>${r.name}</a>`,
      r.price === null ? '' : priceText(r.price),
      n(r.package.credits_per_hour),
      n(r.package.analyze_credits_per_hour),
      n(r.package.task_slots),
      n(sum((x) => x.calls)),
      n(sum((x) => x.admitted)),
      n(sum((x) => x.refusedRate)),
      n(sum((x) => x.refusedQueue)),
      n(sum((x) => x.refusedStream + x.refusedConnections)),
      n(r.result.limitingDays.reduce((s, d) => s + d.refused, 0)),
      formatDuration(sum((x) => x.rateLimitedSeconds) * 1000),
    ];
    return html`<tr class=${r.name === pick ? 'pick' : undefined}>${cells.map((x) => html`<td>${x}</td>`)}</tr>`;
  });
  const header = ['package', 'price', 'credits/h', 'analyze/h', 'slots', 'calls', 'admitted', 'refused', 'queue full', 'stream refused', 'capacity refused', 'rate-limited'];
  return page(html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <title>Package comparison</title>
      <style dangerouslySetInnerHTML=${{ __html: STYLE }} />
    </head>
    <body>
      <header>
        <h1>${first?.scenario.name ?? 'scenario'}: packages compared</h1>
        ${answerLines(c).map((l) => html`<div class="answer">${l}</div>`)}
      </header>
      <figure>${chart}</figure>
      <div class="scroll"><table><thead><tr>${header.map((x) => html`<th>${x}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>
    </body>
  </html>`);
}

/** The page's one style sheet: a constant, so it is written as it stands. */
const STYLE = `body{margin:0 auto;max-width:1000px;font:13px/1.4 system-ui,sans-serif}svg.chart{display:block;width:100%;height:auto}.scroll{overflow-x:auto}header{padding:10px 16px;box-sizing:border-box}h1{font-size:17px;margin:0}
figure{margin:0;height:320px}table{border-collapse:collapse;margin:8px 16px}th,td{border:1px solid #ddd;padding:2px 6px;text-align:right}tr.pick td{background:#e6fcf5;font-weight:600}
svg .title{font-size:13px;font-weight:600}svg .tick,svg .ref{font-size:10px;fill:#555}svg .legend,svg .axis{font-size:11px}`;
