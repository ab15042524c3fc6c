/** Percentile of a sample (nearest-rank). */
export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
