import { seeDocs, type Command } from './command.ts';
import { EXPORT_USAGE, exportCommand } from './commands/export-events.ts';
import { IMPORT_USAGE, importCommand } from './commands/import-events.ts';
import { OPENAPI_USAGE, openApiCommand } from './commands/openapi.ts';

/** The stand-in's toolbox on the command line (docs/contract.md#toolbox): portable state and the OpenAPI documents. */
export const exportEventsCommand: Command = {
  name: 'export',
  summary: 'write the event log as NDJSON (docs/portable-state.md)',
  help: () => `usage: ${EXPORT_USAGE}\n\n${seeDocs('docs/portable-state.md')}`,
  run: (argv, env) => exportCommand(argv, env),
};

export const importEventsCommand: Command = {
  name: 'import',
  summary: 'read an exported event log into an empty store (docs/portable-state.md)',
  help: () => `usage: ${IMPORT_USAGE}\n\n${seeDocs('docs/portable-state.md')}`,
  run: (argv, env) => importCommand(argv, env),
};

export const openApiDocumentCommand: Command = {
  name: 'openapi',
  summary: "write a version's OpenAPI 3.1 document (docs/openapi.md)",
  help: () => `usage: ${OPENAPI_USAGE}\n\n${seeDocs('docs/openapi.md')}`,
  run: async (argv, env) => openApiCommand(argv, env),
};
