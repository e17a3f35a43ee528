/** Times are milliseconds inside and whole epoch seconds on the wire (`created_at`, `start`, ...). */
export const epochSeconds = (ms: number): number => Math.floor(ms / 1000);
