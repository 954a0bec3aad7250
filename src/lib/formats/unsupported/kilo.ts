/**
 * Kilo Code: the VS Code extension's `globalStorage/kilocode.kilo-code/` (Cline's task layout) and the Kilo CLI's
 * data folder `$XDG_DATA_HOME/kilo` (`kilo.db`, `storage/`, `snapshot/`: an OpenCode fork's store, new-agents.md).
 * Recognised so a scan says it found them, and so the CLI's store is never taken for OpenCode's; not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'
import {extensionDiscoveryPaths, extensionStorageDirs, under, xdgData} from './shared.js'

const EXTENSION = 'kilocode.kilo-code'

export const kiloCode: UnsupportedAgent = {
  name: 'kilo-code',
  displayName: 'Kilo Code',
  vocabulary: ['kilo', 'kilocode.kilo-code', 'kilo.db'],
  defaultRoots: (home, env) => [...extensionStorageDirs(home, env, EXTENSION), path.join(xdgData(home, env), 'kilo')],
  discoveryPaths: [...extensionDiscoveryPaths(EXTENSION), '.local/share/kilo'],
  recognize(dir, names) {
    const base = path.basename(dir)
    if (base === EXTENSION) return {what: 'extension store', claims: 'folder'}
    if (under(dir, EXTENSION) && (names.includes('api_conversation_history.json') || names.includes('ui_messages.json'))) return {what: 'task folder', claims: 'folder'}
    if (names.some((n) => n === 'kilo.db' || (n.startsWith('kilo-') && n.endsWith('.db')))) return {what: 'CLI store', claims: 'folder'}
    if (base === 'kilo' && names.includes('storage') && names.includes('snapshot')) return {what: 'CLI store', claims: 'folder'}
    return null
  },
}
