/**
 * The Cline CLI's data folder `~/.cline/data/` (`sessions/<id>/<id>.json` and `<id>.messages.json`,
 * `db/sessions.db`; shared/realdata/cline/3.0.65; new-agents.md). The extension's task folders have their adapter
 * (`formats/vscode-tasks/`); the CLI's store is recognised so a scan says it found it, not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'
import {under} from './shared.js'

export const clineCli: UnsupportedAgent = {
  name: 'cline-cli',
  displayName: 'Cline CLI',
  vocabulary: ['.cline'],
  defaultRoots: (home) => [path.join(home, '.cline')],
  discoveryPaths: ['.cline'],
  recognize(dir, names) {
    if (path.basename(dir) === '.cline' && names.length > 0) return {what: 'store', claims: 'folder'}
    if (under(dir, '.cline')) return {what: 'folder', claims: 'folder'}
    return null
  },
}
