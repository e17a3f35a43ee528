export * from './system-clock.ts';
export * from './manual-clock.ts';
export * from './scheduler.ts';
export * from './random-ids.ts';
