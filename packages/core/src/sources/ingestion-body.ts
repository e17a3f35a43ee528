import { BadRequest, PayloadTooLarge } from '../calls/errors.ts';

/**
 * The largest interaction one ingestion may carry (characters of its JSON). Matching one interaction is
 * one unit of work the event loop cannot be given back inside (a regular expression runs over a whole
 * field), so its size bounds how long a single match holds the process: at the filter's regex budget,
 * about 3 s for a 64 KiB field on this project's 2-core machine; a real post is a few kilobytes.
 */
export const MAX_INTERACTION_CHARS = 64 * 1024;
import { utf8Length } from '../calls/utf8.ts';

export interface IngestedBatch {
  interactions: Record<string, unknown>[];
  /** UTF-8 bytes of the messages (what `total_message_bytes` reports). */
  bytes: number;
  /** Characters of each message, for slicing the matching work by text. */
  sizes: number[];
}

/**
 * Reads an ingestion body (docs/clients.md#ingestion): JSON objects separated by `\n` or `\r\n`, or concatenated
 * with no separator at all. Any message that is not a JSON object refuses the whole request with a
 * 400 naming its line, and one over `MAX_INTERACTION_CHARS` a 413, so nothing of a bad request is kept.
 */
export function parseIngestionBody(body: string | undefined): IngestedBatch {
  const text = body ?? '';
  const interactions: Record<string, unknown>[] = [];
  const sizes: number[] = [];
  let bytes = 0;
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\ufeff') {
      i++;
      continue;
    }
    const startLine = line;
    const end = c === '{' || c === '[' ? closing(text, i) : lineEnd(text, i);
    if (end < 0) throw new BadRequest(`Line ${startLine}: the JSON object is not closed`, { line: startLine });
    if (end - i > MAX_INTERACTION_CHARS) {
      throw new PayloadTooLarge(`Line ${startLine}: an interaction is at most ${MAX_INTERACTION_CHARS} characters of JSON (this one has ${end - i}); nothing was kept`);
    }
    const message = text.slice(i, end);
    let value: unknown;
    try {
      value = JSON.parse(message);
    } catch {
      throw new BadRequest(`Line ${startLine}: not valid JSON`, { line: startLine });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new BadRequest(`Line ${startLine}: an interaction must be a JSON object`, { line: startLine });
    }
    interactions.push(value as Record<string, unknown>);
    sizes.push(message.length);
    bytes += utf8Length(message);
    for (let k = i; k < end; k++) if (text.charCodeAt(k) === 10) line++;
    i = end;
  }
  if (interactions.length === 0) throw new BadRequest('The body holds no interactions: send JSON objects, one a line');
  return { interactions, bytes, sizes };
}

/** Index just past the bracket that closes the one at `start`, or -1 when the text ends first. */
function closing(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function lineEnd(text: string, start: number): number {
  const n = text.indexOf('\n', start);
  return n < 0 ? text.length : n;
}
