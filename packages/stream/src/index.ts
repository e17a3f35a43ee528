// The public face of @sdp/stream (docs/stream.md, docs/embedding.md).
export { StreamHost, type StreamHostOptions } from './stream-host.ts';
export { fetchStreamTarget, streamTarget, type StreamTarget } from './stream-target.ts';
export { rateHeaders } from './stream-answers.ts';
export { type ConnectionView } from './live-connection.ts';
export { ActionSplitter, readAction, type StreamAction } from './action-splitter.ts';
