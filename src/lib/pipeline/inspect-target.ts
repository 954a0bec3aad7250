/**
 * What `inspect CHAT_DIR [--session ID]` reports, as plain data: the scan of the one chat named (the agents'
 * indexes read as scan reads them, so a session's verdict is the same; an index chat itself is not inspected),
 * its report and its inspection; or the usage error when CHAT_DIR holds no chat, several, or none of that id.
 * Read-only; prints nothing.
 */
import type {ScannedChat} from '../model/adapter.js'
import type {Report} from '../model/report.js'
import {storeChatPath} from './chat-path.js'
import {inspectChat, type Inspection} from './inspect.js'
import {buildReport} from './report.js'
import {scanPaths} from './scan.js'

export interface InspectedTarget {
  report: Report
  inspection: Inspection | null
  /** The scanned chat inspected (null when the scan had errors and found none). */
  chat: ScannedChat | null
}

/** The inspection of the chat at `chatDir` (with `session`, the chat of that id there), or `{usage}`: why not. */
export async function inspectTarget(chatDir: string, sessionFlag: string | undefined, opts: {home: string; env: NodeJS.ProcessEnv; version: string}): Promise<InspectedTarget | {usage: string}> {
  const {target, session} = storeChatPath(chatDir, sessionFlag)
  const result = await scanPaths([target], {home: opts.home, env: opts.env, indexes: true})
  result.chats = result.chats.filter((c) => !c.snapshot.unit.index)
  if (session !== undefined) {
    result.chats = result.chats.filter((c) => c.report.id === session)
    if (result.errors.length === 0 && result.chats.length === 0) return {usage: `no chat with id ${session} in ${target}; \`chatdoctor scan ${target}\` lists the ids`}
  }
  if (result.errors.length === 0 && result.chats.length !== 1) {
    const why = result.chats.length > 1 ? `${chatDir} holds ${result.chats.length} chats; give one chat dir, or pick one with --session <id>` : result.skipped.length > 0 ? `nothing to inspect in ${chatDir}: ${result.skipped[0].reason}` : `no chat found at ${chatDir}`
    return {usage: why}
  }
  const report = buildReport({command: 'inspect', version: opts.version, chats: result.chats.map((c) => c.report), skipped: result.skipped, errors: result.errors})
  const chat = result.chats.length === 1 ? result.chats[0] : null
  return {report, inspection: chat ? inspectChat(chat) : null, chat}
}
