import type { EndpointId } from '../catalogue/endpoints.ts';
import { termsOf, type ParamsOf } from '../contract/contract.ts';
import { readParams } from '../contract/read.ts';
import type { CallContext } from './handler.ts';

/**
 * The call's parameters as its endpoint's schema reads them (contract/params.ts): typed, the wire's
 * spellings already read, or a 400 naming the parameter and the rule. Read once per call, when the
 * handler first asks, so a refusal comes where the handler's judgement would have put it.
 */
export function paramsOf<Id extends EndpointId>(ctx: CallContext, id: Id): ParamsOf<Id> {
  if (ctx.endpoint.id !== id) throw new Error(`the handler of ${ctx.endpoint.id} read the parameters of ${id}`);
  return callParams(ctx) as ParamsOf<Id>;
}

/** As `paramsOf`, for the helpers several endpoints share: the fields they have in common. */
export function callParams(ctx: CallContext): Record<string, unknown> {
  return (ctx.params.read ??= readParams(termsOf(ctx.endpoint.id, ctx.version).params, ctx.params.raw)) as Record<string, unknown>;
}
