/** Types for route.js (the page loads it as it is; tests import it through these). */
export declare const VIEW_IDS: readonly string[];
export declare const REQUEST_FILTERS: readonly string[];
/** The request journal's filters, as `GET /_admin/requests` takes them. */
export type RequestFilters = Partial<Record<'username' | 'path' | 'status' | 'since', string>>;
export interface Place {
  view: string;
  account: string | null;
  filters?: RequestFilters;
}
export declare function parseHash(hash: string): Place & { token: string | null; filters: RequestFilters };
export declare function formatHash(place: Place): string;
