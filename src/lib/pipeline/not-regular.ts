/**
 * Entries of a chat that are not regular files (a symbolic link, a FIFO, a socket, a device) where the chat's
 * state lives. chatdoctor never reads or writes through them, so what a scan says of them must be what
 * `repair` does, for every format at once (the core decides, from the inventory's `kind`, never from names):
 *
 * - a chat that is a set of named files (a session log, a session file) of which none is a regular file is never
 *   read (no reading through a link, as for every other entry); it is a chat left for a step by hand, as below
 *   (the entry a repair would rewrite is that file), never skipped and never reported as a lost session;
 * - an entry a repair of the chat would replace (its plan's targets, `plan.ts` `blockedEntry`) leaves the chat
 *   to a step by hand: `repair` writes nothing, even with `--force` (outcome `manual`, exit bit 2, as every chat
 *   left for a manual repair); the scan says so too, as an error finding (`not-a-regular-file`) naming the file
 *   and the step to take by hand, and "Next:" gives that step instead of `repair`;
 * - a primary that is not a regular file and is not a target gets the same finding as a warning: what it
 *   points to was not checked.
 *
 * Read-only (a symbolic link's target is read with `readlink`, never followed).
 */
import {readlinkSync} from 'node:fs'
import path from 'node:path'
import type {FileEntry, ScannedChat} from '../model/adapter.js'
import {finding} from '../model/findings.js'
import type {ChatReport} from '../model/report.js'
import {onlyNotRegular, planChat} from './plan.js'

/** The finding id of a chat's state file that is not a regular file. */
export const NOT_REGULAR = 'not-a-regular-file'

const odd = (f: FileEntry) => f.kind === 'symlink' || f.kind === 'other'

/** What an entry is, in words (a symbolic link with its target). */
export function kindWords(dir: string, f: FileEntry): string {
  if (f.kind === 'directory') return 'a folder'
  if (f.kind !== 'symlink') return 'not a regular file (a FIFO, socket or device)'
  try {
    return `a symbolic link (to ${readlinkSync(path.join(dir, f.name))})`
  } catch {
    return 'a symbolic link'
  }
}

/** The finding's words for an entry a repair would replace: repair refuses, and the step by hand. */
function blockingWords(dir: string, f: FileEntry): string {
  return `${f.name} is ${kindWords(dir, f)}: chatdoctor never replaces or writes through it, so repair leaves this chat as it is (even with --force) until it is moved away by hand (or the file itself is put in its place); then run chatdoctor repair`
}

/** The finding's words for a primary that is not replaced: never read, and the step by hand. */
function uncheckedWords(dir: string, f: FileEntry): string {
  return `${f.name} is ${kindWords(dir, f)}: chatdoctor never reads it, so what it holds was not checked; move it away by hand (or put the file itself in its place) and scan again`
}

/**
 * Makes the report of a chat of named files none of which is a regular file (`onlyNotRegular`: a session log
 * that is a symbolic link or a FIFO) say what it is: a chat left for a step by hand, `repairable` (exit bit 2, as
 * a Codebuff chat whose `run-state.json` is a link), never a lost session. The format's findings about it are
 * dropped: they speak of bytes never read. `addNotRegular` then adds the blocking finding. Never throws.
 */
export function markNotRegularChat(chat: ScannedChat): void {
  if (!onlyNotRegular(chat.snapshot)) return
  chat.report.status = 'repairable'
  chat.report.findings = []
}

/**
 * Adds the `not-a-regular-file` findings of one scanned chat (while its bytes are at hand: the plan is made
 * from them). Never throws.
 */
export function addNotRegular(chat: ScannedChat): void {
  const {snapshot, report} = chat
  if (!snapshot.files.some(odd)) return
  let blocked: FileEntry | undefined
  try {
    blocked = planChat(chat).blocked
  } catch {
    blocked = undefined
  }
  if (blocked && blocked.kind !== 'directory') {
    report.findings.push(finding(NOT_REGULAR, blocked.name, blockingWords(snapshot.dir, blocked), 'error'))
  }
  for (const g of report.generations) {
    const f = snapshot.files.find((x) => x.name === g.file)
    if (g.role !== 'primary' || !f || !odd(f) || f === blocked) continue
    report.findings.push(finding(NOT_REGULAR, f.name, uncheckedWords(snapshot.dir, f), 'warning'))
  }
}

/**
 * `scan --quick` (no plan: the bytes are not at hand): a primary that is not a regular file, in a chat the
 * quick verdict calls `repairable`, is what the restore would replace, so it gets the blocking finding; in
 * any other chat the warning. `kind` as `lstat` gave it. Adds the finding to `report`.
 */
export function addQuickNotRegular(report: ChatReport, dir: string, primary: string, kind: FileEntry['kind']): void {
  if (kind === 'file' || kind === 'directory') return
  const f: FileEntry = {name: primary, kind, bytes: 0, mtimeMs: 0}
  if (report.status === 'repairable') report.findings.push(finding(NOT_REGULAR, primary, blockingWords(dir, f), 'error'))
  else report.findings.push(finding(NOT_REGULAR, primary, uncheckedWords(dir, f), 'warning'))
}
