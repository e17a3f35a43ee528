export * from './settings.ts';
export * from './open-store.ts';
export * from './operator-api.ts';
export * from './server.ts';
export * from './demo-account.ts';
export * from './access-log.ts';
export * from './accounts-file.ts';
export * from './firehose-keeper.ts';
// ---- issue 13: the stand-in's toolbox ----
export * from './event-log.ts';
export * from './event-routes.ts';
export * from './faults.ts';
export * from './fault-routes.ts';
