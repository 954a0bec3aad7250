/**
 * An `opencode export` file as a chat of `check` (the store family's diagnosis with OpenCode's names). Loaded
 * only when an export is checked or written: it loads the export checker, and zod with it.
 */
import type {ChatReport} from '../../model/report.js'
import {diagnoseExportFile as diagnoseStoreExport} from '../opencode-family/export-chat.js'
import {OPENCODE} from './layout.js'

/** The report body (without `path`) of one `opencode export` file. */
export function diagnoseExportFile(name: string, data: Buffer, mtimeMs: number): Omit<ChatReport, 'path'> {
  return diagnoseStoreExport(OPENCODE, name, data, mtimeMs)
}
