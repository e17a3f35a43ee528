// autocannon ships no types; the scaling bench reads the few results it needs (LoadResult in scaling.ts).
declare module 'autocannon' {
  const autocannon: unknown;
  export default autocannon;
}
