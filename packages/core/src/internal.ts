// @sdp/core/internal: what the other @sdp packages share with the core and an embedder does not call:
// the stream host's calls, liveness and relay, the firehose's and push keeper's handles, the JSON schemas the
// OpenAPI documents are written from, what a scenario is checked against. It may change
// in any release, with the packages that use it; docs/embedding.md#installing says who imports which.
export { answerJsonSchemas, errorJsonSchema, exampleOf, isRefusedParam, paramsJsonSchema, resolveRef, type JsonSchema, type NamedSchemas } from './contract/json-schema.ts';
export { catchUpFirehose, feed, firehose, FIREHOSE_SWITCH_TYPES, switchFirehoseOff, switchFirehoseOn, type FirehoseProgress, type FirehoseState } from './firehose/firehose.ts';
export { PUSH_WAKE_EVENT_TYPES, pushWakeAccount } from './push/push-delivery.ts';
export { recordInteractions } from './recordings/record-interactions.ts';
export { RecordedSet } from './recording-index/recording-index.ts';
export { RECORDED_TYPE, recordedCountsOnly } from './recording-index/capacity.ts';
export { matchedStreamHashes } from './streams/match-streams.ts';
export { STREAM_SUBSCRIBE_COST } from './streams/stream-handlers.ts';
export { StreamCalls, limitOf, type StreamCredentials } from './streams/stream-calls.ts';
export { DEFAULT_LAPSE_MS, HOST_LOST, type StreamHosting } from './streams/lost-hosts.ts';
// The stream product's shared figures: the relay the stream host follows, a connection's limits, licences.
export { MAX_HASHES_PER_CONNECTION, MAX_LICENCE_TYPES, STREAM_USAGE_KEPT_MS, licenceTypeOf, type DeliveredCounts, type StreamTransport } from './streams/stream-connections.ts';
export { MATCHED_TYPE, MATCHES_KEPT_MS, RELAY_STREAM_PREFIX, matchedRelayStream, relayBytesPerWindow, type MatchedEvent, type RelayNotice } from './streams/matched-relay.ts';
