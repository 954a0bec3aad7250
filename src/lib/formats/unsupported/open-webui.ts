/**
 * Open WebUI: its data folder (`$DATA_DIR`, `webui.db` with the chats, `uploads/`, `vector_db/`, bug-log B36).
 * Recognised so a scan says it found it; not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'

export const openWebui: UnsupportedAgent = {
  name: 'open-webui',
  displayName: 'Open WebUI',
  vocabulary: ['webui', 'webui.db'],
  defaultRoots: (home, env) => (env.DATA_DIR ? [path.resolve(env.DATA_DIR)] : [path.join(home, '.open-webui')]),
  discoveryPaths: ['.open-webui'],
  recognize(_dir, names) {
    return names.includes('webui.db') ? {what: 'store', claims: 'folder'} : null
  },
}
