/** Past this (year 10000) the ISO text of a time has more than four digits of year: left to `toISOString`. */
const LAST_MS = 253_402_300_800_000;
const MILLIS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

let lastMs = NaN;
let lastText = '';
let second = NaN;
/** `YYYY-MM-DDTHH:MM:SS.` of `second`. */
let secondText = '';

/**
 * `new Date(ms).toISOString()` for the access log's time: the same text is kept while the millisecond
 * lasts (a busy server answers many calls in one), and the text up to the second while the second
 * lasts, so a new millisecond joins three digits to it instead of building a `Date` and spelling the
 * whole of it (under a load whose calls are a few a millisecond, nearly every call met a new one).
 */
export function isoTime(ms: number): string {
  if (ms === lastMs) return lastText;
  if (!(Number.isInteger(ms) && ms >= 0 && ms < LAST_MS)) return new Date(ms).toISOString();
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    second = s;
    secondText = new Date(s * 1000).toISOString().slice(0, 20);
  }
  lastMs = ms;
  lastText = secondText + MILLIS[ms - s * 1000]! + 'Z';
  return lastText;
}
