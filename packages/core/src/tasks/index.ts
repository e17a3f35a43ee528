export * from './task-slot.ts';
export * from './handlers.ts';
