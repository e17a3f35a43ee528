import type { AccessEntry } from '@sdp/http';

/**
 * A character that JSON text cannot hold as it is (a quote, a backslash, a control character) or that
 * UTF-8 cannot encode alone (half of a surrogate pair): strings holding one are spelled by
 * `JSON.stringify`, which escapes them; every other string is quoted as it is.
 */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

export function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : '"' + text + '"';
}

/**
 * A number as pino writes it: as `String` spells it, `null` when not finite. The access log's `ms`
 * has at most two decimals; spelling those from whole hundredths is about twice as fast as V8's
 * general shortest-decimal algorithm, and gives the same text for every such number below 10^9.
 */
export function jsonNumber(n: number): string {
  const hundredths = Math.round(n * 100);
  if (hundredths / 100 !== n || hundredths < 0 || hundredths >= 1e11) return Number.isFinite(n) ? String(n) : 'null';
  const fraction = hundredths % 100;
  const whole = (hundredths - fraction) / 100;
  if (fraction === 0) return String(whole);
  if (fraction % 10 === 0) return whole + '.' + fraction / 10;
  return whole + (fraction < 10 ? '.0' : '.') + fraction;
}

/**
 * Spells access entries as the JSON lines pino writes for them (`{"level":"info", ...the entry's fields
 * in their order}` and a newline), without pino's general serialisation: a request's entry differs from
 * the previous one's in few places (the time moves once a millisecond, most requests share a method,
 * path, status and user), so each run of constant text and the field after it is kept from the previous
 * entry and a line is a handful of joins. `access-line.spec.ts` holds it to pino's own output.
 */
export class AccessLines {
  // Each field of the previous entry (none before the first) and the text spelled from it.
  private time: string | undefined;
  private timePart = '';
  private method: string | undefined;
  private methodPart = '';
  private path: string | undefined;
  private pathPart = '';
  private status: number | undefined;
  private statusPart = '';
  private username: string | null | undefined;
  private usernamePart = '';

  /** `level`: the label pino writes for the lines' level (`info`). */
  constructor(private readonly level: string) {}

  line(entry: AccessEntry): string {
    if (entry.time !== this.time) (this.time = entry.time), (this.timePart = this.head(entry.time));
    if (entry.method !== this.method) (this.method = entry.method), (this.methodPart = jsonString(entry.method) + ',"path":');
    if (entry.path !== this.path) (this.path = entry.path), (this.pathPart = jsonString(entry.path) + ',"status":');
    if (entry.status !== this.status) (this.status = entry.status), (this.statusPart = jsonNumber(entry.status) + ',"ms":');
    if (entry.username !== this.username) {
      this.username = entry.username;
      this.usernamePart = ',"username":' + (entry.username === null ? 'null' : jsonString(entry.username)) + ',"cost":';
    }
    const cost = entry.cost === null ? 'null}\n' : jsonNumber(entry.cost) + '}\n';
    return this.timePart + this.methodPart + this.pathPart + this.statusPart + jsonNumber(entry.ms) + this.usernamePart + cost;
  }

  private head(time: string): string {
    return '{"level":' + jsonString(this.level) + ',"time":' + jsonString(time) + ',"method":';
  }
}
