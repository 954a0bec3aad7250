/**
 * Gemini CLI's session records and how its loader replays them.
 *
 * A session file holds one JSON object per line (new-agents.md §1.2): a metadata line
 * (`{sessionId, projectHash, startTime, lastUpdated, kind}`, first, and again at every resumed start), message
 * records (`{id, timestamp, type, content, …}`; the same `id` is appended again on every update and the last one
 * wins), `{"$set": {…}}` metadata updates (one holding `messages` is a full checkpoint that replaces every message
 * before it) and `{"$rewindTo": "<id>"}` (drops that message and every later one; an unknown id drops all).
 *
 * The replay below is the loader's (`loadConversationRecord`, packages/core/src/services/chatRecordingService.ts,
 * the same in the 0.61.0 bundle): records in file order, a message map that keeps the position of an id's first
 * appearance, a file that loads only when the merged metadata has `sessionId` and `projectHash` (otherwise the
 * whole file is tried as one legacy JSON document). What the CLI's start-up treats as a session worth keeping
 * (`getAllSessionFiles`, packages/cli/src/utils/sessionUtils.ts): a loaded file with a `sessionId`, "resumable"
 * content (`isResumableMessageRecord`) and a `kind` other than `subagent`; every other session file of the chats
 * folder is deleted at the next start (sessionCleanup.ts).
 */

/** A parsed record (one line). */
export type GeminiRecord = Record<string, unknown>

/** Message `type`s the CLI records (chatRecordingTypes.ts). */
export const MESSAGE_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning'])

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null
}

/** The metadata line (or a whole legacy document on one line): `sessionId` and `projectHash` strings. */
export function isMetaRecord(v: GeminiRecord): boolean {
  return typeof v.sessionId === 'string' && typeof v.projectHash === 'string'
}

/** True when a parsed record looks like Gemini CLI's (for detection by content). */
export function isGeminiRecord(v: GeminiRecord): boolean {
  if (isMetaRecord(v)) return 'startTime' in v || 'lastUpdated' in v || 'messages' in v
  if (typeof v.$rewindTo === 'string') return true
  if (isObj(v.$set) && !Array.isArray(v.$set)) return true
  return typeof v.id === 'string' && typeof v.type === 'string' && MESSAGE_TYPES.has(v.type) && 'content' in v && !('uuid' in v) && !('payload' in v)
}

/** The text a part list stands for, as the CLI's `partListUnionToString` (verbose) writes it. */
export function partsText(value: unknown): string {
  if (!value) return ''
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(partsText).join('')
  if (!isObj(value)) return ''
  if (value.videoMetadata !== undefined) return '[Video Metadata]'
  if (value.thought !== undefined) return `[Thought: ${String(value.thought)}]`
  if (value.codeExecutionResult !== undefined) return '[Code Execution Result]'
  if (value.executableCode !== undefined) return '[Executable Code]'
  if (value.fileData !== undefined) return '[File Data]'
  if (value.functionCall !== undefined) return `[Function Call: ${String((value.functionCall as {name?: unknown})?.name)}]`
  if (value.functionResponse !== undefined) return `[Function Response: ${String((value.functionResponse as {name?: unknown})?.name)}]`
  if (value.inlineData !== undefined) return '[Media]'
  return typeof value.text === 'string' ? value.text : ''
}

/** User content the CLI never resumes or sends back (`isIgnoredUserContent`): empty, commands, injected context. */
export function isIgnoredUserText(trimmed: string): boolean {
  return trimmed.length === 0 || trimmed.startsWith('/') || trimmed.startsWith('?') || trimmed.startsWith('<session_context>') || trimmed.startsWith('<hook_context>')
}

/** The CLI's `isResumableMessageRecord`: a user message that is not ignored, or a model message with something in it. */
export function isResumable(m: GeminiRecord): boolean {
  const text = m.content ? partsText(m.content) : ''
  if (m.type === 'user') return !isIgnoredUserText(text.trim())
  if (m.type === 'gemini') return text.trim().length > 0 || (Array.isArray(m.toolCalls) && m.toolCalls.length > 0) || (Array.isArray(m.thoughts) && m.thoughts.length > 0)
  return false
}

/**
 * A prompt: a `user` message the model sees as the user's own words: not ignored, and no tool result in it
 * (a `functionResponse` part is the tool's answer sent back as a user turn; new-agents.md §1.3).
 */
export function isPrompt(m: GeminiRecord): boolean {
  if (m.type !== 'user' || !isResumable(m)) return false
  const c = m.content
  if (Array.isArray(c)) return !c.some((p) => isObj(p) && p.functionResponse !== undefined) && c.some((p) => typeof p === 'string' || (isObj(p) && typeof p.text === 'string'))
  return typeof c === 'string'
}

/** What the loader makes of a list of records. */
export interface Replay {
  /** The merged metadata (`$set` updates and metadata lines, in order). */
  metadata: GeminiRecord
  /** The messages, in the loader's order, last record per id. */
  messages: GeminiRecord[]
  /** The loader accepts the file: the merged metadata has a non-empty `sessionId` and `projectHash`. */
  loads: boolean
  /** Metadata lines (the first one is the session's start; every resumed start writes another). */
  metaLines: number
  /** `$set` records holding a full `messages` checkpoint (one per resumed start). */
  checkpoints: number
  /** `$rewindTo` records. */
  rewinds: number
}

/** Replays records in file order the way the CLI's loader does. */
export function replay(records: readonly GeminiRecord[]): Replay {
  let metadata: GeminiRecord = {}
  const map = new Map<string, GeminiRecord>()
  let metaLines = 0
  let checkpoints = 0
  let rewinds = 0
  const addAll = (msgs: unknown) => {
    if (!Array.isArray(msgs)) return
    for (const m of msgs) if (isObj(m) && typeof m.id === 'string') map.set(m.id, m)
  }
  for (const r of records) {
    if (typeof r.$rewindTo === 'string') {
      rewinds++
      let found = false
      for (const id of [...map.keys()]) {
        if (id === r.$rewindTo) found = true
        if (found) map.delete(id)
      }
      if (!found) map.clear()
    } else if (typeof r.id === 'string') {
      map.set(r.id, r)
    } else if (isObj(r.$set)) {
      const set = r.$set as GeminiRecord
      if (Array.isArray(set.messages)) {
        checkpoints++
        map.clear()
        addAll(set.messages)
      }
      metadata = {...metadata, ...set}
    } else if (isMetaRecord(r)) {
      metaLines++
      metadata = {...metadata, ...r}
      addAll(r.messages)
    }
  }
  const loads = typeof metadata.sessionId === 'string' && metadata.sessionId !== '' && typeof metadata.projectHash === 'string' && metadata.projectHash !== ''
  return {metadata, messages: [...map.values()], loads, metaLines, checkpoints, rewinds}
}

function timeOf(v: GeminiRecord): number | null {
  if (typeof v.timestamp !== 'string') return null
  const t = Date.parse(v.timestamp)
  return Number.isNaN(t) ? null : t
}

/** Counts over a replayed message list. */
export interface MessageCounts {
  /** Prompts (user turns). */
  prompts: number
  /** Prompts followed, before the next prompt, by a model message with something in it. */
  answered: number
  /** Model messages. */
  modelMessages: number
  /** Tool calls: distinct ids of `toolCalls[]` entries and of `functionCall` parts (as a checkpoint stores them). */
  toolCalls: number
  /** Tool calls with a recorded result (a `toolCalls[]` result or final status, or a `functionResponse` part). */
  toolCallsWithResult: number
  /** The newest prompt's `timestamp`, ms since epoch. */
  newestPromptAt: number | null
  /** The newest message `timestamp`, ms since epoch. */
  lastActivityAt: number | null
  /** Resumable messages (the CLI keeps a session only when it has one). */
  resumable: number
  /** The last prompt has no answer (the session stopped before the model's reply was written). */
  lastUnanswered: boolean
}

/** Counts prompts, answers and tool calls of a message list. */
export function countMessages(messages: readonly GeminiRecord[]): MessageCounts {
  const c: MessageCounts = {prompts: 0, answered: 0, modelMessages: 0, toolCalls: 0, toolCallsWithResult: 0, newestPromptAt: null, lastActivityAt: null, resumable: 0, lastUnanswered: false}
  let open = false
  const calls = new Set<string>()
  const results = new Set<string>()
  let anonymous = 0
  const callId = (v: unknown): string | null => (isObj(v) && typeof v.id === 'string' ? v.id : null)
  for (const m of messages) {
    if (Array.isArray(m.content)) {
      for (const p of m.content) {
        if (!isObj(p)) continue
        if (p.functionCall !== undefined) {
          const id = callId(p.functionCall)
          if (id === null) anonymous++
          else calls.add(id)
        }
        if (p.functionResponse !== undefined) {
          const id = callId(p.functionResponse)
          if (id !== null) results.add(id)
        }
      }
    }
    const t = timeOf(m)
    if (t !== null && (c.lastActivityAt === null || t > c.lastActivityAt)) c.lastActivityAt = t
    if (isResumable(m)) c.resumable++
    if (isPrompt(m)) {
      c.prompts++
      open = true
      if (t !== null && (c.newestPromptAt === null || t > c.newestPromptAt)) c.newestPromptAt = t
      continue
    }
    if (m.type !== 'gemini') continue
    c.modelMessages++
    if (Array.isArray(m.toolCalls)) {
      for (const call of m.toolCalls) {
        const id = callId(call)
        if (id === null) anonymous++
        else calls.add(id)
        if (id !== null && isObj(call) && ((Array.isArray(call.result) && call.result.length > 0) || call.status === 'success' || call.status === 'error' || call.status === 'cancelled')) results.add(id)
      }
    }
    if (open && isResumable(m)) {
      c.answered++
      open = false
    }
  }
  c.lastUnanswered = open
  c.toolCalls = calls.size + anonymous
  for (const id of calls) if (results.has(id)) c.toolCallsWithResult++
  return c
}
