export * from './settings.ts';
export * from './open-store.ts';
export * from './operator-api.ts';
export * from './server.ts';
export * from './demo-account.ts';
export * from './access-log.ts';
export * from './accounts-file.ts';
export * from './firehose-keeper.ts';

// ---- issue 17: push delivery's keeper ----
export * from './push-keeper.ts';
