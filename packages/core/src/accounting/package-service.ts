import { oneOf } from '../calls/errors.ts';
import type { AccountPackage } from './package.ts';

/** What a call carries that the service rule reads. */
interface ServiceCall {
  account: { package: AccountPackage };
}

/** A service must be one of the package's: anything else is a 400 naming the valid ones. */
export function packageService(services: readonly string[], service: string): string {
  return oneOf('service', service, services);
}

/** The service a call names (path `{service}` or parameter), checked against the package; undefined if none. */
export function namedService(ctx: ServiceCall, service: string | undefined): string | undefined {
  return service === undefined ? undefined : packageService(ctx.account.package.services, service);
}

/** As `namedService`, for endpoints that cannot do without one (tasks, identity limits). */
export function requireService(ctx: ServiceCall, service: string): string {
  return packageService(ctx.account.package.services, service);
}

/** The service the service-less insight paths serve: `facebook` when the package has it, else its first. */
export function defaultService(pkg: AccountPackage): string {
  return pkg.services.includes('facebook') ? 'facebook' : pkg.services[0]!;
}
