// The public face of @sdp/sim; what is not listed is internal (packaging/api/sim.api.md shows every change).
export { comparePackages, comparisonText, type Comparison, type PackageRun } from './compare-packages.ts';
export { limitingDays, type LimitingDayRow } from './limiting-days.ts';
export { compareHtml } from './report-compare-html.ts';
export { type Price, type PricePeriod } from './price.ts';
export { reportHtml } from './report-html.ts';
export { summaryText } from './report-table.ts';
export { runScenario, type RunOptions, type SimResult } from './run-scenario.ts';
export { ScenarioError, parseScenario, validateScenario, type AccountSpec, type Actor, type CallActor, type FirehoseActor, type InteractionBody, type RetryPolicy, type Scenario, type ScenarioIssue, type Schedule, type SetupCall, type StreamActor } from './scenario.ts';
export { simMain, writeRun } from './sim-cli.ts';
export { type BarStack, type ChartFrame, type LineSeries, type RefLine } from './svg-chart.ts';
export { type AccountTotals, type CapacityDay, type HourRow } from './usage-ledger.ts';
