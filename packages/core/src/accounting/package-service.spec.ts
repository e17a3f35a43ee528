import { describe, expect, it } from 'vitest';
import { BadRequest } from '../calls/errors.ts';
import { Params } from '../calls/params.ts';
import { completePackage } from './package.ts';
import { defaultService, namedService, requireService } from './package-service.ts';

const call = (services: string[], params: Record<string, unknown>) => ({ account: { package: completePackage({ services }) }, params: new Params(params) });

describe('the service a call names', () => {
  it('must be one of the package’s services, else a 400 naming the valid ones', () => {
    expect(namedService(call(['facebook', 'linkedin'], { service: 'linkedin' }))).toBe('linkedin');
    expect(() => namedService(call(['facebook', 'linkedin'], { service: 'twitter' }))).toThrow(new BadRequest('service is invalid; valid values are: facebook,linkedin'));
  });

  it('is optional for recordings and required for tasks and identity limits', () => {
    expect(namedService(call(['facebook'], {}))).toBeUndefined();
    expect(() => requireService(call(['facebook'], {}))).toThrow(new BadRequest("Missing param 'service'"));
  });

  it('defaults to facebook when the package has it, else to the package’s first service', () => {
    expect(defaultService(completePackage({ services: ['linkedin', 'facebook'] }))).toBe('facebook');
    expect(defaultService(completePackage({ services: ['linkedin'] }))).toBe('linkedin');
  });
});
