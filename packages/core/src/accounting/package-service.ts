import { oneOf } from '../calls/errors.ts';
import type { Params } from '../calls/params.ts';
import type { AccountPackage } from './package.ts';

/** What a call carries that the service rule reads. */
interface ServiceCall {
  account: { package: AccountPackage };
  params: Params;
}

/** A service must be one of the package's: anything else is a 400 naming the valid ones. */
export function packageService(services: readonly string[], service: string): string {
  return oneOf('service', service, services);
}

/** The service a call names (path `{service}` or parameter), checked against the package; undefined if none. */
export function namedService(ctx: ServiceCall): string | undefined {
  const service = ctx.params.string('service');
  return service === undefined ? undefined : packageService(ctx.account.package.services, service);
}

/** As `namedService`, for endpoints that cannot do without one (tasks, identity limits). */
export function requireService(ctx: ServiceCall): string {
  return packageService(ctx.account.package.services, ctx.params.requireString('service'));
}

/** The service the service-less insight paths serve: `facebook` when the package has it, else its first. */
export function defaultService(pkg: AccountPackage): string {
  return pkg.services.includes('facebook') ? 'facebook' : pkg.services[0]!;
}
