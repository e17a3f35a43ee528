import { chooseCoding, type ContentCoding } from './accept-encoding.ts';
import type { WireRequest, WireResponse } from './wire.ts';

export interface FixedBodyOptions {
  /** The body's `Content-Type`. */
  contentType: string;
  /** Headers of every answer, a 304 included (`Cache-Control`, `X-API-Version`, the CORS origin). */
  headers?: Record<string, string>;
}

/** Most wanted first: on equal q-values the smaller body goes out. */
const OFFERED: readonly ContentCoding[] = ['gzip', 'identity'];

/** One coding of the body: its bytes and the headers of its 200 and of its 304, made once. */
interface Variant {
  bytes: Uint8Array;
  etag: string;
  ok: Record<string, string>;
  notModified: Record<string, string>;
}

/**
 * A body that does not change while the process runs (an OpenAPI document, a page, a script), answered
 * from bytes made once: a strong `ETag` (one per coding, as each coding is other bytes) that a matching
 * `If-None-Match` turns into a 304 with no body, and gzip when `Accept-Encoding` asks for it, compressed
 * on first ask and kept. Free answers then cost the server little more than the write, so one client
 * asking for them in a loop does not hold up everyone else's calls (docs/openapi.md#cost).
 * Web-standard APIs only (`crypto.subtle`, `CompressionStream`): the fetch face runs where Node does not.
 */
export class FixedBody {
  private readonly bytes: Uint8Array;
  private readonly variants = new Map<ContentCoding, Variant>();
  private readonly making = new Map<ContentCoding, Promise<Variant>>();
  /** The entity tag's opaque part, without its coding's suffix, once the body is digested. */
  private tag: string | undefined;

  constructor(
    body: string | Uint8Array,
    private readonly options: FixedBodyOptions,
  ) {
    this.bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  }

  /** The answer to a GET or HEAD (the caller drops a HEAD's body, as for any answer). */
  async answer(req: Pick<WireRequest, 'header'>): Promise<WireResponse> {
    const coding = chooseCoding(req.header('accept-encoding'), OFFERED);
    const variant = this.variants.get(coding) ?? (await this.variant(coding));
    const asked = req.header('if-none-match');
    if (asked !== undefined && matches(asked, variant.etag)) return { status: 304, headers: { ...variant.notModified } };
    return { status: 200, headers: { ...variant.ok }, body: variant.bytes };
  }

  /** A coding's variant, made once however many requests ask while it is being made. */
  private variant(coding: ContentCoding): Promise<Variant> {
    let made = this.making.get(coding);
    if (made === undefined) {
      made = this.make(coding).then(
        (v) => {
          this.variants.set(coding, v);
          this.making.delete(coding);
          return v;
        },
        (error: unknown) => {
          // A failed compression is tried again by the next request rather than kept.
          this.making.delete(coding);
          throw error;
        },
      );
      this.making.set(coding, made);
    }
    return made;
  }

  private async make(coding: ContentCoding): Promise<Variant> {
    this.tag ??= await digest(this.bytes);
    const bytes = coding === 'identity' ? this.bytes : await compressed(this.bytes, coding);
    const etag = coding === 'identity' ? `"${this.tag}"` : `"${this.tag}-${coding}"`;
    const common = { ...this.options.headers, ETag: etag, Vary: 'Accept-Encoding' };
    const ok: Record<string, string> = { ...common, 'Content-Type': this.options.contentType, 'Content-Length': String(bytes.byteLength) };
    if (coding !== 'identity') ok['Content-Encoding'] = coding;
    return { bytes, etag, ok, notModified: common };
  }
}

/**
 * Whether an `If-None-Match` names this coding's bytes (weak comparison, RFC 9110 §13.1.2). Only the
 * tag this request would get counts: a 304 says the cache's copy is the one it would be sent, and
 * `Vary: Accept-Encoding` keeps a cache's copy to the coding its requests choose.
 */
function matches(field: string, etag: string): boolean {
  if (field.trim() === '*') return true;
  for (const item of field.split(',')) {
    const t = item.trim();
    if ((t.startsWith('W/') ? t.slice(2) : t) === etag) return true;
  }
  return false;
}

/** 128 bits of the body's SHA-256 as hex: the same body gives the same tag across restarts and processes. */
async function digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (let i = 0; i < 16; i++) hex += hash[i]!.toString(16).padStart(2, '0');
  return hex;
}

async function compressed(bytes: Uint8Array, coding: Exclude<ContentCoding, 'identity'>): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream(coding));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
