/**
 * zod schemas of OpenCode's session, message and part objects and of the `opencode export` document
 * (`{info, messages: [{info, parts}]}`), written from what OpenCode 1.1.65 and 1.18.33 produced
 * (`shared/realdata/opencode/<version>/export-*.json`; peer-formats.md §1.5, §1.8).
 *
 * Loose objects throughout: every version adds fields (1.18 sessions carry `agent`, `model`, `cost`,
 * `tokens`, `path`), and tool inputs, tool metadata and provider fields are open records because every tool
 * and provider has its own. Only what both versions always write, and what the importer needs, is required.
 */
import {z} from 'zod'

const ms = z.number()
const openRecord = z.record(z.string(), z.unknown())

/** Session info (`storage/session/<projectID>/<sessionID>.json`; export `info`). */
export const SessionInfoSchema = z.looseObject({
  id: z.string().startsWith('ses_'),
  projectID: z.string(),
  directory: z.string(),
  title: z.string(),
  version: z.string(),
  parentID: z.string().optional(),
  time: z.looseObject({created: ms, updated: ms}),
})

const MessageBase = {
  id: z.string().startsWith('msg_'),
  sessionID: z.string().startsWith('ses_'),
}

/** A user message's info. */
export const UserMessageSchema = z.looseObject({
  ...MessageBase,
  role: z.literal('user'),
  time: z.looseObject({created: ms}),
  agent: z.string().optional(),
  model: openRecord.optional(),
})

/** An assistant message's info: `parentID` names the user message it answers. */
export const AssistantMessageSchema = z.looseObject({
  ...MessageBase,
  role: z.literal('assistant'),
  parentID: z.string().startsWith('msg_'),
  time: z.looseObject({created: ms, completed: ms.optional()}),
  modelID: z.string(),
  providerID: z.string(),
  cost: z.number().optional(),
  tokens: z.looseObject({input: z.number(), output: z.number()}).optional(),
  summary: z.unknown().optional(),
})

/** A message's info, either role. */
export const MessageInfoSchema = z.discriminatedUnion('role', [UserMessageSchema, AssistantMessageSchema])

const PartBase = {
  id: z.string().startsWith('prt_'),
  sessionID: z.string().startsWith('ses_'),
  messageID: z.string().startsWith('msg_'),
}

/**
 * The state of a tool part. A `completed` state carries the tool's `output` (a string, possibly empty), its
 * `title`, `metadata` and `time`; inputs and metadata are open records.
 */
export const ToolStateSchema = z.discriminatedUnion('status', [
  z.looseObject({status: z.literal('pending'), input: openRecord.optional()}),
  z.looseObject({status: z.literal('running'), input: openRecord.optional(), time: z.looseObject({start: ms}).optional()}),
  z.looseObject({
    status: z.literal('completed'),
    input: openRecord,
    // Always written by OpenCode; optional here so a missing output is reported as lost context
    // (`tool-output-missing`, degraded), not as an unreadable export.
    output: z.string().optional(),
    title: z.string().optional(),
    metadata: openRecord.optional(),
    time: z.looseObject({start: ms, end: ms}),
  }),
  z.looseObject({status: z.literal('error'), input: openRecord.optional(), error: z.string()}),
])

/** A tool part, with its call id and state. */
export const ToolPartSchema = z.looseObject({...PartBase, type: z.literal('tool'), callID: z.string(), tool: z.string(), state: ToolStateSchema})

/**
 * Any part. Tool parts are checked in full; others (`text`, `reasoning`, `file`, `step-start`,
 * `step-finish`, `snapshot`, `patch`, `agent`, `subtask`, `retry`, `compaction`, and types later versions
 * add) need only their ids and a `type`.
 */
export const PartSchema = z.union([ToolPartSchema, z.looseObject({...PartBase, type: z.string().refine((t) => t !== 'tool')})])

/** The `opencode export` document. Some builds add a `todos` array, which the importer ignores. */
export const ExportSchema = z.looseObject({
  info: SessionInfoSchema,
  messages: z.array(z.looseObject({info: MessageInfoSchema, parts: z.array(PartSchema)})),
})

export type SessionInfo = z.infer<typeof SessionInfoSchema>
export type MessageInfo = z.infer<typeof MessageInfoSchema>
export type Part = z.infer<typeof PartSchema>
export type ExportDocument = z.infer<typeof ExportSchema>
