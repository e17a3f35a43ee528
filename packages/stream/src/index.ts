// The public face of @sdp/stream (docs/stream.md, docs/embedding.md).
export { StreamHost, streamTarget, rateHeaders, type StreamHostOptions, type StreamTarget } from './stream-host.ts';
export { type ConnectionView } from './live-connection.ts';
export { ActionSplitter, readAction, type StreamAction } from './action-splitter.ts';
