/**
 * The Codebuff shape predicates (`src/lib/formats/codebuff/schema.ts`) against the zod 4 schemas they replaced
 * (kept here as the oracle): the same verdict on hand-picked near misses and on random JSON values shaped
 * like run states and sidecars.
 */
import assert from 'node:assert/strict'
import {test} from 'node:test'
import fc from 'fast-check'
import {z} from 'zod'
import {isChatMeta, isRunStateWithContext} from '../src/lib/formats/codebuff/schema.js'

const RunStateWithContextZod = z.looseObject({
  sessionState: z.looseObject({mainAgentState: z.looseObject({messageHistory: z.array(z.unknown())})}),
})
const ChatMetaZod = z.looseObject({messageCount: z.number(), firstPrompt: z.string(), messagesSize: z.number(), messagesMtimeMs: z.number()})

const agrees = (v: unknown) => {
  assert.equal(isRunStateWithContext(v), RunStateWithContextZod.safeParse(v).success, `run state: ${JSON.stringify(v)}`)
  assert.equal(isChatMeta(v), ChatMetaZod.safeParse(v).success, `chat meta: ${JSON.stringify(v)}`)
}

test('shape predicates agree with the zod schemas on near misses', () => {
  const meta = {messageCount: 3, firstPrompt: 'hi', messagesSize: 120, messagesMtimeMs: 1.7e12}
  for (const v of [
    null, [], 'x', 0, {}, [{sessionState: {}}],
    {sessionState: {mainAgentState: {messageHistory: []}}},
    {sessionState: {mainAgentState: {messageHistory: {}}}},
    {sessionState: {mainAgentState: []}},
    {sessionState: [{mainAgentState: {messageHistory: []}}]},
    {sessionState: null, output: {type: 'error'}},
    {sessionState: {mainAgentState: {messageHistory: [1, 'a', null]}, extra: 1}, traceSessionId: 5},
    meta, {...meta, extra: true}, {...meta, firstPrompt: 1}, {...meta, messageCount: '3'},
    {...meta, messagesSize: Infinity}, {...meta, messagesMtimeMs: -Infinity}, {...meta, messageCount: NaN},
    {...meta, messageCount: -0}, {...meta, messagesSize: undefined}, [meta],
    JSON.parse('{"messageCount":1e999,"firstPrompt":"","messagesSize":0,"messagesMtimeMs":0}'),
  ]) agrees(v)
})

test('shape predicates agree with the zod schemas on random JSON values', () => {
  const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.double(), fc.integer(), fc.string({maxLength: 3}), fc.constant([]), fc.constant({}))
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, leaf)
  const runState = fc.record({sessionState: maybe(fc.record({mainAgentState: maybe(fc.record({messageHistory: maybe(fc.array(leaf, {maxLength: 3}))}, {requiredKeys: []}))}, {requiredKeys: []}))}, {requiredKeys: []})
  const meta = fc.record({messageCount: maybe(fc.double()), firstPrompt: maybe(fc.string()), messagesSize: maybe(fc.integer()), messagesMtimeMs: maybe(fc.double())}, {requiredKeys: []})
  fc.assert(fc.property(fc.oneof(runState, meta, fc.array(runState, {maxLength: 2}), leaf), (v) => agrees(v)), {numRuns: 3000, seed: 11})
})
