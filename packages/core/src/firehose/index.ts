export * from './seeded-random.ts';
export * from './synthetic-interactions.ts';
export * from './firehose.ts';
