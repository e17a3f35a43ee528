import { localStamp, utcStamp, type TimeZoneView } from './limiting-days.ts';

/**
 * Just enough SVG charting for the report: time on x, a figure on y, lines, stacked bars, reference lines.
 * Everything is inline markup, so the report is one self-contained file with no scripts.
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

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function scales(f: ChartFrame) {
  const [x0, x1] = f.x;
  const [y0, y1] = f.y;
  const w = f.width - PAD.left - PAD.right;
  const h = f.height - PAD.top - PAD.bottom;
  const sx = (x: number) => PAD.left + ((x - x0) / (x1 - x0 || 1)) * w;
  const sy = (y: number) => PAD.top + h - ((y - y0) / (y1 - y0 || 1)) * h;
  return { sx, sy, w, h };
}

const r1 = (n: number) => Math.round(n * 10) / 10;

/** Round tick values for a span: 1, 2 or 5 times a power of ten. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Math.round(v / step) * step);
  return out;
}

/**
 * Ticks on round wall-clock times of the zone, at most about 8. Over a day or less they show hours
 * (`14:00`), the first and any midnight with the date (`01-05 00:00`); over longer spans, dates with
 * hours while the step is under a day, dates alone (the zone's midnights) from a day up.
 */
export function timeTicks(x0: number, x1: number, zone: TimeZoneView): { at: number; label: string }[] {
  const span = x1 - x0;
  const HOUR = 3_600_000;
  const steps = [5 * 60_000, 15 * 60_000, 30 * 60_000, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 2 * 24 * HOUR, 7 * 24 * HOUR, 14 * 24 * HOUR, 30 * 24 * HOUR];
  const step = steps.find((s) => span / s <= 8) ?? steps[steps.length - 1]!;
  const out: { at: number; label: string }[] = [];
  // Ticks fall on round wall-clock times of the zone (its midnights for day steps).
  const off = zone.offsetAt(x0);
  for (let local = Math.ceil((x0 + off) / step) * step; local - off <= x1; local += step) {
    const t = local - zone.offsetAt(local - off);
    if (t < x0 || t > x1) continue;
    const iso = new Date(t + zone.offsetAt(t)).toISOString();
    const dated = span > 24 * HOUR || out.length === 0 || iso.slice(11, 16) === '00:00';
    out.push({ at: t, label: step >= 24 * HOUR ? iso.slice(5, 10) : dated ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16) });
  }
  return out;
}

function frame(f: ChartFrame, body: string): string {
  const { sx, sy, w, h } = scales(f);
  const parts: string[] = [];
  parts.push(`<rect x="${PAD.left}" y="${PAD.top}" width="${w}" height="${h}" fill="#fbfbfb" stroke="#d0d0d0"/>`);
  for (const v of niceTicks(f.y[0], f.y[1])) {
    const y = r1(sy(v));
    parts.push(`<line x1="${PAD.left}" x2="${PAD.left + w}" y1="${y}" y2="${y}" stroke="#e4e4e4"/>`);
    parts.push(`<text x="${PAD.left - 6}" y="${y + 4}" text-anchor="end" class="tick">${escapeXml(v.toLocaleString('en-US'))}</text>`);
  }
  const zone = f.zone ?? UTC;
  for (const t of timeTicks(f.x[0], f.x[1], zone)) {
    const x = r1(sx(t.at));
    parts.push(`<line x1="${x}" x2="${x}" y1="${PAD.top + h}" y2="${PAD.top + h + 5}" stroke="#888"/>`);
    parts.push(`<text x="${x}" y="${PAD.top + h + 18}" text-anchor="middle" class="tick"><title>${escapeXml(utcStamp(t.at))}</title>${escapeXml(t.label)}</text>`);
  }
  parts.push(`<text x="${PAD.left + w}" y="${PAD.top + h + 34}" text-anchor="end" class="axis">times ${escapeXml(zone.name)} (hover a time for UTC)</text>`);
  parts.push(body);
  for (const v of f.vlines ?? []) {
    const x = r1(sx(v.at));
    parts.push(`<line x1="${x}" x2="${x}" y1="${PAD.top}" y2="${PAD.top + h}" stroke="${v.color ?? '#777'}"${v.dashed ? ' stroke-dasharray="4 3"' : ''}/>`);
    // Labels sit at the foot of the line, clear of the legend and of horizontal reference labels.
    if (v.label && x < PAD.left + w - 90) parts.push(`<text x="${x + 3}" y="${PAD.top + h - 5}" class="ref">${escapeXml(v.label)}</text>`);
  }
  for (const l of f.hlines ?? []) {
    const y = r1(sy(l.at));
    parts.push(`<line x1="${PAD.left}" x2="${PAD.left + w}" y1="${y}" y2="${y}" stroke="${l.color ?? '#333'}" stroke-width="1.5"${l.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    if (l.label) parts.push(`<text x="${PAD.left + w - 4}" y="${y - 4}" text-anchor="end" class="ref">${escapeXml(l.label)}</text>`);
  }
  let lx = PAD.left;
  for (const item of f.legend ?? []) {
    parts.push(`<rect x="${lx}" y="${PAD.top - 16}" width="10" height="10" fill="${item.color}"/>`);
    parts.push(`<text x="${lx + 14}" y="${PAD.top - 7}" class="legend">${escapeXml(item.name)}</text>`);
    lx += 24 + item.name.length * 7;
  }
  if (f.yLabel) parts.push(`<text transform="translate(14 ${PAD.top + h / 2}) rotate(-90)" text-anchor="middle" class="axis">${escapeXml(f.yLabel)}</text>`);
  return (
    `<svg id="${escapeXml(f.id)}" class="chart" xmlns="http://www.w3.org/2000/svg" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" role="img" aria-label="${escapeXml(f.title)}">` +
    `<title>${escapeXml(f.title)}</title>` +
    `<text x="${PAD.left}" y="14" class="title">${escapeXml(f.title)}</text>` +
    parts.join('') +
    `</svg>`
  );
}

/** A chart with nothing to draw: its title and a sentence, no axes (an empty axis reads as data). */
export function emptyChart(f: Pick<ChartFrame, 'id' | 'title' | 'width' | 'height'>, message: string): string {
  return (
    `<svg id="${escapeXml(f.id)}" class="chart empty" xmlns="http://www.w3.org/2000/svg" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" role="img" aria-label="${escapeXml(f.title)}">` +
    `<title>${escapeXml(f.title)}</title><text x="${PAD.left}" y="14" class="title">${escapeXml(f.title)}</text>` +
    `<text x="${f.width / 2}" y="${f.height / 2}" text-anchor="middle" class="axis">${escapeXml(message)}</text></svg>`
  );
}

export function lineChart(f: ChartFrame, series: LineSeries[]): string {
  const { sx, sy } = scales(f);
  const paths = series.map((s) => {
    let d = '';
    let open = false;
    let prevY = 0;
    for (const [x, y] of s.points) {
      if (!Number.isFinite(y)) {
        open = false;
        continue;
      }
      const px = r1(sx(x));
      const py = r1(sy(y));
      if (!open) d += `M${px} ${py}`;
      else if (s.step) d += `H${px}V${py}`;
      else d += `L${px} ${py}`;
      open = true;
      prevY = py;
    }
    void prevY;
    return d ? `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2" stroke-linejoin="round"><title>${escapeXml(s.name)}</title></path>` : '';
  });
  // Hover targets with the exact figure: a transparent dot on each of at most 240 points per series.
  const zone = f.zone ?? UTC;
  const dots = series.map((s) => {
    const every = Math.max(1, Math.ceil(s.points.length / 240));
    let out = '';
    for (let k = 0; k < s.points.length; k += every) {
      const [x, y] = s.points[k]!;
      if (!Number.isFinite(y)) continue;
      const tip = `${s.name}, ${localStamp(x, zone)} ${zone.name} (${utcStamp(x)}): ${y.toLocaleString('en-US')}${f.unit ? ` ${f.unit}` : ''}`;
      out += `<circle class="tip" cx="${r1(sx(x))}" cy="${r1(sy(y))}" r="4" fill="${s.color}" fill-opacity="0"><title>${escapeXml(tip)}</title></circle>`;
    }
    return out;
  });
  return frame(f, paths.join('') + dots.join(''));
}

export function barChart(f: ChartFrame, bars: BarStack[]): string {
  const { sx, sy } = scales(f);
  const zone = f.zone ?? UTC;
  const rects: string[] = [];
  for (const b of bars) {
    const x = sx(b.x0);
    const width = Math.max(1, sx(b.x1) - x - (sx(b.x1) - x > 4 ? 1 : 0));
    let base = 0;
    for (const p of b.parts) {
      if (p.value <= 0) continue;
      const top = sy(base + p.value);
      const bottom = sy(base);
      const when = `${localStamp(b.x0, zone)} to ${localStamp(b.x1, zone)} ${zone.name} (from ${utcStamp(b.x0)})`;
      rects.push(`<rect class="tip" x="${r1(x)}" y="${r1(top)}" width="${r1(width)}" height="${r1(Math.max(1, bottom - top))}" fill="${p.color}"><title>${escapeXml(`${p.name}: ${p.value.toLocaleString('en-US')}, ${when}`)}</title></rect>`);
      base += p.value;
    }
  }
  return frame(f, rects.join(''));
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
