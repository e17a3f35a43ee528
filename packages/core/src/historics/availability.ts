/**
 * What data a period holds per source (docs/clients.md#availability). Every source of the platform holds data for
 * every past instant, so a window's `status` is the share of it that lies in the past (0 to 100).
 */
export interface SourceAvailability {
  status: number;
  versions: string[];
  augmentations: unknown[];
}

export interface AvailabilityWindow {
  /** Epoch seconds. */
  start: number;
  end: number;
  sources: Record<string, SourceAvailability>;
}

const DAY = 86_400;

function pastShare(start: number, end: number, nowSec: number): number {
  if (nowSec >= end) return 100;
  if (nowSec <= start) return 0;
  return Math.floor((100 * (nowSec - start)) / (end - start));
}

export function historicsAvailability(start: number, end: number, sources: readonly string[], now: number): AvailabilityWindow {
  const status = pastShare(start, end, Math.floor(now / 1000));
  const out: Record<string, SourceAvailability> = {};
  for (const s of sources) out[s] = { status, versions: ['3'], augmentations: [] };
  return { start, end, sources: out };
}

/** `/historics/status`: one window per UTC day the period touches, each clipped to the period. */
export function historicsAvailabilityByDay(start: number, end: number, sources: readonly string[], now: number): AvailabilityWindow[] {
  const out: AvailabilityWindow[] = [];
  for (let from = start; from < end; ) {
    const to = Math.min(end, (Math.floor(from / DAY) + 1) * DAY);
    out.push(historicsAvailability(from, to, sources, now));
    from = to;
  }
  return out;
}
