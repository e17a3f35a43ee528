// The public face of @sdp/server; what is not listed is internal (packaging/api/server.api.md shows every change).
export { type AccessLog } from './access-log.ts';
export { type OpenedAccounts } from './accounts-file.ts';
export { type DemoAccount } from './demo-account.ts';
export { type OpenedStore } from './open-store.ts';
export { createOperatorApi, type OperatorOptions } from './operator-api.ts';
export { startServer, type RunningSdp, type StartHooks } from './server.ts';
export { type HandedServer } from './handed-connections.ts';
export { SettingsError, defaultSettings, readSettings, type ServerSettings, type Setting } from './settings.ts';
export { PUSH_TICK_MS, PushKeeper } from './push-keeper.ts';
export { ImportError, exportEvents, importEvents, parseEventLines } from './event-log.ts';
export { FAULT_STATUSES, FaultInjector, type FaultRule, type FaultStatus } from './faults.ts';
