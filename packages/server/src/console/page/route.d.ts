/** Types for route.js (the page loads it as it is; tests import it through these). */
export declare const VIEW_IDS: readonly string[];
export interface Place {
  view: string;
  account: string | null;
}
export declare function parseHash(hash: string): Place & { token: string | null };
export declare function formatHash(place: Place): string;
