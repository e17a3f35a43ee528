import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { OutboundAnswer, OutboundHttp, OutboundRequest } from '@sdp/core';

const gzipped = promisify(gzip);

/** The receiver has this long to answer a push request (the original's HTTP connector allowed 10 s). */
export const OUTBOUND_TIMEOUT_MS = 10_000;

export interface NodeOutboundOptions {
  /** How long a receiver has to answer, headers and body. */
  timeoutMs?: number;
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
        const outgoing = send(url, { method: req.method, headers, agent: false, ...(url.protocol === 'https:' ? { rejectUnauthorized: req.verifyTls } : {}) }, (res: IncomingMessage) => {
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
