/**
 * The extension task-folder adapters' discovery parts (the registry's `LIGHT_MEMBERS`): what a scan reads of
 * every adapter before it knows which agents' chats it found. The rest of both adapters (index.ts: diagnosis,
 * salvage, repair) is loaded for a task folder or a storage folder found only; a storage folder's listing
 * (store.ts) and its task lists (cline-index.ts, kilo-index.ts) load when they are read.
 */
import path from 'node:path'
import type {FormatAdapter} from '../../model/adapter.js'
import {VSCODE_TASK_FINDING_KINDS} from './findings.js'
import {clineHistoryStoresOf, kiloListStoresOf} from './index-stores.js'
import {API_HISTORY, DISCOVERY_PATHS, FORMAT_OF, HISTORY_ITEM, UI_MESSAGES, defaultRoots, isInStorage, isStorageRoot, isTaskDir} from './layout.js'

const FORMATS = Object.values(FORMAT_OF)

/** The members of the task-folder adapter (`vscode-tasks`) that discovery, the help texts and the finding kinds read. */
export const vscodeTasksLight = {
  name: 'vscode-tasks',
  displayName: 'Roo Code, Kilo Code and Cline 3.x',
  formats: FORMATS,
  vocabulary: [
    'vscode-tasks', 'vscode-task-store', ...FORMATS, 'rooveterinaryinc.roo-cline', 'kilocode.kilo-code', 'saoudrizwan.claude-dev',
    API_HISTORY, UI_MESSAGES, HISTORY_ITEM, 'task_metadata.json', 'taskHistory.json', '_index.json', 'customStoragePath', 'globalStorage', 'state.vscdb',
  ],
  findingKinds: VSCODE_TASK_FINDING_KINDS,
  defaultRoots: () => [],
  chatsIn: (dir, names) => (isTaskDir(names) ? {chats: [{dir, path: dir}], descend: false} : null),
  help: {
    find: "Roo Code, Kilo Code and Cline 3.x: the extension's History view (a task its index lost is not in it)",
    roots:
      'the globalStorage folders of Roo Code, Kilo Code and Cline 3.x in every VS Code-family editor (Code, Insiders, VSCodium, Cursor, Windsurf; Linux, macOS, Windows and remote-server paths) plus the customStoragePath their settings.json names',
    repair:
      'Roo Code, Kilo Code and Cline 3.x tasks: the best generation of api_conversation_history.json (a leftover of the safe write, or a torn file whose every message survives) is written byte for byte, and a torn or missing ui_messages.json is restored from its leftover or its salvage; a Roo Code task its index lacks whose history_item.json is missing or torn gets that file rebuilt from its own files (Roo adds it back to tasks/_index.json at its next start); the Cline extension\'s state/taskHistory.json gets the entries of the task folders it lacks, rebuilt from each folder\'s files, every entry it holds kept byte for byte (a torn list cut back to its complete entries first, a missing one created, the entries Cline migrates itself from VS Code\'s state.vscdb left out); Kilo Code\'s list in VS Code\'s state.vscdb gets them inserted into its row on a private copy written over the database (Linux only, while no editor has it open). A task is refused while its <file>.lock folder is fresher than 31 s (the extension is writing) or a process holds its storage folder or the editor profile\'s globalStorage/state.vscdb open (the editor is running; Linux /proc only).',
    inspect: 'For a Roo Code, Kilo Code or Cline 3.x task: what the safe write left behind and what opening the task in the extension would destroy.',
    bundle: 'A task folder of Roo Code, Kilo Code or Cline 3.x is bundled with its JSON files; with --redact every text becomes a placeholder but the user-content tags, so the redacted task counts the same turns (its checkpoints are left out).',
  },
} satisfies Partial<FormatAdapter>

/** The members of the storage-folder adapter (`vscode-task-store`) that discovery, the indexes' stores, the help texts and the finding kinds read. */
export const vscodeTaskStoresLight = {
  ...vscodeTasksLight,
  name: 'vscode-task-store',
  formats: [],
  defaultRoots,
  discoveryPaths: DISCOVERY_PATHS,
  // A task folder given on its own below a storage folder (found first here, so discovery keeps this unit) is
  // listed with what that folder's task index says of it, as in a scan of the storage folder.
  chatsIn: (dir, names) => (isStorageRoot(dir, names) || (isTaskDir(names) && isInStorage(dir)) ? {chats: [], descend: false, store: true} : null),
  listStore: async (dir) => {
    const store = await import('./store.js')
    return isInStorage(dir) ? store.listTaskOfStorage(dir) : store.listStorage(dir)
  },
  /** The extensions' task lists; `annotate` and `followUp` come with the whole adapter (index.ts). */
  indexes: {
    storesOf: (chats) => [...clineHistoryStoresOf(chats), ...kiloListStoresOf(chats)],
    read: async (dir) => (path.basename(dir) === 'globalStorage' ? (await import('./kilo-index.js')).readKiloIndex(dir) : (await import('./cline-index.js')).readClineHistory(dir)),
  },
} satisfies Partial<FormatAdapter>
