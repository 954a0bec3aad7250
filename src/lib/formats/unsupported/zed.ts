/**
 * Zed: its data folder (`$XDG_DATA_HOME/zed` on Linux, `~/Library/Application Support/Zed` on macOS) with the
 * agent threads database (`threads/`) and the state database (`db/`, bug-log B43). Recognised so a scan says it
 * found it; not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'
import {xdgData} from './shared.js'

export const zed: UnsupportedAgent = {
  name: 'zed',
  displayName: 'Zed',
  vocabulary: ['zed'],
  defaultRoots: (home, env) => [path.join(xdgData(home, env), 'zed'), path.join(home, 'Library', 'Application Support', 'Zed')],
  discoveryPaths: ['.local/share/zed'],
  recognize(dir, names) {
    const base = path.basename(dir)
    if ((base === 'zed' || base === 'Zed') && (names.includes('threads') || names.includes('db') || names.includes('conversations'))) return {what: 'store', claims: 'folder'}
    return null
  },
}
