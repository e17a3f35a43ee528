export * from './output-types.ts';
export * from './push-subscription.ts';
export * from './pull-page.ts';
export * from './feed.ts';
export * from './handlers.ts';
