/**
 * What the HTML report (`inspect --html`, `check --format html`) shows of each chat: its inspection
 * (timeline, tears, damaged lines, ranking, salvage, account) and the dry-run repair of it (the actions
 * `repair` would take and what would be lost), from the same scan as the text output. Pure: reads no
 * files, writes none (the snapshot holds the bytes).
 */
import {adapterByName} from '../formats/index.js'
import type {FormatAdapter, ScannedChat} from '../model/adapter.js'
import type {Inspection} from '../model/inspect.js'
import type {ChatReport} from '../model/report.js'
import {inspectChat} from './inspect.js'
import {planChat} from './plan.js'
import {buildRepairReport} from './repair-report.js'

/** One chat of the HTML report. */
export interface HtmlChat {
  inspection: Inspection
  /** The chat as a `repair --dry-run` reports it (`actions`, `repair`); null when no plan could be made. */
  dryRun: ChatReport | null
  /** The bundle the chat was read from (home as `~`), for `check` of archives. */
  bundle?: string
}

/** A diagnosed chat as `scan` or `check` gives it; the adapter is looked up by the report's format when absent. */
export type HtmlInput = Pick<ScannedChat, 'report' | 'snapshot'> & {adapter?: FormatAdapter}

/** The inspection and dry-run repair of each chat, in the order given. */
export function htmlReportChats(chats: readonly HtmlInput[], ctx: {home: string; version: string}): HtmlChat[] {
  return chats.map((c) => {
    const inspection = inspectChat(c)
    const adapter = c.adapter ?? adapterByName(c.report.format)
    let dryRun: ChatReport | null = null
    if (adapter) {
      try {
        const plan = planChat({report: c.report, snapshot: c.snapshot, adapter})
        dryRun = buildRepairReport({version: ctx.version, home: ctx.home, dryRun: true, repairId: '', plans: [plan], results: new Map(), skipped: [], errors: [], interrupted: false}).chats[0]
      } catch {
        // A snapshot a plan cannot be made from (e.g. a chat read from an archive without the bytes it needs):
        // the report says no plan was made instead of failing the whole report.
        dryRun = null
      }
    }
    return {inspection, dryRun, ...(c.report.bundle ? {bundle: c.report.bundle} : {})}
  })
}
