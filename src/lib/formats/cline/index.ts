/**
 * The Cline CLI adapter (Cline 3.x's SDK store: `~/.cline/data/sessions/<id>/`, indexed by
 * `~/.cline/data/db/sessions.db`). Its data dir, sessions dir and session folders are stores (`chatsIn`
 * answers `store: true`); `listStore` lists the sessions with what the index says of them and whether Cline
 * is running (store.ts); `diagnose` judges one session (diagnose.ts); `planRepair` writes salvages
 * (plan.ts). Not the VS Code extension's `tasks/<taskId>/` folders: another format.
 */
import type {FormatAdapter} from '../adapter.js'
import {diagnoseCline} from './diagnose.js'
import {clineAccount} from './inspect.js'
import {SESSION_ID, defaultRoots, folderKind, isCertainDataDir, wantsContent} from './layout.js'
import {clineLiveRefusal, planClineRepair} from './plan.js'
import {redactClineFile} from './redact.js'
import {listStore} from './store.js'

/** The role of a file by its name alone (`scan --quick`): `<id>.messages.json` is the conversation, `<id>.json` the record. */
function roleOf(name: string) {
  if (name.endsWith('.messages.json') && SESSION_ID.test(name.slice(0, -'.messages.json'.length))) return 'primary' as const
  if (name.endsWith('.json') && SESSION_ID.test(name.slice(0, -'.json'.length))) return 'meta' as const
  return 'other' as const
}

/** The Cline CLI format adapter. */
export const cline: FormatAdapter = {
  name: 'cline',
  defaultRoots,
  chatsIn: (dir, names) => {
    const kind = folderKind(dir, names)
    if (kind === null) return null
    // A data dir that is surely Cline's, a sessions dir and a session folder hold nothing else to search.
    return {chats: [], store: true, descend: kind === 'data' && !isCertainDataDir(dir, names)}
  },
  wantsContent,
  roleOf,
  diagnose: diagnoseCline,
  listStore,
  planRepair: planClineRepair,
  liveRefusal: clineLiveRefusal,
  inspectAccount: clineAccount,
  redactFile: redactClineFile,
}

