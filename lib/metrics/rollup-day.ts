/** YYYY-MM-DD (UTC) of an epoch-ms instant: the day a rollup row belongs to. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}
