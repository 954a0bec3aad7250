/**
 * Continue: `~/.continue/sessions/<id>.json` and the list `sessions.json` (peer-formats.md §5.3). Recognised so
 * a scan says it found it; not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'
import {under} from './shared.js'

export const continueDev: UnsupportedAgent = {
  name: 'continue',
  displayName: 'Continue',
  vocabulary: ['.continue', 'CONTINUE_GLOBAL_DIR'],
  defaultRoots: (home, env) => [env.CONTINUE_GLOBAL_DIR ? path.resolve(env.CONTINUE_GLOBAL_DIR) : path.join(home, '.continue')],
  discoveryPaths: ['.continue'],
  recognize(dir, names) {
    if (path.basename(dir) === '.continue' && names.length > 0) return {what: 'store', claims: 'folder'}
    if (under(dir, '.continue')) return {what: 'folder', claims: 'folder'}
    return null
  },
}
