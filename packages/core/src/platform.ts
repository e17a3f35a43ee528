import { Engine, type EngineOptions } from './pipeline/engine.ts';
import type { HandlerTable } from './handling/handler.ts';
import { identityAccess, identityHandlers } from './identities/index.ts';
import { historicsHandlers } from './historics/index.ts';
import { dpuHandlers } from './historics/dpu.ts';
import { taskHandlers } from './tasks/index.ts';
import { referenceHandlers } from './reference/index.ts';
import { previewHandlers } from './previews/index.ts';
import { PUSH_HANDLERS } from './push/handlers.ts';
import { SOURCE_HANDLERS } from './sources/handlers.ts';
import { filterHandlers } from './filters/handlers.ts';
import { recordingHandlers } from './recordings/index.ts';
import { analysisHandlers } from './analysis/index.ts';
import { usageHandlers } from './usage/index.ts';
import { streamHandlers } from './streams/stream-handlers.ts';
import { platformUpcasters } from './platform-events.ts';

/**
 * Every aggregate's endpoint handlers, in one table. Each module exports its own `HandlerTable`; this
 * is the one place they meet. A catalogue endpoint with no handler answers 501 (nothing charged).
 */
const MODULES: HandlerTable[] = [
  identityHandlers,
  historicsHandlers,
  taskHandlers,
  referenceHandlers,
  previewHandlers,
  PUSH_HANDLERS,
  SOURCE_HANDLERS,
  filterHandlers,
  dpuHandlers,
  recordingHandlers,
  analysisHandlers,
  usageHandlers,
  streamHandlers,
];

export const PLATFORM_HANDLERS: HandlerTable = Object.assign({}, ...MODULES);

/** An engine with every endpoint the platform builds, reading its events through the platform's schema. */
export function createEngine(options: Omit<EngineOptions, 'handlers'> & { handlers?: HandlerTable }): Engine {
  return new Engine({
    ...options,
    upcasters: options.upcasters ?? platformUpcasters(),
    identities: options.identities ?? identityAccess,
    handlers: { ...PLATFORM_HANDLERS, ...options.handlers },
  });
}
