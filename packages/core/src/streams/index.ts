export * from './stream-connections.ts';
export { offerToStreams, type StreamMatchContext } from './match-streams.ts';
export { StreamGate, STREAM_SUBSCRIBE_COST, type StreamCredentials, type Subscribed } from './stream-gate.ts';
