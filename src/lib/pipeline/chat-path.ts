/** How a PATH that names one chat of a store is read by the commands that take one chat. */
import {existsSync, statSync} from 'node:fs'

/**
 * A chat of a store as scan names it, `<store file>#<chat id>` (a session of a database), is that file with
 * `--session <chat id>` when no file of that whole name exists; any other PATH is taken as it is.
 */
export function storeChatPath(p: string, session: string | undefined): {target: string; session: string | undefined} {
  const hash = p.lastIndexOf('#')
  if (hash <= 0 || hash === p.length - 1 || session !== undefined || existsSync(p)) return {target: p, session}
  const file = p.slice(0, hash)
  return existsSync(file) && statSync(file).isFile() ? {target: file, session: p.slice(hash + 1)} : {target: p, session}
}
