/**
 * The 51 public reports of `shared/docs/bug-log.md`, by id: damage class (K1–K15), the agent(s) reported on,
 * and the report's headline. The bug-log table lists every agent part against this list.
 */

/** One report of the bug log. */
export interface BugLogReport {
  id: string
  /** Damage class of the bug log's taxonomy (K1–K15). */
  damageClass: string
  /** The agent or store the report is about, as the bug log names it. */
  agent: string
  title: string
}

export const BUG_LOG_REPORTS: readonly BugLogReport[] = [
  {id: 'B01', damageClass: 'K1', agent: 'OpenCode', title: 'part files left at 0 bytes when the disk filled'},
  {id: 'B02', damageClass: 'K1', agent: 'Continue', title: 'empty saved-context file silently reset to an empty list'},
  {id: 'B03', damageClass: 'K1', agent: 'Gemini CLI', title: 'empty and truncated session JSONL files break resume'},
  {id: 'B04', damageClass: 'K2', agent: 'OpenCode', title: 'session file of 413 NUL bytes hides every session'},
  {id: 'B05', damageClass: 'K2', agent: 'Electron mail client config', title: '4 KiB of NUL, and all ten rotated versions bad'},
  {id: 'B06', damageClass: 'K3', agent: 'Claude Code', title: 'an interior line of NUL bytes silently cuts the resumed context'},
  {id: 'B07', damageClass: 'K3', agent: 'Claude Code Desktop', title: 'NUL padding after a record and a NUL-only last line'},
  {id: 'B08', damageClass: 'K3', agent: 'GitHub Copilot CLI', title: 'trailing NUL bytes make the session "not found"'},
  {id: 'B09', damageClass: 'K4', agent: 'Claude Code', title: 'global config truncated by concurrent writers'},
  {id: 'B10', damageClass: 'K4', agent: 'Cline', title: '20 MB task file missing its closing bracket, then dropped from the index'},
  {id: 'B11', damageClass: 'K5', agent: 'Claude Code', title: 'power loss tears the final line and resume shows a blank chat'},
  {id: 'B12', damageClass: 'K6', agent: 'Claude Code', title: 'malformed interior metadata lines end the replay early'},
  {id: 'B13', damageClass: 'K7', agent: 'Claude Code', title: 'a partial record and the next record share one line'},
  {id: 'B14', damageClass: 'K7', agent: 'GitHub Copilot CLI', title: 'truncated prefix + complete duplicate on the same line (x3)'},
  {id: 'B15', damageClass: 'K7', agent: 'Codex CLI', title: 'a partial reasoning record, then a complete twin; session vanishes from the list'},
  {id: 'B16', damageClass: 'K7', agent: 'Claude Code', title: 'two complete JSON objects concatenated in one config file'},
  {id: 'B17', damageClass: 'K7', agent: 'Cline', title: 'stray closing bracket near the end of a one-line array'},
  {id: 'B18', damageClass: 'K8', agent: 'Codex', title: 'UTF-8 BOM in front of the rollout header blocks the whole thread store'},
  {id: 'B19', damageClass: 'K8', agent: 'Codex', title: 'a record ending in an incomplete UTF-8 sequence makes the thread unreadable'},
  {id: 'B20', damageClass: 'K8', agent: 'Claude Code and the Copilot app', title: 'lone surrogate escapes persisted in the log'},
  {id: 'B21', damageClass: 'K8', agent: 'GitHub Copilot CLI', title: 'raw U+2028 inside a string splits the record for some readers'},
  {id: 'B22', damageClass: 'K8', agent: 'GitHub Copilot CLI', title: 'literal newlines inside a record spread it over three lines'},
  {id: 'B23', damageClass: 'K8', agent: 'Aider', title: 'lone surrogates abort the chat-history append'},
  {id: 'B24', damageClass: 'K9', agent: 'Copilot CLI / Copilot app / pi / Codex', title: 'intact logs larger than a V8 string'},
  {id: 'B25', damageClass: 'K9', agent: 'Claude Code', title: 'first user line longer than the 16 KB preview window hides the session'},
  {id: 'B26', damageClass: 'K10', agent: 'conf / electron-store', title: 'encrypted store fails "at position 0"'},
  {id: 'B27', damageClass: 'K10', agent: 'Claude Code', title: 'session log overwritten with minified library code'},
  {id: 'B28', damageClass: 'K11', agent: 'Claude Code', title: 'a 50-byte valid skeleton replaces a 57 KB config; backups rotated out'},
  {id: 'B29', damageClass: 'K11', agent: 'Hermes agent (also OpenClaw, Claude Code)', title: 'compaction leaves an empty transcript'},
  {id: 'B30', damageClass: 'K11', agent: 'VS Code Copilot Chat', title: 'the UI log shrinks to an empty stub while other stores are full'},
  {id: 'B31', damageClass: 'K11', agent: 'Codebuff', title: 'about an hour of the latest messages missing after resume'},
  {id: 'B32', damageClass: 'K12', agent: 'Claude Code (driven by Paperclip)', title: 'unterminated final turn'},
  {id: 'B33', damageClass: 'K12', agent: 'Claude Code', title: 'parent link to a record that was never written'},
  {id: 'B34', damageClass: 'K12', agent: 'VS Code Copilot Chat', title: 'session log missing its initial kind:0 record'},
  {id: 'B35', damageClass: 'K12', agent: 'Codex', title: 'final paginated record without its ordinal'},
  {id: 'B36', damageClass: 'K12', agent: 'Open WebUI', title: 'current pointer and child links to messages that do not exist'},
  {id: 'B37', damageClass: 'K12', agent: 'LibreChat and Jan', title: 'orphaned parent ids break the message tree'},
  {id: 'B38', damageClass: 'K13', agent: 'Roo Code', title: 'task index overwritten or reset while task folders stay intact'},
  {id: 'B39', damageClass: 'K13', agent: 'Cline', title: 'task history index loses entries'},
  {id: 'B40', damageClass: 'K13', agent: 'Codex', title: 'state SQLite index malformed, rollouts fine'},
  {id: 'B41', damageClass: 'K13', agent: 'Claude Code and Rowboat', title: 'stale session index hides intact transcripts'},
  {id: 'B42', damageClass: 'K13', agent: 'Claude Code', title: 'the index survives but the transcripts are gone'},
  {id: 'B43', damageClass: 'K13', agent: 'Zed', title: 'history rows lose their session id after restart'},
  {id: 'B44', damageClass: 'K14', agent: 'OpenClaude', title: 'every same-name backup poisoned; only older legacy backups are clean'},
  {id: 'B45', damageClass: 'K14', agent: 'daintree (electron-store)', title: 'reset to defaults, then the backup is overwritten with defaults'},
  {id: 'B46', damageClass: 'K14', agent: 'Claude settings helper', title: 'completed temp files leak when killed before rename'},
  {id: 'B47', damageClass: 'K14', agent: 'write-file-atomic / electron-settings', title: 'Windows EPERM on the final rename'},
  {id: 'B48', damageClass: 'K14', agent: 'Synergy and oh-my-pi', title: 'agent session state stuck behind EPERM renames'},
  {id: 'B49', damageClass: 'K14', agent: 'Gemini CLI', title: 'resume creates an empty sibling with the same short id; cleanup deletes the real one'},
  {id: 'B50', damageClass: 'K14', agent: 'Roo Code and Gemini CLI', title: '"recovery" that deletes damaged entries'},
  {id: 'B51', damageClass: 'K15', agent: 'Cursor', title: 'chat store migrated by a newer build becomes unreadable to an older one'},
]
