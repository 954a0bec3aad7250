/**
 * Gemini CLI (`~/.gemini`: `settings.json`, `projects.json`, `tmp/<project>/chats/session-<time>-<id8>.jsonl`,
 * peer-formats.md §4), recognised so a scan says it found it; not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'
import {under} from './shared.js'

/** A Gemini CLI chat file: `session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl` (or the legacy `.json`). */
const SESSION = /^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-[0-9a-f]{8}\.jsonl?$/
/** Entries of `~/.gemini` itself. */
const HOME_ENTRIES = new Set(['tmp', 'history', 'settings.json', 'projects.json', 'oauth_creds.json', 'google_accounts.json', 'installation_id', 'GEMINI.md'])

export const geminiCli: UnsupportedAgent = {
  name: 'gemini-cli',
  displayName: 'Gemini CLI',
  vocabulary: ['gemini', '.gemini'],
  defaultRoots: (home) => [path.join(home, '.gemini')],
  discoveryPaths: ['.gemini'],
  recognize(dir, names) {
    const chats = names.filter((n) => SESSION.test(n))
    if (chats.length > 0) return {what: chats.length === 1 ? 'chat file' : 'chats folder', claims: chats}
    if (path.basename(dir) === '.gemini' && names.some((n) => HOME_ENTRIES.has(n))) return {what: 'store', claims: 'folder'}
    if (under(dir, '.gemini')) return {what: 'folder', claims: 'folder'}
    return null
  },
}
