/**
 * Cuts a byte stream of concatenated JSON objects into one text per object: the duplex form writes its
 * actions into the request body one chunk each with no separator, and chunks need not fall on object
 * boundaries. Whitespace between objects is skipped; anything else outside an object is reported as junk
 * and dropped up to the next `{`. Bounded: an object longer than `maxChars` is refused and dropped.
 */
export class ActionSplitter {
  private text = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private dropping = false;

  constructor(private readonly maxChars = 64 * 1024) {}

  /** Feeds text; returns the complete objects it finished and whether junk or an over-long object was met. */
  push(chunk: string): { objects: string[]; junk: boolean } {
    const objects: string[] = [];
    let junk = false;
    for (let k = 0; k < chunk.length; k++) {
      const ch = chunk[k]!;
      if (this.depth === 0) {
        if (ch === '{') {
          this.depth = 1;
          this.text = '{';
          this.dropping = false;
        } else if (!/\s/.test(ch)) {
          if (!this.dropping) junk = true;
          this.dropping = true;
        }
        continue;
      }
      this.text += ch;
      if (this.text.length > this.maxChars) {
        junk = true;
        this.reset();
        this.dropping = true;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') this.inString = false;
      } else if (ch === '"') this.inString = true;
      else if (ch === '{' || ch === '[') this.depth++;
      else if (ch === '}' || ch === ']') {
        this.depth--;
        if (this.depth === 0) {
          objects.push(this.text);
          this.text = '';
        }
      }
    }
    return { objects, junk };
  }

  private reset(): void {
    this.text = '';
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
  }
}

export type StreamAction = { action: 'subscribe' | 'unsubscribe'; hash: string } | { action: 'stop' };

/** An action from its JSON text, or why it is not one. */
export function readAction(text: string): StreamAction | { invalid: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalid: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { invalid: 'not a JSON object' };
  const o = value as Record<string, unknown>;
  if (o.action === 'stop') return { action: 'stop' };
  if (o.action !== 'subscribe' && o.action !== 'unsubscribe') return { invalid: 'action must be subscribe, unsubscribe or stop' };
  if (typeof o.hash !== 'string' || o.hash.length === 0 || o.hash.length > 64) return { invalid: 'hash must be a hash' };
  return { action: o.action, hash: o.hash.trim() };
}
