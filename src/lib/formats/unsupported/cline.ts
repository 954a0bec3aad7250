/**
 * Cline: the VS Code extension's `globalStorage/saoudrizwan.claude-dev/` (`tasks/<id>/api_conversation_history.json`,
 * `ui_messages.json`, `state/taskHistory.json`) and the CLI's `~/.cline/data/` (peer-formats.md §5.2); and the
 * task folder layout Cline, Roo Code and Kilo Code share, told apart by the extension folder above it.
 * Recognised so a scan says it found them; not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'
import {extensionDiscoveryPaths, extensionStorageDirs, under} from './shared.js'

const EXTENSION = 'saoudrizwan.claude-dev'
/** The extension folders of the agents that share Cline's task layout. */
const TASK_FAMILY: Record<string, string> = {[EXTENSION]: 'Cline', 'rooveterinaryinc.roo-cline': 'Roo Code', 'kilocode.kilo-code': 'Kilo Code'}
/** The files of a task folder of that layout. */
const TASK_FILES = ['api_conversation_history.json', 'ui_messages.json']

export const cline: UnsupportedAgent = {
  name: 'cline',
  displayName: 'Cline',
  vocabulary: ['cline', 'saoudrizwan.claude-dev', '.cline', 'api_conversation_history.json', 'ui_messages.json', 'taskHistory.json'],
  defaultRoots: (home, env) => [...extensionStorageDirs(home, env, EXTENSION), path.join(home, '.cline')],
  discoveryPaths: [...extensionDiscoveryPaths(EXTENSION), '.cline'],
  recognize(dir, names) {
    const base = path.basename(dir)
    if (base === EXTENSION) return {what: 'extension store', claims: 'folder'}
    if (base === '.cline' && names.includes('data')) return {what: 'store', claims: 'folder'}
    if (under(dir, '.cline')) return {what: 'folder', claims: 'folder'}
    if (!TASK_FILES.some((f) => names.includes(f))) return null
    // A task folder: whose it is, by the extension folder above it; the layout alone cannot tell.
    const owner = Object.keys(TASK_FAMILY).find((ext) => under(dir, ext))
    if (owner && owner !== EXTENSION) return null
    return {what: 'task folder', claims: 'folder', agent: owner ? 'Cline' : 'Cline, Roo Code or Kilo Code'}
  },
}

/** Roo Code (`globalStorage/rooveterinaryinc.roo-cline/`, Cline's task layout, peer-formats.md §5.1). */
export const rooCode: UnsupportedAgent = {
  name: 'roo-code',
  displayName: 'Roo Code',
  vocabulary: ['roo', 'rooveterinaryinc.roo-cline'],
  defaultRoots: (home, env) => extensionStorageDirs(home, env, 'rooveterinaryinc.roo-cline'),
  discoveryPaths: extensionDiscoveryPaths('rooveterinaryinc.roo-cline'),
  recognize(dir, names) {
    if (path.basename(dir) === 'rooveterinaryinc.roo-cline') return {what: 'extension store', claims: 'folder'}
    if (under(dir, 'rooveterinaryinc.roo-cline') && TASK_FILES.some((f) => names.includes(f))) return {what: 'task folder', claims: 'folder'}
    return null
  },
}
