// The public face of @sdp/http; what is not listed is internal (packaging/api/http.api.md shows every change).
export { DEFAULT_BODY_LIMIT, createApiHandler, encode, type CallAnswerer, type HttpOptions } from './api-handler.ts';
export { BodyError, bodyParams, decodeUtf8 } from './body.ts';
export { readCredentials, type Credentials } from './credentials.ts';
export { createFetchHandler, fetchHandlerFor } from './fetch-handler.ts';
export { ConnectionBudget, DEFAULT_MAX_PER_ADDRESS, DESCRIPTOR_MARGIN, defaultMaxConnections, processBudget, type ConnectionLimits } from './connection-budget.ts';
export { answerClientError, bindPort, CLOSE_GRACE_MS, createNodeListener, createNodeServer, keepRequestOpen, listen, localUrl, nodeListenerFor, REQUEST_TIMEOUT_MS, serve, type RunningServer } from './node-listener.ts';
export { segmentsOf, splitUrl, type Route } from './route.ts';
export { samplePath } from './sample-paths.ts';
export { CLIENT_GONE_STATUS, ClientGone, errorResponse, jsonResponse, type AccessEntry, type WireHandler, type WireRequest, type WireResponse } from './wire.ts';
export { OUTBOUND_TIMEOUT_MS, nodeOutbound, type NodeOutboundOptions } from './outbound.ts';
export { RATE_LIMIT_HEADER_STYLES, type InjectedFault, type RateLimitHeaders } from './api-handler.ts';
export { openApiDocument, type OpenApiOptions } from './openapi.ts';
export { FixedBody, type FixedBodyOptions } from './fixed-body.ts';
