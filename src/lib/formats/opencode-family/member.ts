/**
 * The family of agents that keep OpenCode's store: a SQLite database of `session`, `message` and `part` rows
 * (OpenCode ≥ 1.2, and Kilo Code CLI, an OpenCode fork, which keeps the same tables) and `<agent> export`
 * documents of one session (`{info, messages: [{info, parts}]}`). This folder holds what the members share:
 * reading a database on a private copy (`sqlite.ts`, with its write-ahead log, `wal.ts`), diagnosing one of its
 * sessions (`database.ts`), measuring a session (`measure.ts`), checking an export (`export.ts`), the account
 * `inspect` gives (`account.ts`), the redaction profile (`redact.ts`) and `find` in a database (`find.ts`). Each member passes its `StoreMember`:
 * the family never imports a member.
 */
import type {ExportDocument} from './export-rows.js'

/** What the family needs to know of one member. */
export interface StoreMember {
  /** The report's `format`. */
  readonly format: string
  /** The agent's name in sentences (`OpenCode`). */
  readonly displayName: string
  /** The name with its indefinite article (`an OpenCode`). */
  readonly aDisplayName: string
  /** The agent's command, for next steps (`opencode export <sessionID>`). */
  readonly command: string
  /** Prefix of the private temp folder a database is copied into (`chatdoctor-opencode-db-`). */
  readonly tempPrefix: string
  /**
   * What the member's own export leaves out of the rows, as a view of the document built from them (absent:
   * nothing). Pure; returns a new document.
   */
  readonly exportView?: (doc: ExportDocument) => ExportDocument
}
