/**
 * The task folders' own finding kinds: the safe write's lock folders, a task listed only through Roo Code's
 * index cache, and the non-destructive condensing of the model context. The kinds they share with other formats (the index's, what the next start destroys, the
 * transcript's and the sidecars') are the core's.
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'

/** The finding kinds only this format reports (joined into the closed list by the registry). */
export const VSCODE_TASK_FINDING_KINDS = {
  'write-lock': {severity: 'info', description: "A lock folder of the extension's safe write (<file>.lock, proper-lockfile): held while the extension writes that file, stale after 31 s. A fresh one makes repair refuse."},
  'index-only': {severity: 'info', description: "Roo Code lists the task only through its index cache (tasks/_index.json): the task's own history_item.json is missing or torn, so an index that is reset, lost or rebuilt would leave the task out. Roo writes the file again at its next save of the task."},
  'context-condensed': {severity: 'info', description: 'Turns of the model context were condensed into a summary or hidden by sliding-window truncation: they stay stored, the model sees the summary. Not damage.'},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...VSCODE_TASK_FINDING_KINDS})
