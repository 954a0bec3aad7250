/**
 * Builds the `--json` report (schemaVersion 1) and its exit status from a scan result. Pure.
 */
import {EXIT_OPERATIONAL, exitBitForStatus} from '../model/exit-codes.js'
import type {ChatReport, OperationalError, Report, Skipped} from '../model/report.js'
import {SCHEMA_VERSION} from '../model/schema-version.js'

/** Counts per status. */
export function summarize(chats: ChatReport[], skipped: Skipped[]): Report['summary'] {
  const s = {chats: chats.length, healthy: 0, repairable: 0, unrecoverable: 0, degraded: 0, skipped: skipped.length}
  for (const c of chats) s[c.status]++
  return s
}

/** The `scan` exit status: the status bits OR'd over every chat, plus 8 when anything could not be read. */
export function scanExitCode(chats: ChatReport[], errors: OperationalError[]): number {
  let code = errors.length > 0 ? EXIT_OPERATIONAL : 0
  for (const c of chats) code |= exitBitForStatus(c.status)
  return code
}

/** Assembles a report. `exitCode` defaults to the `scan` exit status. */
export function buildReport(args: {
  command: string
  version: string
  chats: ChatReport[]
  skipped: Skipped[]
  errors: OperationalError[]
  exitCode?: number
}): Report {
  return {
    schemaVersion: SCHEMA_VERSION,
    command: args.command,
    chatdoctorVersion: args.version,
    exitCode: args.exitCode ?? scanExitCode(args.chats, args.errors),
    summary: summarize(args.chats, args.skipped),
    errors: args.errors,
    skipped: args.skipped,
    chats: args.chats,
  }
}

/**
 * What a report's head (`exitCode`, `summary`) needs of its chats, counted one chat at a time, for a report
 * whose chats are written out as they come instead of held (`scan --json`). `head` gives the same values
 * `buildReport` gives over the same chats.
 */
export class ChatTally {
  private readonly counts = {healthy: 0, repairable: 0, unrecoverable: 0, degraded: 0}
  private chats = 0
  private bits = 0
  /** Chats judged by the ends of a file only (`verified: false`, `scan --quick`). */
  unverified = 0

  add(chat: Pick<ChatReport, 'status' | 'verified'>): void {
    this.chats++
    this.counts[chat.status]++
    this.bits |= exitBitForStatus(chat.status)
    if (chat.verified === false) this.unverified++
  }

  /** The `scan` exit status over the chats counted (`scanExitCode`). */
  exitCode(errors: readonly OperationalError[]): number {
    return (errors.length > 0 ? EXIT_OPERATIONAL : 0) | this.bits
  }

  /** The report without its chats, in `buildReport`'s key order (`chats` goes after `skipped`). */
  head(args: {command: string; version: string; skipped: Skipped[]; errors: OperationalError[]; exitCode?: number}): Omit<Report, 'chats'> {
    return {
      schemaVersion: SCHEMA_VERSION,
      command: args.command,
      chatdoctorVersion: args.version,
      exitCode: args.exitCode ?? this.exitCode(args.errors),
      summary: {chats: this.chats, ...this.counts, skipped: args.skipped.length},
      errors: args.errors,
      skipped: args.skipped,
    }
  }
}

/** The report of a usage error (exit 16): still one JSON object, with `error`. */
export function usageErrorReport(command: string, version: string, message: string): Report {
  return {...buildReport({command, version, chats: [], skipped: [], errors: [], exitCode: 16}), error: message}
}
