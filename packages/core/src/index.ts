export * from './engine/index.ts';
export * from './catalogue/index.ts';
export * from './accounting/index.ts';
export * from './platform.ts';
export * from './identities/index.ts';
export * from './historics/index.ts';
export * from './tasks/index.ts';
export * from './previews/index.ts';
export * from './filters/index.ts';
export * from './push/index.ts';
export * from './sources/index.ts';
export * from './days/index.ts';
export * from './recordings/index.ts';
export * from './recording-index/index.ts';
export * from './analysis/index.ts';
export * from './firehose/index.ts';
export * from './usage/index.ts';

// ---- issue 17: push delivery by connectors (outbound port, http connector, PushDelivery) ----
export * from './push/delivery.ts';
export * from './push/connector.ts';
export * from './push/batch.ts';
export * from './push/http-connector.ts';
export * from './push/push-delivery.ts';
