/**
 * The VS Code extension task folders' part of the bug log (Roo Code, Cline 3.x): the reports about the
 * extensions' task indexes, on stores written by the fixture builder (`test/helpers/vscode-tasks.ts`: the
 * shapes the extensions' source writes, the real Cline CLI 3.0.65 conversation of `shared/realdata` as content).
 * The damage is made by code on those stores; the PATH scanned is the extension's storage folder.
 */
import {readFileSync, rmSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {buildTask, compact, realTurns, storageDir, taskId, writeStateDb, writeStore, type Task, type WrittenTask} from '../helpers/vscode-tasks.js'
import {cutAt} from '../helpers/fixtures.js'
import type {BugLogEntry, BugLogPart, ChatVerdict, NoEntry, RepairVerdict} from './types.js'

const API = 'api_conversation_history.json'
const UI = 'ui_messages.json'
const META = 'task_metadata.json'
const ITEM = 'history_item.json'

/** The three Roo Code tasks of B38: A (5 turns) and two of session B (2 turns). */
function rooTasks(): Task[] {
  return [buildTask('roo', taskId('roo', 0), realTurns('A')), buildTask('roo', taskId('roo', 1), realTurns('B')), buildTask('roo', taskId('roo', 2), realTurns('B'))]
}

/** An intact task's verdict (its files by name), with more fields. */
function task(id: string, turns: number, files: string[], v: Partial<ChatVerdict> = {}): ChatVerdict {
  return {chat: id, status: 'healthy', winner: API, turns: [turns, turns], files: Object.fromEntries(files.map((f) => [f, 'intact'])), ...v}
}

/** Plain repair of a hidden Roo Code task: its history_item.json written from its own files; healthy after. */
function rebuilt(chat: string, turns: number): RepairVerdict {
  return {chat, outcome: 'repaired', restores: [{to: ITEM, from: `rebuilt:${ITEM}`}], exitCode: 1, after: {status: 'healthy', winner: API, turns: [turns, turns], exitCode: 0}}
}

/** The bytes the extension writes for a model context of these messages (compact JSON), counted. */
const compactLength = (messages: unknown[]) => compact(messages).length

/** The Cline extension's task-list chat (`state/`, id `index`): its one file's verdict, repairable. */
function clineList(file: string, finding: string): ChatVerdict {
  return {chat: 'index', status: 'repairable', winner: 'taskHistory.json', turns: [null, null], files: {'taskHistory.json': file}, findings: [finding]}
}

/** Plain repair of the Cline task list: its kept entries and the rebuilt ones written over it; quiet after. */
function clineListRepair(): RepairVerdict {
  return {chat: 'index', outcome: 'repaired', restores: [{to: 'taskHistory.json', from: 'rebuilt:taskHistory.json'}], exitCode: 1, after: {status: 'healthy', winner: null, turns: [null, null], exitCode: 0}}
}

const ROO = rooTasks()
const KILO = [0, 1, 2].map((k) => buildTask('kilo', taskId('kilo', k), realTurns(k === 0 ? 'A' : 'B')))
const CLINE = [0, 1, 2, 3, 4].map((k) => buildTask('cline', taskId('cline', k), realTurns(k % 2 === 0 ? 'A' : 'B')))

/** The Roo Code store of B38 under `root`: the index lists only A; `damage` applied to the written tasks. */
function rooStore(root: string, damage: (storage: string, w: WrittenTask[]) => void): string {
  const storage = storageDir(root, 'roo')
  const w = writeStore(storage, 'roo', ROO, {listed: [ROO[0].id]})
  damage(storage, w)
  return storage
}

const entries: BugLogEntry[] = [
  {
    id: 'B38',
    title: "Roo Code's task index lists one of three intact task folders, the third without its history_item.json: Roo adds one back itself, repair rebuilds the other's history_item.json",
    agent: 'Roo Code',
    format: 'roo-code',
    damage: 'tasks/_index.json holds only task A (the last writer won, or the list was reset); task C lost its history_item.json (it was not in the global-state list the 3.48.1 migration copied)',
    build: (root) => rooStore(root, (_s, w) => rmSync(path.join(w[2].dir, ITEM))),
    expect: {
      exitCode: 2,
      chats: [
        task(ROO[0].id, 5, [API, UI, ITEM, META], {absent: ['not-in-index']}),
        task(ROO[1].id, 2, [API, UI, ITEM, META], {findings: ['not-in-index']}),
        task(ROO[2].id, 2, [API, UI, META], {status: 'repairable', findings: ['not-in-index']}),
      ],
      repair: rebuilt(ROO[2].id, 2),
    },
  },
  {
    id: 'B38',
    title: "Roo Code's task index wiped while the task folders survive, one task's history_item.json torn: that task rebuilt, the torn file kept as evidence",
    agent: 'Roo Code',
    format: 'roo-code',
    damage: 'tasks/_index.json deleted (a reset); task B\'s history_item.json cut after 40 bytes',
    build: (root) =>
      rooStore(root, (storage, w) => {
        rmSync(path.join(storage, 'tasks', '_index.json'))
        writeFileSync(path.join(w[1].dir, ITEM), cutAt(w[1].files[ITEM], 40))
      }),
    expect: {
      exitCode: 2,
      chats: [
        task(ROO[0].id, 5, [API, UI, ITEM, META], {absent: ['not-in-index']}),
        {...task(ROO[1].id, 2, [API, UI, META], {status: 'repairable', findings: ['not-in-index', 'meta-damaged']}), files: {[API]: 'intact', [UI]: 'intact', [ITEM]: 'truncated unexpected-end', [META]: 'intact'}},
        task(ROO[2].id, 2, [API, UI, ITEM, META], {absent: ['not-in-index']}),
      ],
      repair: rebuilt(ROO[1].id, 2),
    },
  },
  {
    id: 'B38',
    title: "Kilo Code's task list in VS Code's state.vscdb holds one of three intact task folders (another window's write won): the list chat adds the other two entries to the row, on a private copy",
    agent: 'Kilo Code',
    format: 'kilo-code',
    damage: "the taskHistory of kilocode.kilo-code in globalStorage/state.vscdb lists only task A (the last window's write won, or the list was reset); three task folders intact",
    build(root) {
      const storage = storageDir(root, 'kilo')
      writeStore(storage, 'kilo', KILO)
      writeStateDb(path.join(path.dirname(storage), 'state.vscdb'), [KILO[0]])
      return storage
    },
    expect: {
      exitCode: 2,
      chats: [
        {chat: 'index', status: 'repairable', winner: 'state.vscdb', turns: [null, null], files: {'state.vscdb': 'intact'}, findings: ['not-in-index']},
        task(KILO[0].id, 5, [API, UI, META], {absent: ['not-in-index']}),
        ...KILO.slice(1).map((t) => task(t.id, 2, [API, UI, META], {status: 'repairable', findings: ['not-in-index']})),
      ],
      repair: {chat: 'index', outcome: 'repaired', restores: [{to: 'state.vscdb', from: 'rebuilt:state.vscdb'}], exitCode: 1, after: {status: 'healthy', winner: null, turns: [null, null], exitCode: 0}},
    },
  },
  {
    id: 'B11',
    title: "a Roo Code model context torn inside its second message, nothing intact beside it: unrecoverable, and every output gives the repair --salvage that restores turn 1 of 2",
    agent: 'Roo Code',
    format: 'roo-code',
    damage: 'api_conversation_history.json of a 2-turn task cut 30 bytes before the end of its second message (a power loss during the in-place write); no temp or backup beside it',
    build(root) {
      const storage = storageDir(root, 'roo')
      const t = buildTask('roo', taskId('roo', 1), realTurns('B'))
      const [w] = writeStore(storage, 'roo', [t])
      writeFileSync(path.join(w.dir, API), cutAt(w.files[API], compactLength(t.api.slice(0, 2)) - 30))
      return storage
    },
    expect: {
      // A lossy salvage does not change the status: the model context is lost until repair --salvage writes it.
      exitCode: 4,
      chats: [
        {
          chat: taskId('roo', 1),
          status: 'unrecoverable',
          winner: null,
          turns: [null, 2],
          files: {[API]: 'truncated unexpected-end', [UI]: 'intact', [ITEM]: 'intact', [META]: 'intact'},
          findings: ['primary-damaged', 'context-lost', 'salvage-more-turns'],
          salvage: {[API]: {lossless: false, messages: 1, turns: 1, candidate: true}},
        },
      ],
      repair: null,
    },
  },
  {
    id: 'B39',
    title: "the Cline extension's state/taskHistory.json cut at 40 % beside five intact task folders: the list's complete entries kept byte for byte, the others rebuilt from their folders",
    agent: 'Cline 3.x',
    format: 'cline-extension',
    damage: 'state/taskHistory.json = its first 40 % (the list torn by an update\'s migration); five task folders intact',
    build(root) {
      const storage = storageDir(root, 'cline')
      writeStore(storage, 'cline', CLINE)
      const idx = path.join(storage, 'state', 'taskHistory.json')
      const bytes = readFileSync(idx)
      writeFileSync(idx, bytes.subarray(0, Math.floor(bytes.length * 0.4)))
      return storage
    },
    expect: {
      exitCode: 2,
      chats: [clineList('truncated unexpected-end', 'index-damaged'), ...CLINE.map((t, k) => task(t.id, k % 2 === 0 ? 5 : 2, [API, UI, META], {status: 'repairable', findings: ['index-unreadable']}))],
      repair: clineListRepair(),
    },
  },
  {
    id: 'B39',
    title: "the Cline extension's state/taskHistory.json holds only the two newest of five intact task folders: the three others' entries appended, rebuilt from their folders",
    agent: 'Cline 3.x',
    format: 'cline-extension',
    damage: "state/taskHistory.json lists only the two newest tasks (an update's history migration kept only recent ones); five task folders intact",
    build(root) {
      const storage = storageDir(root, 'cline')
      writeStore(storage, 'cline', CLINE, {listed: [CLINE[3].id, CLINE[4].id]})
      return storage
    },
    expect: {
      exitCode: 2,
      chats: [
        clineList('intact', 'not-in-index'),
        ...CLINE.map((t, k) => task(t.id, k % 2 === 0 ? 5 : 2, [API, UI, META], k < 3 ? {status: 'repairable', findings: ['not-in-index']} : {absent: ['not-in-index']})),
      ],
      repair: clineListRepair(),
    },
  },
  {
    id: 'B39',
    title: "the Cline extension's state/taskHistory.json gone beside five intact task folders (no older list left in VS Code's state.vscdb): the list created from the folders (undo removing it is tested in test/cline-task-history.test.ts)",
    agent: 'Cline 3.x',
    format: 'cline-extension',
    damage: 'state/taskHistory.json deleted; five task folders intact; no state.vscdb beside the storage folder',
    build(root) {
      const storage = storageDir(root, 'cline')
      writeStore(storage, 'cline', CLINE)
      unlinkSync(path.join(storage, 'state', 'taskHistory.json'))
      return storage
    },
    expect: {
      exitCode: 2,
      chats: [clineList('missing', 'not-in-index'), ...CLINE.map((t, k) => task(t.id, k % 2 === 0 ? 5 : 2, [API, UI, META], {status: 'repairable', findings: ['not-in-index']}))],
      repair: clineListRepair(),
    },
  },
]

const noEntry: NoEntry[] = []

export const vscodeTasksPart: BugLogPart = {
  agent: 'Roo Code, Kilo Code and Cline 3.x (VS Code extensions)',
  intro:
    "The reports about the extensions' task indexes, on stores the fixture builder writes in the extensions' own shapes (the real Cline CLI conversation as content), scanned by their storage folder. Roo Code 3.48.1 and later rebuild `tasks/_index.json` from each task's `history_item.json` at every start; a task without an intact one stays hidden, and its repair writes that file from the task's own files. Cline's `state/taskHistory.json` is an index chat of its own: a repair keeps every complete entry it holds byte for byte and adds those of the task folders it lacks, rebuilt from each folder's files. The other reports on these task folders are tested in `test/vscode-tasks.test.ts`.",
  entries,
  noEntry,
  complete: false,
}
