export * from './limiting-day.ts';
