import { scaleLinear, scaleUtc } from 'd3-scale';
import { curveLinear, curveStepAfter, line } from 'd3-shape';
import { localStamp, utcStamp, zoneNameAt, type TimeZoneView } from './limiting-days.ts';
import { html, type Markup } from './markup.ts';

/**
 * The report's SVG charts: time on x, a figure on y, lines, stacked bars, reference lines. Scales and
 * ticks are d3-scale's, line paths d3-shape's; the elements are preact's, so every label is escaped when
 * the page is written. Everything is inline markup, so the report is one self-contained file with no scripts.
 */
export interface LineSeries {
  name: string;
  color: string;
  /** [unix ms, value]; NaN values break the line. */
  points: [number, number][];
  /** Draw as steps (a figure that holds until the next reading). */
  step?: boolean;
}

export interface BarStack {
  x0: number;
  x1: number;
  parts: { value: number; color: string; name: string }[];
}

export interface RefLine {
  at: number;
  label?: string;
  color?: string;
  dashed?: boolean;
}

export interface ChartFrame {
  id: string;
  title: string;
  width: number;
  height: number;
  x: [number, number];
  y: [number, number];
  yLabel?: string;
  /** Vertical reference lines (instants). */
  vlines?: RefLine[];
  /** Horizontal reference lines (values). */
  hlines?: RefLine[];
  legend?: { name: string; color: string }[];
  /** Times on the axis and in tooltips in this zone (UTC in the tick's hover); UTC when absent. */
  zone?: TimeZoneView;
  /** Unit named in tooltips ("credits"). */
  unit?: string;
}

const PAD = { left: 70, right: 20, top: 34, bottom: 40 };
const UTC: TimeZoneView = { name: 'UTC', offsetAt: () => 0 };

/** The frame's scales: d3-scale's linear maps from time and figure to the plot area's pixels. */
function scales(f: ChartFrame) {
  const w = f.width - PAD.left - PAD.right;
  const h = f.height - PAD.top - PAD.bottom;
  // A span of zero maps its one value to the start, as an empty domain would map it to the middle.
  const domain = ([a, b]: [number, number]): [number, number] => (b > a ? [a, b] : [a, a + 1]);
  const sx = scaleLinear().domain(domain(f.x)).range([PAD.left, PAD.left + w]);
  const sy = scaleLinear().domain(domain(f.y)).range([PAD.top + h, PAD.top]);
  return { sx, sy, w, h };
}

const r1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Ticks on round wall-clock times of the zone, about six: d3-scale's UTC scale picks the interval (5, 15,
 * 30 minutes; 1, 3, 6, 12 hours; days; weeks; months) over the span read as the zone's wall clock, then
 * each tick goes back to its instant. Under a day's step they show hours (`14:00`), the first and any
 * midnight with the date (`01-05 00:00`), and every tick dated once the span is over a day; from a day's
 * step up, dates alone (the zone's midnights). So spans under about five days have hours.
 */
export function timeTicks(x0: number, x1: number, zone: TimeZoneView): { at: number; label: string }[] {
  const DAY = 86_400_000;
  const off = zone.offsetAt(x0);
  const wall = scaleUtc().domain([x0 + off, x1 + zone.offsetAt(x1)]);
  const locals = wall.ticks(6).map((d) => d.getTime());
  const step = locals.length > 1 ? locals[1]! - locals[0]! : DAY;
  const out: { at: number; label: string }[] = [];
  for (const local of locals) {
    const t = local - zone.offsetAt(local - off);
    if (t < x0 || t > x1) continue;
    const iso = new Date(t + zone.offsetAt(t)).toISOString();
    const dated = x1 - x0 > DAY || out.length === 0 || iso.slice(11, 16) === '00:00';
    out.push({ at: t, label: step >= DAY ? iso.slice(5, 10) : dated ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16) });
  }
  return out;
}

function frame(f: ChartFrame, body: (Markup | null)[]): Markup {
  const { sx, sy, w, h } = scales(f);
  const zone = f.zone ?? UTC;
  const bottom = PAD.top + h;
  const yTicks = sy.ticks(5).map((v) => {
    const y = r1(sy(v));
    return html`<line x1=${PAD.left} x2=${PAD.left + w} y1=${y} y2=${y} stroke="#e4e4e4" /><text x=${PAD.left - 6} y=${y + 4} text-anchor="end" class="tick">${v.toLocaleString('en-US')}</text>`;
  });
  const xTicks = timeTicks(f.x[0], f.x[1], zone).map((t) => {
    const x = r1(sx(t.at));
    // A label centred on the last tick would run off the chart's right edge: it ends at its tick there.
    const anchor = x + t.label.length * 3 > f.width ? 'end' : 'middle';
    return html`<line x1=${x} x2=${x} y1=${bottom} y2=${bottom + 5} stroke="#888" /><text x=${x} y=${bottom + 18} text-anchor=${anchor} class="tick"><title>${utcStamp(t.at)}</title>${t.label}</text>`;
  });
  const vlines = (f.vlines ?? []).map((v) => {
    const x = r1(sx(v.at));
    // Labels sit at the foot of the line, clear of the legend and of horizontal reference labels.
    return html`<line x1=${x} x2=${x} y1=${PAD.top} y2=${bottom} stroke=${v.color ?? '#777'} stroke-dasharray=${v.dashed ? '4 3' : undefined} />${v.label && x < PAD.left + w - 90 ? html`<text x=${x + 3} y=${bottom - 5} class="ref">${v.label}</text>` : null}`;
  });
  const hlines = (f.hlines ?? []).map((l) => {
    const y = r1(sy(l.at));
    return html`<line x1=${PAD.left} x2=${PAD.left + w} y1=${y} y2=${y} stroke=${l.color ?? '#333'} stroke-width="1.5" stroke-dasharray=${l.dashed ? '6 4' : undefined} />${l.label ? html`<text x=${PAD.left + w - 4} y=${y - 4} text-anchor="end" class="ref">${l.label}</text>` : null}`;
  });
  let lx = PAD.left;
  const legend = (f.legend ?? []).map((item) => {
    const at = lx;
    lx += 24 + item.name.length * 7;
    return html`<rect x=${at} y=${PAD.top - 16} width="10" height="10" fill=${item.color} /><text x=${at + 14} y=${PAD.top - 7} class="legend">${item.name}</text>`;
  });
  return html`<svg id=${f.id} class="chart" xmlns="http://www.w3.org/2000/svg" width=${f.width} height=${f.height} viewBox=${`0 0 ${f.width} ${f.height}`} role="img" aria-label=${f.title}>
    <title>${f.title}</title><text x=${PAD.left} y="14" class="title">${f.title}</text>
    <rect x=${PAD.left} y=${PAD.top} width=${w} height=${h} fill="#fbfbfb" stroke="#d0d0d0" />
    ${yTicks}${xTicks}
    <text x=${PAD.left + w} y=${bottom + 34} text-anchor="end" class="axis">${zoneNote(zone)}</text>
    ${body}${vlines}${hlines}${legend}
    ${f.yLabel ? html`<text transform=${`translate(14 ${PAD.top + h / 2}) rotate(-90)`} text-anchor="middle" class="axis">${f.yLabel}</text>` : null}
  </svg>`;
}

/** What the time axis says of its zone: its name, and that hovering a time gives the UTC instant. */
export function zoneNote(zone: TimeZoneView): string {
  return zone.name === 'UTC' ? 'times UTC' : `times ${zone.name}, the limiting day's zone (hover a time for UTC)`;
}

/** A chart with nothing to draw: its title and a sentence, no axes (an empty axis reads as data). */
export function emptyChart(f: Pick<ChartFrame, 'id' | 'title' | 'width' | 'height'>, message: string): Markup {
  return html`<svg id=${f.id} class="chart empty" xmlns="http://www.w3.org/2000/svg" width=${f.width} height=${f.height} viewBox=${`0 0 ${f.width} ${f.height}`} role="img" aria-label=${f.title}>
    <title>${f.title}</title><text x=${PAD.left} y="14" class="title">${f.title}</text>
    <text x=${f.width / 2} y=${f.height / 2} text-anchor="middle" class="axis">${message}</text>
  </svg>`;
}

export function lineChart(f: ChartFrame, series: LineSeries[]): Markup {
  const { sx, sy } = scales(f);
  // d3-shape draws the path: a NaN figure breaks the line, a step series holds each figure to the next.
  const path = (s: LineSeries) =>
    line<[number, number]>()
      .defined(([, y]) => Number.isFinite(y))
      .x(([x]) => sx(x))
      .y(([, y]) => sy(y))
      .curve(s.step ? curveStepAfter : curveLinear)
      .digits(1)(s.points);
  const paths = series.map((s) => {
    const d = path(s);
    return d ? html`<path d=${d} fill="none" stroke=${s.color} stroke-width="2" stroke-linejoin="round"><title>${s.name}</title></path>` : null;
  });
  // Hover targets with the exact figure: a transparent dot on each of at most 240 points per series.
  const zone = f.zone ?? UTC;
  const dots = series.flatMap((s) => {
    const every = Math.max(1, Math.ceil(s.points.length / 240));
    const out: Markup[] = [];
    for (let k = 0; k < s.points.length; k += every) {
      const [x, y] = s.points[k]!;
      if (!Number.isFinite(y)) continue;
      const tip = `${s.name}, ${localStamp(x, zone)} ${zoneNameAt(zone, x)} (${utcStamp(x)}): ${y.toLocaleString('en-US')}${f.unit ? ` ${f.unit}` : ''}`;
      out.push(html`<circle class="tip" cx=${r1(sx(x))} cy=${r1(sy(y))} r="4" fill=${s.color} fill-opacity="0"><title>${tip}</title></circle>`);
    }
    return out;
  });
  return frame(f, [...paths, ...dots]);
}

export function barChart(f: ChartFrame, bars: BarStack[]): Markup {
  const { sx, sy } = scales(f);
  const zone = f.zone ?? UTC;
  const rects: Markup[] = [];
  for (const b of bars) {
    const x = sx(b.x0);
    const width = Math.max(1, sx(b.x1) - x - (sx(b.x1) - x > 4 ? 1 : 0));
    let base = 0;
    for (const p of b.parts) {
      if (p.value <= 0) continue;
      const top = sy(base + p.value);
      const bottom = sy(base);
      const when = `${localStamp(b.x0, zone)} to ${localStamp(b.x1, zone)} ${zoneNameAt(zone, b.x1)} (from ${utcStamp(b.x0)})`;
      rects.push(html`<rect class="tip" x=${r1(x)} y=${r1(top)} width=${r1(width)} height=${r1(Math.max(1, bottom - top))} fill=${p.color}><title>${`${p.name}: ${p.value.toLocaleString('en-US')}, ${when}`}</title></rect>`);
      base += p.value;
    }
  }
  return frame(f, rects);
}

/**
 * At most `max` points from a minute series: each point the lowest (or highest) figure in its bucket, so
 * a short dip to zero still shows on a month-long chart.
 */
export function downsample(values: ArrayLike<number>, start: number, stepMs: number, max: number, keep: 'min' | 'max'): [number, number][] {
  const n = values.length;
  const per = Math.max(1, Math.ceil(n / max));
  const out: [number, number][] = [];
  for (let i = 0; i < n; i += per) {
    let v = Number.NaN;
    for (let j = i; j < Math.min(n, i + per); j++) {
      const x = values[j]!;
      if (Number.isNaN(x)) continue;
      v = Number.isNaN(v) ? x : keep === 'min' ? Math.min(v, x) : Math.max(v, x);
    }
    out.push([start + i * stepMs, v]);
  }
  return out;
}
