/** Where Codex keeps its state. Source: peer-formats.md §3.1. */
import path from 'node:path'

/** `$CODEX_HOME` (default `<home>/.codex`). */
export function codexHome(home: string, env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex')
}

/** `$CODEX_HOME/sessions` and `archived_sessions`. */
export function codexRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const base = codexHome(home, env)
  return [path.join(base, 'sessions'), path.join(base, 'archived_sessions')]
}
