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
 * pair); it is kept whole when it is a user message or holds a lone surrogate (the lone-surrogate finding
 * reads the whole value); any other message is kept as its `role`.
 */
import type {StreamValueSpec} from '../../model/adapter.js'
import {hasLoneSurrogate} from '../../classify/jsonl.js'
import {RUN_STATE_SPINE} from './salvage.js'
import {isPlainObject} from './schema.js'

const USER = Buffer.from('"user"')
const ROLE_FIRST = Buffer.from('{"role":"')

/** The role of a message the SDK wrote (`{"role":"tool",…`), from its first bytes; undefined otherwise. */
function leadingRole(bytes: Buffer): string | undefined {
  if (bytes.length <= ROLE_FIRST.length || bytes.compare(ROLE_FIRST, 0, ROLE_FIRST.length, 0, ROLE_FIRST.length) !== 0) return undefined
  const end = bytes.indexOf(0x22, ROLE_FIRST.length)
  if (end < 0) return undefined
  const role = bytes.toString('utf8', ROLE_FIRST.length, end)
  return role.includes('\\') ? undefined : role
}

/** A message of the history as measuring needs it, from its bytes (`escapes`: see `StreamValueSpec.element`). */
export function historyMessage(bytes: Buffer, escapes: boolean): unknown {
  if (!escapes && bytes.indexOf(USER) < 0) return {role: leadingRole(bytes)}
  const m: unknown = JSON.parse(bytes.toString('utf8'))
  if (!isPlainObject(m) || m.role === 'user' || hasLoneSurrogate(m)) return m
  return {role: m.role}
}

/** How the inventory builds a large run-state's measurable value. */
export const RUN_STATE_VALUE: StreamValueSpec = {spine: RUN_STATE_SPINE, element: historyMessage}
