/**
 * What a package costs the buyer: an amount, its currency and the period it pays for. A scenario may
 * write a plain number (`price: 600`), read as the default currency and period: US dollars a month.
 */
export interface Price {
  amount: number;
  /** ISO 4217 code: USD, EUR, GBP. */
  currency: string;
  per: PricePeriod;
}

export const PRICE_PERIODS = ['month', 'year'] as const;
export type PricePeriod = (typeof PRICE_PERIODS)[number];

export const DEFAULT_CURRENCY = 'USD';
export const DEFAULT_PRICE_PERIOD: PricePeriod = 'month';

/** The ISO 4217 codes this Node's ICU knows (a code it does not know cannot be formatted). */
const CURRENCIES: ReadonlySet<string> = new Set(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('currency') : []);

export const isCurrency = (code: string): boolean => /^[A-Z]{3}$/.test(code) && (CURRENCIES.size === 0 || CURRENCIES.has(code));

/** A price as the file writes it (a number, or `{amount, currency, per}`), with the defaults filled in. */
export function readPrice(raw: number | { amount: number; currency?: string | undefined; per?: PricePeriod | undefined }): Price {
  if (typeof raw === 'number') return { amount: raw, currency: DEFAULT_CURRENCY, per: DEFAULT_PRICE_PERIOD };
  return { amount: raw.amount, currency: raw.currency ?? DEFAULT_CURRENCY, per: raw.per ?? DEFAULT_PRICE_PERIOD };
}

const MONTHS: Record<PricePeriod, number> = { month: 1, year: 12 };

/** The price over `per` (a year's price is twelve months'), to compare prices paid over different periods. */
export const priceOver = (p: Price, per: PricePeriod): number => (p.amount / MONTHS[p.per]) * MONTHS[per];

/** An amount in a currency, whole where it is whole: `$600`, `€1,250.50`, `CHF 90`. */
export function money(amount: number, currency: string): string {
  const whole = Math.abs(amount - Math.round(amount)) < 0.005;
  return new Intl.NumberFormat('en-US', { style: 'currency', currency, currencyDisplay: 'symbol', minimumFractionDigits: whole ? 0 : 2, maximumFractionDigits: whole ? 0 : 2 }).format(amount);
}

/** `$600 a month`, `€7,200 a year`, `CA$900 a month`: en-US's symbols, which tell the dollars apart. */
export const priceText = (p: Price): string => `${money(p.amount, p.currency)} a ${p.per}`;
