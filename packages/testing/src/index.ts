// `@sdp/testing`: everything; `@sdp/testing/no-runner` is the same without the store contract suite (vitest).
export { accountArb, asApiCall, fc, callArb, clockMoveArb, filterTextArb, packageArb, versionArb, type AccountInput, type CallSpec } from './arbitraries.ts';
export { DeciderSpec, deciderSpec, type ExpectedRefusal } from './decider-spec.ts';
export { AdvanceClockCommand, ApiCallCommand, CallBurstCommand, InvariantBroken, StreamChargeCommand, TaskBurstCommand, engineCommands, runEngineModel, type AllowanceModel, type EngineCommandOptions, type EngineModel, type EngineModelSetup, type EngineUnderTest, type ModelCommand } from './engine-model.ts';
export { storeContract, type StoreContractOptions } from './store-contract.ts';
export { hostLivenessContract } from './host-liveness-contract.ts';
export { readGuardRace, staleDecisions, type LoggedEvent, type ReadGuardRaceReport } from './read-guard-race.ts';
export { expectRaceHeldOverConnections } from './read-guard-race-checks.ts';
export { paramsArb } from './params-arbitraries.ts';
