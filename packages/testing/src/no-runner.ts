// `@sdp/testing/no-runner`: the kit without the store contract suite, so without vitest (fast-check only).
export { accountArb, asApiCall, fc, callArb, clockMoveArb, filterTextArb, packageArb, versionArb, type AccountInput, type CallSpec } from './arbitraries.ts';
export { DeciderSpec, deciderSpec, type ExpectedRefusal } from './decider-spec.ts';
export { AdvanceClockCommand, ApiCallCommand, CallBurstCommand, InvariantBroken, StreamChargeCommand, TaskBurstCommand, engineCommands, runEngineModel, type AllowanceModel, type EngineCommandOptions, type EngineModel, type EngineModelSetup, type EngineUnderTest, type ModelCommand } from './engine-model.ts';
export { readGuardRace, staleDecisions, type LoggedEvent, type ReadGuardRaceReport } from './read-guard-race.ts';
