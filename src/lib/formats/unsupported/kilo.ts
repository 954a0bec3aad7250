/**
 * The Kilo Code CLI's data folder `$XDG_DATA_HOME/kilo` (`kilo.db`, `storage/`, `snapshot/`: an OpenCode fork's
 * store; shared/realdata/kilo/7.7.7, new-agents.md). The extension's task folders have their adapter
 * (`formats/vscode-tasks/`); the CLI's store is recognised so a scan says it found it and never takes it for
 * OpenCode's, not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'
import {xdgData} from './shared.js'

export const kiloCli: UnsupportedAgent = {
  name: 'kilo-cli',
  displayName: 'Kilo Code CLI',
  vocabulary: ['kilo.db', '.local/share/kilo'],
  defaultRoots: (home, env) => [path.join(xdgData(home, env), 'kilo')],
  discoveryPaths: ['.local/share/kilo'],
  recognize(dir, names) {
    if (names.some((n) => n === 'kilo.db' || (n.startsWith('kilo-') && n.endsWith('.db')))) return {what: 'store', claims: 'folder'}
    if (path.basename(dir) === 'kilo' && names.includes('storage') && names.includes('snapshot')) return {what: 'store', claims: 'folder'}
    return null
  },
}
