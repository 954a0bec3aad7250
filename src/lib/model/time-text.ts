/** Times in messages: ISO 8601 dates (UTC, to the millisecond); the JSON report keeps the numbers (ms since epoch). */

/** `ms` (ms since epoch) as `2026-11-28T10:15:29.970Z`; a value no date can hold (NaN, ±Infinity, out of range) as `<ms> ms`. */
export function isoTime(ms: number): string {
  const d = new Date(ms)
  return Number.isNaN(d.getTime()) ? `${ms} ms` : d.toISOString()
}

/**
 * Two times that differ, as `A ≠ B` in ISO dates; when both print the same (they differ by less than a
 * millisecond), the difference is added in ms.
 */
export function timesDiffer(a: number, b: number): string {
  const [x, y] = [isoTime(a), isoTime(b)]
  return x === y ? `${x} ≠ ${y} (${Math.abs(a - b).toFixed(3)} ms apart)` : `${x} ≠ ${y}`
}
