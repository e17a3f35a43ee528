import { describe, expect, it } from 'vitest';
import { BadRequest } from '../calls/errors.ts';
import { completePackage } from './package.ts';
import { defaultService, namedService, requireService } from './package-service.ts';

const call = (services: string[]) => ({ account: { package: completePackage({ services }) } });

describe('the service a call names', () => {
  it('must be one of the package’s services, else a 400 naming the valid ones', () => {
    expect(namedService(call(['facebook', 'linkedin']), 'linkedin')).toBe('linkedin');
    expect(() => namedService(call(['facebook', 'linkedin']), 'twitter')).toThrow(new BadRequest('service is invalid; valid values are: facebook,linkedin'));
  });

  it('is optional for recordings and required for tasks and identity limits', () => {
    expect(namedService(call(['facebook']), undefined)).toBeUndefined();
    expect(requireService(call(['facebook']), 'facebook')).toBe('facebook');
  });

  it('defaults to facebook when the package has it, else to the package’s first service', () => {
    expect(defaultService(completePackage({ services: ['linkedin', 'facebook'] }))).toBe('facebook');
    expect(defaultService(completePackage({ services: ['linkedin'] }))).toBe('linkedin');
  });
});
