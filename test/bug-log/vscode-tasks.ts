/**
 * The VS Code extension task folders' part of the bug log (Roo Code, Cline 3.x): the reports about the
 * extensions' task indexes, on stores written by the fixture builder (`test/helpers/vscode-tasks.ts`: the
 * shapes the extensions' source writes, the real Cline CLI 3.0.65 conversation of `shared/realdata` as content).
 * The damage is made by code on those stores; the PATH scanned is the extension's storage folder.
 */
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {buildTask, realTurns, storageDir, taskId, writeStore, type Task, type WrittenTask} from '../helpers/vscode-tasks.js'
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

const ROO = rooTasks()
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
    id: 'B39',
    title: "the Cline extension's state/taskHistory.json cut at 40 % beside five intact task folders: every task healthy, index-unreadable names Cline's reconstruct",
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
      exitCode: 0,
      chats: CLINE.map((t, k) => task(t.id, k % 2 === 0 ? 5 : 2, [API, UI, META], {findings: ['index-unreadable']})),
      repair: null,
    },
  },
]

const noEntry: NoEntry[] = []

export const vscodeTasksPart: BugLogPart = {
  agent: 'Roo Code and Cline 3.x (VS Code extensions)',
  intro:
    "The reports about the extensions' task indexes, on stores the fixture builder writes in the extensions' own shapes (the real Cline CLI conversation as content), scanned by their storage folder. Roo Code 3.48.1 and later rebuild `tasks/_index.json` from each task's `history_item.json` at every start; a task without an intact one stays hidden, and its repair writes that file from the task's own files. Cline's `state/taskHistory.json` is reported, never written (its Reconstruct Task History command rebuilds it). The other reports on these task folders are tested in `test/vscode-tasks.test.ts`.",
  entries,
  noEntry,
  complete: false,
}
