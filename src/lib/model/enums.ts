/**
 * The closed lists of the report (roles, classes, reasons, severities, statuses, action types, repair
 * outcomes), as constants and their types. No zod here: the scan path uses these, and the report's schemas
 * (`report.ts`, which builds on them) load only where a schema is needed.
 */

/**
 * What part a file plays in a chat dir.
 * - `primary`: the state file the agent loads (Codebuff: `run-state.json`).
 * - `backup`: the previous generation rotated aside (`run-state.json.bak`).
 * - `temp`: a leftover temp of an interrupted atomic write (`run-state.json.<pid>[.<uuid>].tmp`).
 * - `embedded`: a state copy stored inside another file (Codebuff: `metadata.runState` of a transcript message,
 *   `chat-messages.json#<message id>`; or one of several complete documents inside a damaged state file,
 *   `run-state.json@<byte offset>`).
 * - `transcript`, `transcript-temp`: the transcript the user sees and its leftover temps.
 * - `meta`: a sidecar summary (`chat-meta.json`).
 * - `other`: anything else; never classified, never touched.
 * - `message`, `part`: (OpenCode JSON tree) one message info file, one part file of a session.
 * - `database`: (OpenCode ≥ 1.2) the SQLite store and its `-wal`/`-shm`, stat only (never opened in place).
 * - `compressed`: the same session log compressed beside it (Codex: `rollout-….jsonl.zst` next to `….jsonl`).
 * - `export`: an `opencode export` document (`{info, messages: [{info, parts}]}`), a whole session in one file.
 * - `sibling`: another file the agent itself treats as the same session, beside the one it loads (Gemini CLI: a
 *   resume in a later minute starts a second session file with the same short id; its start-up cleanup deletes
 *   all of them together).
 * - `index`: a file of the agent's index or registry of its chats, held against the session files (Codex's state
 *   and thread-history databases with their `-wal`/`-shm`, Claude Code's global config with its backups): a
 *   generation of its own, never of a session's context.
 * - `snapshot`: a copy chatdoctor stored of the chat while it was healthy and settled (`chatdoctor snapshot`,
 *   taken by the agent's hook), named `snapshot:<time>`; it lives in chatdoctor's encrypted store, not in the
 *   chat's folder.
 */
export const ROLES = ['primary', 'backup', 'temp', 'embedded', 'transcript', 'transcript-temp', 'meta', 'other', 'message', 'part', 'database', 'compressed', 'export', 'sibling', 'index', 'snapshot'] as const
export type Role = (typeof ROLES)[number]

/** Roles whose files are generations of the agent context (candidates for the winner). */
export const CONTEXT_ROLES: readonly Role[] = ['primary', 'backup', 'temp', 'embedded', 'compressed']

/**
 * The verdict on one file (see README "Classes"):
 * `intact` parses strictly and holds what its role needs; `truncated` is a proper prefix of a JSON document;
 * `empty` is 0 bytes or whitespace; `zero-filled` is all NUL; `corrupt` is anything else the loader would
 * reject; `contextless` parses but holds no agent context; `missing` is absent.
 */
export const CLASSES = ['intact', 'truncated', 'empty', 'zero-filled', 'corrupt', 'contextless', 'missing'] as const
export type FileClass = (typeof CLASSES)[number]

/**
 * Reason codes attached to a class. Closed list, documented in the README.
 * Byte level: `bom`, `invalid-utf8`, `torn-utf8`, `nul-tail`, `nul-run`.
 * Syntax level: `unexpected-end` (the document stops before it closes), `trailing-garbage`, `concatenated`,
 * `syntax-error`.
 * Shape level: `wrong-shape` (parses, but not the type the role needs), `no-session-state`, `placeholder`,
 * `fresh-chat`.
 * Access: `unreadable` (the file could not be read: permission, I/O error), `not-a-file` (the name is a
 * symbolic link, a folder or a special file: never read, never replaced).
 * Content: `foreign-content` (the file is other content from its first byte: another program's text, binary or
 * encrypted data written over the state).
 * Version: `unsupported-version` (the file's bytes are whole, but it records a schema newer than every one
 * chatdoctor knows: a newer build of the agent wrote it; reported only, never written).
 * Line level (JSONL session logs, counted per line): `torn-tail` (the final line is a cut record),
 * `torn-interior` (an earlier line is a cut record or a fragment), `interleaved-line` (a cut record and the next
 * record, or two records, on one line), `split-record` (one record spread over several lines by raw line
 * breaks), `lone-surrogate` (a `\uD800`–`\uDFFF` escape without its other half); `bom`, `invalid-utf8`,
 * `torn-utf8` and `nul-run` as above, per line.
 * Generations: `sibling-orphan` (a sibling file of a session that holds nothing of the conversation, only what
 * the agent writes when it starts; Gemini CLI's resume in a later minute leaves one).
 * Content level: `semantic-empty` (parses and has the right shape, but holds nothing: e.g. a model-context
 * array `[]` where the transcript shows turns).
 */
export const REASONS = [
  'bom',
  'invalid-utf8',
  'torn-utf8',
  'nul-tail',
  'nul-run',
  'unexpected-end',
  'trailing-garbage',
  'concatenated',
  'syntax-error',
  'wrong-shape',
  'no-session-state',
  'placeholder',
  'fresh-chat',
  'unreadable',
  'not-a-file',
  'foreign-content',
  'unsupported-version',
  // Line level (JSONL session logs).
  'torn-tail',
  'torn-interior',
  'interleaved-line',
  'split-record',
  'lone-surrogate',
  // Generations.
  'sibling-orphan',
  // Content level.
  'semantic-empty',
] as const
export type Reason = (typeof REASONS)[number]

export const SEVERITIES = ['error', 'warning', 'info'] as const
export type Severity = (typeof SEVERITIES)[number]

/**
 * Chat verdicts. `degraded` (exit bit 4): the agent loads the chat, but part of its context is missing:
 * the winning generation is usable but amnesiac (a new session replaced the agent's memory, plain
 * `repair` leaves it), or the session's structure lost part of the context (e.g. an OpenCode completed tool
 * part without its output, a message whose parts are gone).
 */
export const STATUSES = ['healthy', 'repairable', 'unrecoverable', 'degraded'] as const
export type ChatStatus = (typeof STATUSES)[number]

/**
 * Kinds of repair action. `preserve`: keep a file as evidence before it is replaced (`to` is its name inside
 * the evidence folder); `restore`: write the bytes of a generation (`from`) as `to`; `restore-mtime`: put the
 * chat dir's own mtime back (`to` is `.`), so the agent's "newest chat" choice does not change. A `restore`
 * writes a file's bytes (`from` is its name), an embedded copy's (`from` `chat-messages.json#<id>`), a transcript
 * temp's (`to` `chat-messages.json`) or salvaged bytes (`from` `salvage:<torn file>`, `repair --salvage`).
 * `rewrite`: write the repaired bytes of a JSONL session log (`from` the generation repaired,
 * `to` the log the agent reads; `changes` lists every byte change); `move`: move a damaged file of OpenCode's
 * JSON tree out of the tree into the evidence folder (`from` its path below the data dir, `to` its name inside
 * the evidence folder, `sha256` of the bytes moved); `remove-leftover`: remove chatdoctor's own leftover of a
 * killed run (`to`: its own temp `.chatdoctor-<id>-<file>.tmp`, or an evidence folder `.chatdoctor/<id>[/<sub>]`
 * that holds no manifest, or only evidence of nothing replaced).
 */
export const ACTION_TYPES = ['preserve', 'restore', 'restore-mtime', 'rewrite', 'move', 'remove-leftover'] as const
export type ActionType = (typeof ACTION_TYPES)[number]

/**
 * What a repair did with one chat: `repaired`; `planned` (dry run); `refused` (live chat or locked, bit 8);
 * `failed` (a write failed, bit 8; evidence says what was kept); `not-attempted` (the user declined or
 * stopped the run first); `not-needed` (healthy); `not-repairable` (unrecoverable: nothing written);
 * `left-untouched` (degraded: plain `repair` changes nothing, `message` names the `--restore-from` that would);
 * `manual` (repairable damage chatdoctor does not repair itself, e.g. a damaged OpenCode database: nothing
 * written, `message` gives the next steps; exit bit 2 stays set).
 */
export const REPAIR_OUTCOMES = ['repaired', 'planned', 'refused', 'failed', 'not-attempted', 'not-needed', 'not-repairable', 'left-untouched', 'manual'] as const
export type RepairOutcome = (typeof REPAIR_OUTCOMES)[number]

/**
 * How an agent's memory came to lack turns (`AmnesiaReport.patterns`): `trace-break` (its trace session id
 * differs from an older generation's), `late-start` (prompts start after turn 1 with no summary), `placeholder`
 * (the loader's stand-in was saved), `compaction-wipe` (the history starts with an empty or near-empty
 * compaction summary), `empty-history` (the history holds no prompt and no summary while the transcript has
 * agent turns).
 */
export const AMNESIA_PATTERNS = ['trace-break', 'late-start', 'placeholder', 'compaction-wipe', 'empty-history'] as const
export type AmnesiaPattern = (typeof AMNESIA_PATTERNS)[number]
