import { createHash, timingSafeEqual } from 'node:crypto';
import { DomainError, type CallAnswer, type Engine } from '@sdp/core';
import { StreamCalls } from '@sdp/core/internal';
import { type Clock } from '@sdp/core/kernel';
import { ClockError, type ManualClock } from '@sdp/clock';
import type { FirehoseKeeper } from './firehose-keeper.ts';
import type { PushKeeper } from './push-keeper.ts';
import { ChargeBody, ClockMoveBody, DenyBody, OpenAccountBody, readBody } from './operator-bodies.ts';
import { BodyError, bodyParams, decodeUtf8, errorResponse, jsonResponse, segmentsOf, splitUrl, type WireHandler, type WireRequest, type WireResponse } from '@sdp/http';

export interface OperatorOptions {
  engine: Engine;
  clock: Clock & { kind?: string };
  /** The admin token; without one every `/_admin` path answers 404. */
  token: string | undefined;
  bodyLimit: number;
  /** The synthetic firehose switch (feeds switched-on firehoses as the clock moves). */
  firehoses?: FirehoseKeeper;
  /** Push delivery: subscriptions created since the last move are planned before the clock moves. */
  pushes?: PushKeeper;
  /** More routes (the toolbox: events, faults), matched like the built-in ones. */
  extraRoutes?: OperatorRoute[];
}

type Body = Record<string, unknown>;
/** `query` is the decoded query string; `text` the body as sent, for routes that read it raw. */
export type OperatorAction = (args: { params: string[]; body: Body; query: URLSearchParams; text: string }) => Promise<WireResponse>;

export interface OperatorRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Segments after `_admin`; `*` matches one segment (a username). */
  path: string[];
  run: OperatorAction;
  /** The body is not JSON (NDJSON imports): `body` stays empty, `text` holds it. */
  raw?: boolean;
  /** A larger body limit than the server's (whole event logs). */
  bodyLimit?: number;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * The operator API of docs/contract.md#operator-api, mounted at `/_admin`: accounts, packages, denial, stream charges, the
 * manual clock and reset. Not charged, no rate-limit headers. Off (404 everywhere) without a token.
 */
export function createOperatorApi(options: OperatorOptions): WireHandler {
  const { engine, clock, token, bodyLimit, firehoses, pushes } = options;
  if (token === undefined) return async () => errorResponse(404, 'Not found');
  const tokenDigest = digest(token);
  const manual = clock.kind === 'manual' ? (clock as ManualClock) : undefined;
  const streamCalls = new StreamCalls(engine);

  const routes: OperatorRoute[] = [
    {
      method: 'POST',
      path: ['accounts'],
      run: async ({ body }) => {
        const { username, api_key: apiKey, package: pkg } = readBody(OpenAccountBody, body);
        const opened = await engine.openAccount({ username, ...(typeof apiKey === 'string' ? { api_key: apiKey } : {}), package: pkg });
        return jsonResponse(201, opened);
      },
    },
    { method: 'GET', path: ['accounts', '*'], run: async ({ params }) => jsonResponse(200, await engine.accountView(params[0]!)) },
    { method: 'PUT', path: ['accounts', '*', 'package'], run: async ({ params, body }) => jsonResponse(200, await engine.changePackage(params[0]!, body)) },
    {
      method: 'POST',
      path: ['accounts', '*', 'deny'],
      run: async ({ params, body }) => {
        const { reason } = readBody(DenyBody, body);
        return jsonResponse(200, await engine.deny(params[0]!, reason));
      },
    },
    { method: 'POST', path: ['accounts', '*', 'allow'], run: async ({ params }) => jsonResponse(200, await engine.allow(params[0]!)) },
    {
      method: 'POST',
      path: ['accounts', '*', 'charge'],
      run: async ({ params, body }) => {
        const { cost } = readBody(ChargeBody, body);
        // Judged by the engine's one door, as every charge is; this route is the operator's authority
        // (the token is checked before any route runs), so it alone builds the call (`ApiCall.operator`).
        const answer = await streamCalls.charge(params[0]!, cost);
        const f = answer.rate;
        const figures = f && { limit: f.limit, remaining: f.remaining, reset: f.reset, cost: f.cost };
        if (answer.status === 200 && figures) return jsonResponse(200, figures);
        if (answer.status === 429 && figures) return jsonResponse(429, { error: errorOf(answer), ...figures });
        return errorResponse(answer.status, errorOf(answer), { ...answer.headers });
      },
    },
    // How far the engine's recording index trails the log (project addition): read, not caught up.
    { method: 'GET', path: ['recording-index'], run: async () => jsonResponse(200, await engine.recordingIndex.progress()) },
    { method: 'GET', path: ['clock'], run: async () => jsonResponse(200, { now: clock.now(), kind: manual ? 'manual' : 'system' }) },
    // What this process's attempt loop has done (project addition): how contended its accounts' streams
    // are. Each process answers for itself, so a test or an operator asks each one (docs/scaling.md).
    {
      method: 'GET',
      path: ['attempts'],
      run: async () => {
        const c = engine.attemptCounts();
        return jsonResponse(200, {
          pid: process.pid,
          runs: c.runs,
          conflicts: c.conflicts,
          lane_waits: c.laneWaits,
          gave_up: { conflicts: c.gaveUp.conflicts, store_away: c.gaveUp.storeAway, failure: c.gaveUp.failure },
        });
      },
    },
    {
      method: 'POST',
      path: ['clock'],
      run: async ({ body }) => {
        if (!manual) throw new DomainError(409, 'The clock is the system clock; start the server with --clock manual to move it');
        const { advance_ms: advance, to } = readBody(ClockMoveBody, body);
        await pushes?.discover();
        if (advance !== undefined) await manual.advance(advance);
        else await manual.advanceTo(to!);
        await firehoses?.catchUpAll();
        return jsonResponse(200, { now: manual.now() });
      },
    },
    {
      method: 'POST',
      path: ['reset'],
      run: async () => {
        await engine.reset();
        firehoses?.forgetAll();
        pushes?.forgetAll();
        return { status: 204, headers: {} };
      },
    },
    ...(firehoses
      ? ([
          { method: 'GET', path: ['accounts', '*', 'firehose'], run: async ({ params }) => jsonResponse(200, await firehoses.state(params[0]!)) },
          { method: 'POST', path: ['accounts', '*', 'firehose'], run: async ({ params, body }) => jsonResponse(200, await firehoses.switchOn(params[0]!, body)) },
          { method: 'DELETE', path: ['accounts', '*', 'firehose'], run: async ({ params }) => jsonResponse(200, await firehoses.switchOff(params[0]!)) },
        ] satisfies OperatorRoute[])
      : []),
    ...(options.extraRoutes ?? []),
  ];

  return async (req: WireRequest) => {
    if (!authorized(req.header('authorization'), tokenDigest)) {
      return errorResponse(401, 'The operator API needs Authorization: Bearer <admin token>', { 'WWW-Authenticate': 'Bearer' });
    }
    const url = splitUrl(req.url);
    const segs = segmentsOf(url.path).slice(1).map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return '\u0000';
      }
    });
    const atPath = routes.filter((r) => r.path.length === segs.length && r.path.every((p, i) => p === '*' || p === segs[i]));
    if (atPath.length === 0) return errorResponse(404, 'No operator call at this path');
    const chosen = atPath.find((r) => r.method === req.method);
    if (!chosen) return errorResponse(405, `Method ${req.method} not allowed here`, { Allow: atPath.map((r) => r.method).join(', ') });
    const params = segs.filter((_, i) => chosen.path[i] === '*');
    try {
      const limit = chosen.bodyLimit ?? bodyLimit;
      const bytes = await req.readBody(limit);
      if (bytes === null) return errorResponse(413, `The request body is over the limit of ${limit} bytes`, { Connection: 'close' });
      const text = decodeUtf8(bytes);
      const body = chosen.raw || text.trim() === '' ? {} : bodyParams(text, 'application/json');
      return await chosen.run({ params, body, query: new URLSearchParams(url.query), text });
    } catch (error) {
      if (error instanceof DomainError || error instanceof BodyError) return errorResponse(error.status, error.message);
      if (error instanceof ClockError) return errorResponse(400, error.message);
      throw error;
    }
  };
}

const errorOf = (answer: CallAnswer): string => String((answer.body as { error?: unknown } | undefined)?.error ?? 'Internal error');

function authorized(header: string | undefined, tokenDigest: Buffer): boolean {
  const m = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
  // Digests have one length whatever was sent, so the comparison takes the same time for every guess.
  return timingSafeEqual(digest(m ? m[1]! : ''), tokenDigest) && m !== null;
}
