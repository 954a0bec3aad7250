/**
 * Large run-states, measured without parsing them whole (`FormatAdapter.streamValue`): the inventory's fast
 * check builds the RunState's members one by one and hands over `sessionState.mainAgentState.messageHistory`
 * element by element, each message kept only as far as measuring needs it. The result has the shape of the
 * RunState for `runStateShape` and `measureRunState`, never the bytes to restore (those stay the file's own).
 *
 * What measuring reads of a message (`turns.ts`, `amnesia.ts`): only user messages count (prompts, summaries
 * and the interruption note are in them), every other message only as "not a user message" in the history's
 * length. So a message is parsed only when its bytes could make it a user message (they hold `"user"`, or a
 * `\u` escape of something other than a control character, which could spell it or be half of a surrogate
 * pair); it is kept whole when it holds a lone surrogate (the lone-surrogate finding reads the whole value),
 * a user message as far as measuring reads it, any other message as its `role`.
 */
import type {StreamValueSpec} from '../../model/adapter.js'
import {hasLoneSurrogate} from '../../classify/surrogates.js'
import {RUN_STATE_SPINE} from './salvage.js'
import {isPlainObject} from './schema.js'

const USER = Buffer.from('"user"')
/**
 * The stand-ins of messages kept as their role, one per role (frozen and shared: a large state holds
 * hundreds of thousands of them, and measuring only reads them).
 */
const BY_ROLE = new Map<string | undefined, Readonly<{role: string | undefined}>>()

function roleOnly(role: string | undefined): Readonly<{role: string | undefined}> {
  let m = BY_ROLE.get(role)
  if (m === undefined) {
    m = Object.freeze({role})
    if (BY_ROLE.size < 64) BY_ROLE.set(role, m)
  }
  return m
}

/**
 * A user message as measuring reads it (`turns.ts`, `amnesia.ts`: its role, tags, send time and texts): the
 * content as a string when it is one text part (read the same way as that part), else its text parts in
 * order; images and other members left out. Built in one literal, so it costs less memory than the parsed
 * message (a large state holds tens of thousands).
 */
function userMessage(m: Record<string, unknown>): {role: 'user'; content: unknown; tags: unknown; sentAt: unknown} {
  const c = m.content
  let content = c
  if (Array.isArray(c)) {
    const parts = c.filter((p) => isPlainObject(p) && p.type === 'text')
    content = parts.length === 1 && typeof parts[0].text === 'string' ? parts[0].text : parts
  }
  return {role: 'user', content, tags: sharedTags(m.tags), sentAt: m.sentAt}
}

/** The tag lists seen, shared (frozen) between messages: nearly every prompt carries the same one. */
const TAGS = new Map<string, readonly string[]>()

function sharedTags(tags: unknown): unknown {
  if (!Array.isArray(tags) || tags.length > 4 || !tags.every((t) => typeof t === 'string')) return tags
  const key = JSON.stringify(tags)
  let shared = TAGS.get(key)
  if (shared === undefined) {
    shared = Object.freeze([...(tags as string[])])
    if (TAGS.size < 64) TAGS.set(key, shared)
  }
  return shared
}

/** How the SDK starts a message of each common role (`{"role":"tool",…`), and its stand-in. */
const LEADS = ['tool', 'assistant', 'system'].map((role) => ({lead: Buffer.from(`{"role":"${role}"`), message: roleOnly(role)}))
const ROLE_FIRST = Buffer.from('{"role":"')

function startsWith(bytes: Buffer, lead: Buffer): boolean {
  if (bytes.length < lead.length) return false
  for (let i = 0; i < lead.length; i++) if (bytes[i] !== lead[i]) return false
  return true
}

/** The stand-in of a message that is no user message, by the role it starts with (undefined when it starts otherwise). */
function byLeadingRole(bytes: Buffer): unknown {
  for (const l of LEADS) if (startsWith(bytes, l.lead)) return l.message
  if (!startsWith(bytes, ROLE_FIRST)) return roleOnly(undefined)
  const end = bytes.indexOf(0x22, ROLE_FIRST.length)
  const role = end < 0 ? undefined : bytes.toString('utf8', ROLE_FIRST.length, end)
  return roleOnly(role === undefined || role.includes('\\') ? undefined : role)
}

/** A message of the history as measuring needs it, from its bytes (`escapes`: see `StreamValueSpec.element`). */
export function historyMessage(bytes: Buffer, escapes: boolean): unknown {
  if (!escapes && bytes.indexOf(USER) < 0) return byLeadingRole(bytes)
  const m: unknown = JSON.parse(bytes.toString('utf8'))
  if (!isPlainObject(m) || hasLoneSurrogate(m)) return m
  if (m.role === 'user') return userMessage(m)
  return typeof m.role === 'string' ? roleOnly(m.role) : {role: m.role}
}

/** How the inventory builds a large run-state's measurable value. */
export const RUN_STATE_VALUE: StreamValueSpec = {spine: RUN_STATE_SPINE, element: historyMessage}
