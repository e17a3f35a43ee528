import { applySemanticFault, DomainError, type Engine } from '@sdp/core';
import { jsonResponse } from '@sdp/http';
import type { FaultInjector } from './faults.ts';
import type { OperatorRoute } from './operator-api.ts';
import { FaultSeedBody, readBody } from './operator-bodies.ts';

/**
 * Fault injection (docs/contract.md#toolbox): rules at `/_admin/faults`, the generator's seed, and semantic
 * faults applied at once through the aggregates at `/_admin/faults/effects`.
 */
export function faultRoutes(engine: Engine, faults: FaultInjector): OperatorRoute[] {
  return [
    { method: 'POST', path: ['faults'], run: async ({ body }) => jsonResponse(201, faults.add(body)) },
    { method: 'GET', path: ['faults'], run: async () => jsonResponse(200, { faults: faults.list() }) },
    {
      method: 'DELETE',
      path: ['faults'],
      run: async () => {
        faults.clear();
        return { status: 204, headers: {} };
      },
    },
    {
      method: 'DELETE',
      path: ['faults', '*'],
      run: async ({ params }) => {
        if (!faults.remove(params[0]!)) throw new DomainError(404, `No fault rule ${params[0]}`);
        return { status: 204, headers: {} };
      },
    },
    {
      method: 'POST',
      path: ['faults', 'seed'],
      run: async ({ body }) => {
        faults.seed(readBody(FaultSeedBody, body).seed);
        return { status: 204, headers: {} };
      },
    },
    {
      method: 'POST',
      path: ['faults', 'effects'],
      run: async ({ body }) => jsonResponse(200, await applySemanticFault(engine, body.effect, body.username, body.allowance)),
    },
  ];
}
