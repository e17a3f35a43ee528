/**
 * The transport-neutral request and response the two faces (Node `http`, WHATWG `fetch`) translate to and
 * from. Decoding and encoding happen once, here, over these shapes.
 */
export interface WireRequest {
  method: string;
  /** Path and query string as sent (`/v1.5/validate?x=1`). */
  url: string;
  /** A header by lowercase name; several values joined with `, `. */
  header(name: string): string | undefined;
  /**
   * Reads the whole body, giving up (`null`) as soon as it grows past `limit` bytes, so an oversized body
   * is refused before any of it is parsed.
   */
  readBody(limit: number): Promise<Uint8Array | null>;
  /**
   * The whole body, when the face holds it before the handler runs (the Node face reads small bodies
   * first): the same bytes `readBody` gives, without waiting on a promise for them.
   */
  readonly body?: Uint8Array;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  /**
   * JSON text, or bytes ready for the wire (a fixed body, encoded and perhaps compressed once for all its
   * answers: `FixedBody`); absent for 204, 304, HEAD and OPTIONS.
   */
  body?: string | Uint8Array;
  /** Close the connection without an answer (an injected fault). */
  drop?: boolean;
  /** A long body sent as it is produced (an event log export), instead of `body`. */
  stream?: AsyncIterable<string>;
}

/**
 * Something that answers wire requests: the API itself, or a mounted sub-API such as the operator's. The
 * answer, or a promise of it: the API's own handler answers at once when nothing on the way waited.
 */
export type WireHandler = (request: WireRequest) => WireResponse | Promise<WireResponse>;

/** One line of the access log. */
export interface AccessEntry {
  time: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  username: string | null;
  cost: number | null;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The client went away before its request's body ended (a face's `readBody` rejects with it): not the
 * server's failure, so nobody is told of an error; the access log records it as 499, as nginx does.
 */
export class ClientGone extends Error {
  constructor(message = 'the client closed the connection before its request body ended') {
    super(message);
    this.name = 'ClientGone';
  }
}

/** The status the access log records for a request whose client went away (`ClientGone`). */
export const CLIENT_GONE_STATUS = 499;

/**
 * A JSON answer with an `error` key, the shape of every refusal (docs/contract.md#bodies-and-parameters). The headers object is
 * completed in place, not copied: objects built by spreading and then extended take V8's slow path
 * (measured 10 µs per response), which is a tenth of the whole request budget.
 */
export function errorResponse(status: number, message: string, headers: Record<string, string> = {}): WireResponse {
  headers['Content-Type'] = JSON_TYPE;
  return { status, headers, body: JSON.stringify({ error: message }) };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): WireResponse {
  if (status === 204) return { status, headers };
  headers['Content-Type'] = JSON_TYPE;
  return { status, headers, body: JSON.stringify(body) };
}
