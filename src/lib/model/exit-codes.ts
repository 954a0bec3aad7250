/**
 * The exit status is a bitmask OR'd over every chat of a run, the same with and without `--json`
 * (README "Exit status"):
 *
 * | bit | meaning |
 * |-----|---------|
 * | 1   | repairs were applied (`repair` only) |
 * | 2   | a chat is repairable and was not repaired |
 * | 4   | agent context is lost in a chat (unrecoverable), or part of it (degraded) |
 * | 8   | operational error: a PATH that does not exist or cannot be read, a permission error, a refused repair |
 * | 16  | usage error (bad flag or argument) |
 */
import type {ChatStatus} from './report.js'

export const EXIT_OK = 0
export const EXIT_REPAIRED = 1
export const EXIT_REPAIRABLE = 2
export const EXIT_CONTEXT_LOST = 4
export const EXIT_OPERATIONAL = 8
export const EXIT_USAGE = 16

/** The bit a chat of this status contributes to the exit status of `scan`. */
export function exitBitForStatus(status: ChatStatus): number {
  switch (status) {
    case 'healthy':
      return EXIT_OK
    case 'repairable':
      return EXIT_REPAIRABLE
    case 'unrecoverable':
    case 'degraded':
      return EXIT_CONTEXT_LOST
  }
}
