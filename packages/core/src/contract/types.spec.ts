import { describe, expectTypeOf, it } from 'vitest';
import type { AnswerOf, ParamsOf } from './contract.ts';

describe('types read from the schemas, for embedders', () => {
  it('ParamsOf gives each parameter its type and optionality', () => {
    expectTypeOf<ParamsOf<'push.create'>['name']>().toEqualTypeOf<string>();
    expectTypeOf<ParamsOf<'push.create'>['start']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ParamsOf<'push.get'>['include_finished']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<ParamsOf<'push.get'>['order_dir']>().toEqualTypeOf<'asc' | 'desc' | undefined>();
    expectTypeOf<ParamsOf<'historics.prepare'>['sources']>().toEqualTypeOf<string[]>();
  });

  it('AnswerOf gives the body of a success answer', () => {
    expectTypeOf<AnswerOf<'push.create'>['id']>().toEqualTypeOf<string>();
    expectTypeOf<AnswerOf<'account.identity.create'>['api_key']>().toEqualTypeOf<string>();
    expectTypeOf<AnswerOf<'core.validate'>['dpu']>().toEqualTypeOf<string>();
    expectTypeOf<Extract<AnswerOf<'push.get'>, { subscriptions: unknown }>['count']>().toEqualTypeOf<number>();
  });
});
