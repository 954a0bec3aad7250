/**
 * Measures an OpenCode session's context from its readable messages and parts, and finds the places where its
 * structure loses part of that context. One function for the three places a session lives: the JSON tree,
 * the database, an export file. Pure. Counting rules: peer-formats.md §1.9.
 */
import type {SessionContext} from '../../model/report.js'

/** A message as read from any store: its info (null when unreadable) and its readable parts. */
export interface SessionMessage {
  id: string
  /** The parsed message info, or null when its file/row could not be read. */
  info: Record<string, unknown> | null
  /** Parsed parts, in id order. */
  parts: Array<Record<string, unknown>>
  /** How many of this message's parts exist but could not be read. */
  unreadableParts: number
}

/** A structural loss of context that the agent would not notice when it loads the session. */
export type ContextIssue =
  /** A `completed` tool part with no `state.output` string: the model will not see what the tool returned. */
  | {kind: 'tool-output-missing'; messageId: string; partId: string}
  /** A readable message with no part left at all (none written, or all gone). */
  | {kind: 'message-without-parts'; messageId: string}
  /** An assistant message whose `parentID` names no user message of the session. */
  | {kind: 'parent-missing'; messageId: string; parentId: string}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Zero counts. */
export function emptyContext(): SessionContext {
  return {userTurns: 0, assistantMessages: 0, messages: 0, parts: 0, toolCompleted: 0, toolPending: 0, toolError: 0, compactionParts: 0}
}

/** Counts context and lists structural losses over messages in id order. */
export function measureSession(messages: SessionMessage[]): {context: SessionContext; issues: ContextIssue[]} {
  const context = emptyContext()
  const issues: ContextIssue[] = []
  const users = new Set<string>()
  for (const m of messages) if (m.info?.role === 'user') users.add(m.id)
  for (const m of messages) {
    if (m.info === null) continue
    context.messages++
    if (m.info.role === 'user') context.userTurns++
    if (m.info.role === 'assistant') {
      context.assistantMessages++
      const parent = m.info.parentID
      if (typeof parent === 'string' && !users.has(parent)) issues.push({kind: 'parent-missing', messageId: m.id, parentId: parent})
    }
    if (m.parts.length === 0) issues.push({kind: 'message-without-parts', messageId: m.id})
    for (const p of m.parts) {
      context.parts++
      if (p.type === 'compaction') context.compactionParts++
      if (p.type !== 'tool' || !isObj(p.state)) continue
      const status = p.state.status
      if (status === 'completed') {
        context.toolCompleted++
        if (typeof p.state.output !== 'string') issues.push({kind: 'tool-output-missing', messageId: m.id, partId: String(p.id)})
      } else if (status === 'pending' || status === 'running') context.toolPending++
      else if (status === 'error') context.toolError++
    }
  }
  return {context, issues}
}
