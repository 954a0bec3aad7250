/**
 * The Cline CLI adapter (Cline 3.x's SDK store: `~/.cline/data/sessions/<id>/`, indexed by
 * `~/.cline/data/db/sessions.db`). Its data dir, sessions dir and session folders are stores (`chatsIn`
 * answers `store: true`); `listStore` lists the sessions with what the index says of them and whether Cline
 * is running (store.ts); `diagnose` judges one session (diagnose.ts); `planRepair` writes salvages
 * (plan.ts); the session index itself is a chat of role-`index` files (index-chat.ts). Its discovery part (light.ts) is listed on its own until a Cline store is found. Not the VS Code extension's `tasks/<taskId>/` folders: another format.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import type {Role} from '../../model/report.js'
import {diagnoseCline} from './diagnose.js'
import {annotateClineSession, clineIndexFactsOf, diagnoseClineIndex, planClineIndex} from './index-chat.js'
import {clineAccount} from './inspect.js'
import {SESSION_ID, wantsContent} from './layout.js'
import {clineLight} from './light.js'
import {clineLiveReasons, planClineRepair} from './plan.js'
import {redactSessionFiles} from './redact.js'
import {clineFinder} from './find.js'
import {clineHook} from './hook.js'
import {captureCline, redactClineSnapshot} from './snapshot.js'

/** The role of a file by its name alone (`scan --quick`): `<id>.messages.json` is the conversation, `<id>.json` the record. */
function roleOf(name: string): Role {
  if (name.endsWith('.messages.json') && SESSION_ID.test(name.slice(0, -'.messages.json'.length))) return 'primary'
  if (name.endsWith('.json') && SESSION_ID.test(name.slice(0, -'.json'.length))) return 'meta'
  return 'other'
}

/** The Cline CLI format adapter. */
export const cline: FormatAdapter = {
  ...clineLight,
  wantsContent,
  quick: {roleOf, primary: '<id>.messages.json'},
  diagnose: (snapshot) => {
    const f = clineIndexFactsOf(snapshot)
    return f ? diagnoseClineIndex(snapshot, f) : diagnoseCline(snapshot)
  },
  planRepair: (chat, opts) => (clineIndexFactsOf(chat.snapshot) ? planClineIndex(chat) : planClineRepair(chat, opts)),
  liveReasons: clineLiveReasons,
  inspect: (chat) => ({account: clineIndexFactsOf(chat.snapshot) ? "Cline's session index db/sessions.db: what is wrong with it is in the findings." : clineAccount(chat)}),
  indexes: {...clineLight.indexes, annotate: annotateClineSession},
  redact: redactSessionFiles,
  find: clineFinder,
  snapshot: {capture: captureCline, redact: redactClineSnapshot, hook: clineHook},
}
