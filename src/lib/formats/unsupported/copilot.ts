/**
 * GitHub Copilot: the CLI's `~/.copilot/session-state/<id>/events.jsonl` (with `workspace.yaml`, `session.db`),
 * VS Code Copilot Chat's `globalStorage/github.copilot-chat/` and `workspaceStorage/<hash>/chatSessions/`
 * (bug-log B08, B14, B21, B22, B30, B34). Recognised so a scan says it found them, and so its `events.jsonl`
 * is never taken for another agent's session log; not diagnosed yet. A search of the home does not enter the
 * editors' workspace storage (it holds every extension's per-workspace data): its chat sessions folders are
 * found when a PATH leads there.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'
import {extensionDiscoveryPaths, extensionStorageDirs, under} from './shared.js'

const EXTENSION = 'github.copilot-chat'

export const copilot: UnsupportedAgent = {
  name: 'github-copilot',
  displayName: 'GitHub Copilot',
  vocabulary: ['copilot', '.copilot', 'github.copilot-chat', 'chatSessions', 'events.jsonl'],
  defaultRoots: (home, env) => [path.join(home, '.copilot'), ...extensionStorageDirs(home, env, EXTENSION)],
  discoveryPaths: ['.copilot', ...extensionDiscoveryPaths(EXTENSION)],
  recognize(dir, names) {
    const base = path.basename(dir)
    if (base === '.copilot' && names.length > 0) return {what: 'CLI store', claims: 'folder'}
    if (under(dir, '.copilot')) return {what: 'folder', claims: 'folder'}
    if (base === EXTENSION) return {what: 'chat store', claims: 'folder'}
    if (base === 'chatSessions' && under(dir, 'workspaceStorage')) return {what: 'chat sessions folder', claims: 'folder'}
    if (names.includes('events.jsonl') && (names.includes('workspace.yaml') || names.includes('session.db') || names.includes('vscode.metadata.json'))) return {what: 'CLI session folder', claims: 'folder'}
    return null
  },
}
