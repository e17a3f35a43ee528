const UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  // A scenario "month" is 30 days, the period the daily recording limit divides the monthly capacity by.
  mo: 30 * 86_400_000,
};

/**
 * Reads a span of time as scenario files write it: `500ms`, `30s`, `15m`, `3h`, `7d`, `2w`, `1mo`, or a
 * sum such as `1h30m`. A bare number is seconds. Returns milliseconds, or `undefined` when unreadable.
 */
export function parseDuration(input: unknown): number | undefined {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input * 1000 : undefined;
  if (typeof input !== 'string') return undefined;
  const text = input.trim().toLowerCase();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  let total = 0;
  let rest = text.replace(/\s+/g, '');
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ms|mo|min|s|m|h|d|w)/.exec(rest);
    if (!m) return undefined;
    total += Number(m[1]) * UNITS[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return Math.round(total);
}

/** Writes milliseconds back in the largest whole units (for reports). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  // Whole seconds once there are any: a report has no use for the milliseconds of an hour.
  let rest = ms >= 1000 ? Math.round(ms / 1000) * 1000 : Math.round(ms);
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest}ms`);
  return parts.join('');
}
