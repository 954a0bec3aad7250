/**
 * Aider: `.aider.chat.history.md` and `.aider.input.history` in the repository it ran in (peer-formats.md §5.4).
 * Recognised so a scan says it found them; the rest of the folder is searched as usual. Not diagnosed yet.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'

const FILES = ['.aider.chat.history.md', '.aider.input.history']

export const aider: UnsupportedAgent = {
  name: 'aider',
  displayName: 'Aider',
  vocabulary: ['aider', '.aider.chat.history.md', '.aider.input.history'],
  defaultRoots: (home) => FILES.map((f) => path.join(home, f)),
  recognize(_dir, names) {
    const found = FILES.filter((f) => names.includes(f))
    return found.length > 0 ? {what: 'chat history', claims: found} : null
  },
}
