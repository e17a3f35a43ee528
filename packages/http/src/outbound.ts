import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { OutboundAnswer, OutboundHttp, OutboundRequest } from '@sdp/core';

const gzipped = promisify(gzip);

/** The receiver has this long to answer a push request (the original's HTTP connector allowed 10 s). */
export const OUTBOUND_TIMEOUT_MS = 10_000;

export interface NodeOutboundOptions {
  /** How long a receiver has to answer, headers and body. */
  timeoutMs?: number;
  /**
   * Why a request must not go to this address and port, or null. Asked of the address the connection is
   * really made to, after the name is resolved (the core's check sees only the name, and a name may
   * resolve elsewhere tomorrow); a refused request is never sent and answers `{ error }`. The server
   * passes `ownEndpointProblem` over where it listens.
   */
  refuse?: (address: string, port: number) => string | null;
}

/** A request refused by `refuse`: it fails as a connection does, with the reason as its message. */
class RefusedAddress extends Error {
  readonly code = 'ESDPREFUSED';
}

/**
 * Node's `lookup` with `refuse` asked of every address the name resolves to (Node may try each in turn
 * with autoSelectFamily), so the check and the connection see the same answer from DNS.
 */
function refusingLookup(refuse: (address: string, port: number) => string | null, port: number): LookupFunction {
  return ((hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, options, (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
      if (error) return callback(error, address, family);
      for (const a of typeof address === 'string' ? [address] : address.map((one) => one.address)) {
        const why = refuse(a, port);
        if (why !== null) return callback(new RefusedAddress(`${hostname} resolves to ${a}: ${why}`), address, family);
      }
      callback(null, address, family);
    });
  }) as LookupFunction;
}

/** Why a request got no answer, in words a push-log reader understands. */
function reason(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name could not be resolved';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host is unreachable';
    default:
      return error.message;
  }
}

/**
 * The core's outbound HTTP port over Node's `http`/`https`: one request, no redirects followed (a 3xx is
 * an answer), the whole exchange bounded by the timeout, the answer's body read and dropped.
 */
export function nodeOutbound(options: NodeOutboundOptions = {}): OutboundHttp {
  const timeoutMs = options.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
  return {
    async send(req: OutboundRequest): Promise<OutboundAnswer> {
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return { error: `not a URL: ${req.url}` };
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `only http and https URLs are delivered to, not ${url.protocol}` };
      const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      // An address in the URL is connected to without a lookup: it is judged here.
      if (options.refuse && isIP(host) !== 0) {
        const why = options.refuse(host, port);
        if (why !== null) return { error: why };
      }
      const lookup = options.refuse && isIP(host) === 0 ? refusingLookup(options.refuse, port) : undefined;
      const body = req.gzip ? await gzipped(Buffer.from(req.body, 'utf8')) : Buffer.from(req.body, 'utf8');
      const headers: Record<string, string> = { ...req.headers, 'Content-Length': String(body.length), 'User-Agent': 'sdp-push/1' };
      if (req.gzip) headers['Content-Encoding'] = 'gzip';
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise<OutboundAnswer>((resolve) => {
        let settled = false;
        const done = (answer: OutboundAnswer) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(answer);
        };
        const outgoing = send(url, { method: req.method, headers, agent: false, ...(lookup ? { lookup } : {}), ...(url.protocol === 'https:' ? { rejectUnauthorized: req.verifyTls } : {}) }, (res: IncomingMessage) => {
          res.on('data', () => undefined);
          res.on('end', () => done({ status: res.statusCode ?? 0 }));
          res.on('error', (e) => done({ error: reason(e) }));
        });
        const timer = setTimeout(() => {
          done({ error: `no answer within ${timeoutMs / 1000} s` });
          outgoing.destroy();
        }, timeoutMs);
        outgoing.on('error', (e: NodeJS.ErrnoException) => done({ error: reason(e) }));
        outgoing.end(body);
      });
    },
  };
}
