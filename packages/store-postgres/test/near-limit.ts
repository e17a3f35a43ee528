import type { HandlerTable } from '@sdp/core';

/** One account, one credit window (a fixed instant), an allowance of 80 balance calls (cost 25). */
export const ADMISSION_TIME = Date.parse('2026-03-01T10:30:00Z');
export const ADMISSION_ACCOUNT = { username: 'near-limit', api_key: 'near-limit-key-00000000000000001', package: { credits_per_hour: 2000 } };
export const BALANCE_COST = 25;
export const admissionHandlers: HandlerTable = { 'core.balance': () => ({ body: { balance: { credit: 0 } } }) };
