/**
 * Conversations stored as arrays of messages in the Anthropic Messages shape, counted: Cline CLI's
 * `<id>.messages.json` (SDK `MessageWithMetadata`: `{id, role, content, ts, modelInfo?, metrics?}`); the VS
 * Code extension task folders' `api_conversation_history.json` holds the same shape (`vscode-tasks/measure.ts`
 * counts it with its own prompt and condensing rules today). A message is
 * `{role: 'user' | 'assistant', content: string | Block[]}`; a block is
 * `{type: 'text' | 'thinking' | 'tool_use' | 'tool_result' | 'image' | …}`, a `tool_use` carries an `id` and a
 * `tool_result` the `tool_use_id` it answers.
 *
 * What counts as a prompt differs per agent (Cline CLI wraps it in `<user_input mode="…">`, the extensions in
 * `<task>`/`<feedback>` tags), so callers pass their own test. Counts, and the tool payloads taken out of a
 * message for a redacted snapshot (`redactToolBlocks`); no text leaves this module.
 */

/** One content block, as far as counting needs it. */
export interface Block {
  type?: unknown
  text?: unknown
  id?: unknown
  tool_use_id?: unknown
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** True for a message object with a `user` or `assistant` role and string or array content. */
export function isMessage(v: unknown): v is {role: 'user' | 'assistant'; content: unknown} & Record<string, unknown> {
  return isObj(v) && (v.role === 'user' || v.role === 'assistant') && (typeof v.content === 'string' || Array.isArray(v.content))
}

/** The content blocks of a message (objects only); `[]` for string content. */
export function blocksOf(m: Record<string, unknown>): Block[] {
  return Array.isArray(m.content) ? (m.content.filter(isObj) as Block[]) : []
}

/** The message's text: its string content, or its first `text` block's text; null when it has none. */
export function firstText(m: Record<string, unknown>): string | null {
  if (typeof m.content === 'string') return m.content
  const t = blocksOf(m).find((b) => b.type === 'text' && typeof b.text === 'string')
  return t ? (t.text as string) : null
}

/** True for a user message that carries tool results (the agent's reply to a tool call, not the user's words). */
export function carriesToolResult(m: Record<string, unknown>): boolean {
  return m.role === 'user' && blocksOf(m).some((b) => b.type === 'tool_result')
}

/** What a message array holds, counted. */
export interface MessageCounts {
  /** Array elements. */
  messages: number
  /** Elements that are not messages of the shape above. */
  malformed: number
  userMessages: number
  assistantMessages: number
  /** User messages the caller's test calls prompts. */
  prompts: number
  /** `tool_use` blocks. */
  toolCalls: number
  /** `tool_use` blocks answered by a `tool_result` with their id. */
  toolCallsWithResult: number
  /** `tool_use` blocks without a result. */
  toolCallsOpen: number
}

/** Counts a message array; `isPrompt` tells the agent's prompts among its user messages. */
export function countMessages(messages: readonly unknown[], isPrompt: (m: Record<string, unknown>) => boolean): MessageCounts {
  const c: MessageCounts = {messages: messages.length, malformed: 0, userMessages: 0, assistantMessages: 0, prompts: 0, toolCalls: 0, toolCallsWithResult: 0, toolCallsOpen: 0}
  const calls = new Set<string>()
  const answered = new Set<string>()
  let anonymousCalls = 0
  for (const m of messages) {
    if (!isMessage(m)) {
      c.malformed++
      continue
    }
    if (m.role === 'assistant') c.assistantMessages++
    else {
      c.userMessages++
      if (isPrompt(m)) c.prompts++
    }
    for (const b of blocksOf(m)) {
      if (b.type === 'tool_use') {
        if (typeof b.id === 'string') calls.add(b.id)
        else anonymousCalls++
      } else if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') answered.add(b.tool_use_id)
    }
  }
  c.toolCalls = calls.size + anonymousCalls
  for (const id of calls) if (answered.has(id)) c.toolCallsWithResult++
  c.toolCallsOpen = c.toolCalls - c.toolCallsWithResult
  return c
}

/**
 * Whether a conversation's last turn is settled (for a snapshot): a prompt in it, the last message the
 * assistant's, and every `tool_use` answered by a `tool_result` — but for a call in that last message to one of
 * the `waiting` tools (a tool whose answer is the user's next message, like the extensions'
 * `attempt_completion`). `unsettled` says why not; null when settled.
 */
export function settleMessages(messages: readonly unknown[], isPrompt: (m: Record<string, unknown>) => boolean, waiting: ReadonlySet<string> = new Set()): string | null {
  const c = countMessages(messages, isPrompt)
  if (c.prompts === 0) return 'no prompt yet'
  const last = messages[messages.length - 1]
  if (!isMessage(last) || last.role !== 'assistant') return 'the last prompt has no answer yet'
  const lastIds = new Set(blocksOf(last).filter((b) => b.type === 'tool_use' && typeof b.id === 'string' && waiting.has(String((b as {name?: unknown}).name))).map((b) => b.id as string))
  const answered = new Set<string>()
  for (const m of messages) if (isMessage(m)) for (const b of blocksOf(m)) if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') answered.add(b.tool_use_id)
  let open = 0
  for (const m of messages) {
    if (!isMessage(m)) continue
    for (const b of blocksOf(m)) if (b.type === 'tool_use' && !(typeof b.id === 'string' && (answered.has(b.id) || lastIds.has(b.id)))) open++
  }
  if (open > 0) return `${open} tool call${open === 1 ? '' : 's'} without a result`
  return null
}

/**
 * A message's content blocks without their private tool payloads (a redacted snapshot): a `tool_use` keeps every
 * member but `input`, which becomes `{}`; a `tool_result` every member but `content`, which becomes
 * `result(content)` (default `''`); every other block, and string content, stays. The block types, their order,
 * the tool ids and which call each result answers are kept. A new object when anything changed; pure.
 */
export function redactToolBlocks<M extends Record<string, unknown>>(m: M, result: (content: unknown) => unknown = () => ''): M {
  if (!Array.isArray(m.content)) return m
  const content = m.content.map((b: unknown) => {
    if (!isObj(b)) return b
    if (b.type === 'tool_use') return {...b, input: {}}
    if (b.type === 'tool_result') return {...b, content: result(b.content)}
    return b
  })
  return {...m, content}
}
