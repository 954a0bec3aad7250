/**
 * Cursor: `~/.cursor` (the agent CLI's chats, extensions, MCP settings) and its editor data folder
 * (`…/Cursor/User/globalStorage/state.vscdb`, `workspaceStorage/<hash>/state.vscdb`: chats in SQLite key-value
 * rows, bug-log B51). Recognised so a scan says it found them; not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'
import {under, xdgConfig} from './shared.js'

export const cursor: UnsupportedAgent = {
  name: 'cursor',
  displayName: 'Cursor',
  vocabulary: ['.cursor', 'state.vscdb'],
  defaultRoots: (home, env) => [path.join(home, '.cursor'), ...[xdgConfig(home, env), path.join(home, 'Library', 'Application Support'), ...(env.APPDATA ? [path.resolve(env.APPDATA)] : [])].map((b) => path.join(b, 'Cursor', 'User'))],
  discoveryPaths: ['.cursor', '.config/Cursor/User/globalStorage', '.config/Cursor/User/workspaceStorage'],
  recognize(dir, names) {
    if (path.basename(dir) === '.cursor' && names.length > 0) return {what: 'store', claims: 'folder'}
    // The editor's chats live in its state databases; the extensions' folders beside them are searched as usual.
    if (names.includes('state.vscdb') && under(dir, 'Cursor')) return {what: 'chat database', claims: ['state.vscdb']}
    return null
  },
}
