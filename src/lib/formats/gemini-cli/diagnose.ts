/**
 * The diagnosis of one Gemini CLI session: every file of its short id in a chats folder (the session files, the
 * CLI's `.unreadable-<ms>` copies and `.tmp-<pid>` temps), classified line by line, replayed as the CLI's loader
 * does, ranked, and judged by what the CLI's own next start will do with them. Pure; never throws.
 *
 * The unit is the short id, because the CLI's start-up cleanup is: when one session file of a short id is one it
 * does not keep (it cannot load it, it has no session id, nothing resumable in it), it deletes every session
 * file of that short id (`sessionCleanup.ts`; observed on 0.61.0: after a resume in a later minute it deleted
 * the file holding the whole conversation and kept the 2-line orphan, new-agents.md §1.5).
 */
import {createHash} from 'node:crypto'
import path from 'node:path'
import {classifyJsonlBytes, type JsonlClassification} from '../../classify/jsonl.js'
import {finding} from './findings.js'
import {planJsonlRepair, type JsonlRepairPlan} from '../jsonl/repair.js'
import type {ChatStatus, Finding, Generation, Role} from '../../model/report.js'
import {rankCandidates, type Candidate} from '../../rank/index.js'
import type {ChatDirSnapshot, Diagnosis, FileEntry} from '../../model/adapter.js'
import {SESSION_DIALECTS} from '../jsonl/dialects.js'
import {describeChanges, describeLines} from '../jsonl/session.js'
import {isChatsDir, parseName, SESSION_ID, type GeminiFileKind} from './layout.js'
import {isGeminiRecord} from './records.js'
import {analyzeJsonl, analyzeLegacy, dropUnfinishedResume, GEMINI_RULES, type DeleteReason, type GeminiAnalysis} from './session.js'

/** One generation's verdict with what a repair would make of it. */
export interface GenState {
  gen: Generation
  entry: FileEntry
  /** `snapshot`: one of chatdoctor's stored snapshots of the session (its decrypted bytes as `entry.data`). */
  kind: GeminiFileKind | 'snapshot'
  /** A legacy `.json` document (or a copy of one). */
  legacy: boolean
  /** The short id of the session the name belongs to. */
  shortId: string | null
  cls: JsonlClassification | null
  /** The file as it is. */
  analysis: GeminiAnalysis | null
  /** The JSON-lines repair of the file (null for a legacy document). */
  plan: JsonlRepairPlan | null
  /** The file after that repair (the legacy document as it is). */
  repaired: GeminiAnalysis | null
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex')
}

/** Why the next start deletes a file, in words. */
export function deleteWords(why: DeleteReason, g: Generation): string {
  if (g.class === 'empty') return 'it is empty'
  if (g.class === 'zero-filled') return 'it holds only NUL bytes'
  if (g.reasons.includes('unreadable')) return 'it cannot be read'
  switch (why) {
    case 'unloadable':
      return 'no metadata line with its session id survives, so the CLI cannot load it'
    case 'no-session-id':
      return 'its metadata names no session id'
    case 'nothing-resumable':
      return 'it holds nothing resumable: no prompt, no answer'
    case 'subagent-kind':
      return 'its metadata says kind "subagent"'
  }
}

/** How people write the other family members' names, for the skip reason (the family lists them by id). */
const OTHER_NAMES: Record<string, string> = {'claude-code': 'Claude Code', codex: 'Codex'}

/** Which agent wrote a log's records, judged from its first 50 complete records: Gemini CLI's, or another member's of the JSON-lines family. */
function sniff(cls: JsonlClassification): {gemini: number; other: string | null; others: number} {
  const others = SESSION_DIALECTS.filter((d) => d.name !== 'gemini-cli')
  const counts = others.map(() => 0)
  let gemini = 0
  for (const r of cls.records.slice(0, 50)) {
    if (isGeminiRecord(r.value)) gemini++
    else {
      const i = others.findIndex((d) => d.isRecord(r.value))
      if (i >= 0) counts[i]++
    }
  }
  let best = -1
  for (let i = 0; i < counts.length; i++) if (counts[i] > 0 && (best < 0 || counts[i] > counts[best])) best = i
  return {gemini, other: best < 0 ? null : others[best].name, others: counts.reduce((a, b) => a + b, 0)}
}

/**
 * True when the unit's files sit as in a chats folder (the folder itself, or a copy of it such as a bundle's chat
 * folder), where the CLI's start-up cleanup applies: anywhere but a sub-agent folder `chats/<parent id>/`. A copy
 * gets the same verdict as the original, so `check` of a bundle agrees with `scan` of the chats folder.
 */
function isSessionFolder(dir: string): boolean {
  return !isChatsDir(path.dirname(dir))
}

/** Classifies and replays one generation's bytes, with what a repair would make of them (fills `st`). */
function analyze(st: GenState, data: Buffer, topLevel: boolean): void {
  const gen = st.gen
  const legacy = st.legacy
  if (legacy) {
    const l = analyzeLegacy(data, topLevel)
    gen.class = l.classification.class
    gen.reasons = [...l.classification.reasons]
    if (l.classification.damage) gen.damage = l.classification.damage
    st.analysis = l.analysis
    st.repaired = l.analysis
  } else {
    const cls = classifyJsonlBytes(data)
    st.cls = cls
    st.analysis = analyzeJsonl(cls, topLevel)
    st.plan = planJsonlRepair(data, GEMINI_RULES)
    st.repaired = st.plan.changes.length === 0 ? st.analysis : analyzeJsonl(st.plan.after, topLevel)
    if (st.plan.accepted && st.repaired.deletes === 'nothing-resumable') {
      const more = dropUnfinishedResume(data, st.plan)
      if (more?.accepted) {
        st.plan = more
        st.repaired = analyzeJsonl(more.after, topLevel)
      }
    }
    gen.class = cls.class
    gen.reasons = [...cls.reasons]
    if (cls.damage) gen.damage = cls.damage
    gen.lines = cls.counts
  }
  if (st.analysis) {
    gen.measure = {...st.analysis.measure}
    gen.turns = st.analysis.measure.turns
  }
}

/** Reads every generation of the unit (and the stored snapshots): classification, replay, repair plan. */
export function readStates(snapshot: ChatDirSnapshot): GenState[] {
  const states: GenState[] = []
  const topLevel = isSessionFolder(snapshot.dir)
  for (const entry of snapshot.files) {
    const parsed = parseName(snapshot.dir, entry.name)
    const kind: GeminiFileKind = parsed?.kind ?? 'session'
    const legacy = (parsed?.session ?? entry.name).endsWith('.json')
    const role: Role = kind === 'unreadable' ? 'backup' : kind === 'temp' ? 'temp' : 'primary'
    const gen: Generation = {file: entry.name, role, class: null, reasons: [], bytes: entry.bytes, mtimeMs: entry.mtimeMs, sha256: null, turns: null}
    const st: GenState = {gen, entry, kind, legacy, shortId: parsed?.shortId ?? null, cls: null, analysis: null, plan: null, repaired: null}
    states.push(st)
    if (entry.kind !== 'file') {
      gen.class = 'corrupt'
      gen.reasons = ['not-a-file']
      continue
    }
    if (entry.data === undefined) {
      // Not read (permission, I/O error), or too large to read whole: the inventory's streamed verdict is of one
      // JSON document, which a JSON-lines file is not, so only a legacy document keeps it.
      const streamed = legacy ? entry.streamed : undefined
      gen.class = streamed ? streamed.classification.class : 'corrupt'
      gen.reasons = streamed ? [...streamed.classification.reasons] : ['unreadable']
      if (entry.streamed) gen.sha256 = entry.streamed.sha256
      continue
    }
    gen.sha256 = sha256(entry.data)
    gen.bytes = entry.data.length
    analyze(st, entry.data, topLevel)
  }
  // chatdoctor's stored snapshots of the session: generations of role `snapshot`, ranked with the session files.
  for (const snap of snapshot.snapshots ?? []) {
    if (snap.data === undefined || snap.header.kind !== 'generation' || snap.header.target === null) continue
    const mtimeMs = Date.parse(snap.header.time)
    const entry: FileEntry = {name: snap.name, kind: 'file', bytes: snap.data.length, mtimeMs, data: snap.data}
    const gen: Generation = {file: snap.name, role: 'snapshot', class: null, reasons: [], bytes: snap.data.length, mtimeMs, sha256: snap.header.sha256, turns: null}
    const st: GenState = {gen, entry, kind: 'snapshot', legacy: snap.header.target.endsWith('.json'), shortId: parseName(snapshot.dir, snap.header.target)?.shortId ?? null, cls: null, analysis: null, plan: null, repaired: null}
    states.push(st)
    analyze(st, snap.data, topLevel)
  }
  return states
}

/** The file the CLI resumes: of the session files it keeps, the one updated last (ties: the first by name). */
function pickPrimary(states: GenState[]): GenState | undefined {
  const sessions = states.filter((s) => s.kind === 'session')
  const kept = sessions.filter((s) => s.analysis && s.analysis.deletes === null)
  const byName = (a: GenState, b: GenState) => (a.gen.file < b.gen.file ? -1 : a.gen.file > b.gen.file ? 1 : 0)
  if (kept.length > 0) return [...kept].sort((a, b) => (b.analysis!.lastUpdated ?? -Infinity) - (a.analysis!.lastUpdated ?? -Infinity) || byName(a, b))[0]
  const files = sessions.filter((s) => s.entry.kind === 'file')
  const records = (s: GenState) => s.analysis?.measure.records ?? s.cls?.records.length ?? 0
  if (files.length > 0) return [...files].sort((a, b) => records(b) - records(a) || byName(a, b))[0]
  return sessions[0]
}

/** What the next start does to the chat, found from the files as they are now. */
interface StartHazard {
  /** Session files the cleanup does not keep, with why. */
  triggers: Array<{st: GenState; why: DeleteReason}>
  /** The short id the cleanup deletes by. */
  shortId: string | null
}

function startHazard(states: GenState[]): StartHazard {
  const triggers: StartHazard['triggers'] = []
  for (const s of states) {
    if (s.kind !== 'session' || s.entry.kind !== 'file') continue
    if (s.analysis === null) triggers.push({st: s, why: 'unloadable'})
    else if (s.analysis.deletes !== null) triggers.push({st: s, why: s.analysis.deletes})
  }
  return {triggers, shortId: states.find((s) => s.shortId !== null)?.shortId ?? null}
}

/** Diagnoses one Gemini CLI session. */
export function diagnoseGemini(snapshot: ChatDirSnapshot): Diagnosis {
  const only = snapshot.files.length === 1 ? snapshot.files[0] : undefined
  if (only && SESSION_ID.test(only.name)) {
    return {kind: 'skipped', reason: only.kind === 'directory' ? `a sub-agent folder of session ${only.name} whose session file is gone (no session file of short id ${only.name.slice(0, 8)} beside it)` : 'not a Gemini CLI session file'}
  }
  const states = readStates(snapshot)
  // Told apart from the other JSON-lines agents by content: a file of their records is never taken for Gemini's.
  let gemini = 0
  let others = 0
  let other: string | null = null
  for (const s of states) {
    if (!s.cls) continue
    const f = sniff(s.cls)
    gemini += f.gemini
    others += f.others
    other ??= f.other
  }
  if (gemini === 0 && others > 0) return {kind: 'skipped', reason: `holds ${OTHER_NAMES[other ?? ''] ?? other} session records under a Gemini CLI session name; not diagnosed as Gemini CLI (point chatdoctor at the file under its own name)`}

  const topLevel = isSessionFolder(snapshot.dir)
  const findings: Finding[] = []
  const primary = pickPrimary(states)
  for (const s of states) if (s.kind === 'session' && s !== primary) s.gen.role = 'sibling'
  const withPrompts = states.some((s) => s.kind === 'session' && (s.analysis?.counts.prompts ?? 0) > 0)
  for (const s of states) {
    const a = s.analysis
    if (!a || s.gen.class !== 'intact' || !a.replay.loads || a.counts.resumable > 0) continue
    // Parses, loads, but holds nothing of a conversation: the start-up's own records only.
    s.gen.class = 'contextless'
    s.gen.reasons = a.promptsWritten > 0 ? [] : [s.gen.role === 'sibling' && withPrompts ? 'sibling-orphan' : 'fresh-chat']
  }

  // Candidates: generations that, once repaired, the CLI loads and keeps.
  type C = Candidate & {st: GenState}
  const candidates: C[] = []
  const usable = (s: GenState, loadsOnly: boolean) => s.repaired !== null && (s.plan === null || s.plan.accepted) && (loadsOnly ? s.repaired.replay.loads : s.repaired.deletes === null)
  for (const s of states) if (usable(s, false)) candidates.push({file: s.gen.file, measure: {...s.repaired!.measure}, mtimeMs: s.gen.mtimeMs, st: s})
  // A session that never got a prompt (only the start-up's records): nothing to lose, the file itself is the chat.
  if (candidates.length === 0 && !withPrompts) for (const s of states) if (usable(s, true)) candidates.push({file: s.gen.file, measure: {...s.repaired!.measure}, mtimeMs: s.gen.mtimeMs, st: s})
  const keep = primary && candidates.some((c) => c.st === primary) ? primary.gen.file : undefined
  const {order, entries: ranking} = rankCandidates(candidates, keep)
  const best = order[0] as C | undefined

  const hazard = topLevel ? startHazard(states) : {triggers: [], shortId: null}
  const setAside = hazard.triggers.filter((t) => t.st !== best?.st)

  // Findings: line damage of each generation, what the loader and the next start make of the files.
  for (const s of states) {
    const cls = s.cls
    if (s.kind === 'snapshot') continue
    if (s.entry.kind === 'file' && s.entry.data === undefined) findings.push(finding('unreadable', s.gen.file, `could not read ${s.gen.file} (${s.entry.readError ?? (s.entry.streamed ? `${s.entry.bytes} bytes, too large to read whole` : 'unknown error')}); not diagnosed, never written`))
    if (s.entry.kind !== 'file') findings.push(finding('unknown-file', s.gen.file, `${s.gen.file} is ${s.entry.kind === 'symlink' ? 'a symbolic link' : s.entry.kind === 'directory' ? 'a folder' : 'not a regular file'}: never read, never touched`, 'warning'))
    if (s.entry.data && s.entry.data.length !== s.entry.bytes) findings.push(finding('session-live', s.gen.file, `${s.gen.file} changed size while it was read (${s.entry.bytes} → ${s.entry.data.length} bytes): Gemini CLI is probably writing it`))
    if (s.legacy && s.gen.class !== null && s.gen.class !== 'intact' && s.gen.class !== 'contextless' && s.entry.data) findings.push(finding('session-corrupt', s.gen.file, `the legacy session document is ${s.gen.class}${s.gen.reasons.length ? ` (${s.gen.reasons.join(', ')})` : ''}; Gemini CLI cannot load it`))
    if (!cls) continue
    const repairWords = s.plan && s.plan.changes.length > 0 ? `; a repair would ${s.plan.accepted ? describeChanges(s.plan) : `not be accepted: ${s.plan.problems.join('; ')}`}` : ''
    const what = cls.class === 'empty' || cls.class === 'zero-filled' ? cls.class : `${cls.class}: ${describeLines(cls)}`
    if (cls.class === 'truncated') findings.push(finding('session-truncated', s.gen.file, `${what}${repairWords}`))
    else if (cls.class === 'corrupt') findings.push(finding('session-corrupt', s.gen.file, `${what}${repairWords}`))
    if (cls.records.length > 0 && s.analysis && !s.analysis.replay.loads) findings.push(finding('missing-header', s.gen.file, `no metadata line (sessionId, projectHash) survives among its ${plural(cls.records.length, 'complete record')}: Gemini CLI cannot load or resume it${s.shortId ? `; its name still tells the short id ${s.shortId}` : ''}`))
  }
  for (const s of states) {
    if (s.gen.role === 'sibling') {
      const orphan = s.gen.reasons.includes('sibling-orphan')
      findings.push(finding('session-sibling', s.gen.file, orphan ? `${s.gen.file} is an orphan of this session (short id ${s.shortId}): it holds only what Gemini CLI writes when it starts (a resume in a later minute starts a second file; the conversation went on in ${primary?.gen.file ?? 'the other file'})` : `${s.gen.file} is another file of this session (short id ${s.shortId}); Gemini CLI resumes ${primary?.gen.file ?? 'the file updated last'}`))
    }
    if (s.kind === 'unreadable') findings.push(finding('quarantined-copy', s.gen.file, `Gemini CLI set this copy aside when it could not reload the session, and rewrote the session file from memory${s.gen.class === 'intact' && s.repaired ? ` (the copy holds ${plural(s.repaired.counts.prompts, 'prompt')})` : ''}`))
    if (s.kind === 'temp') findings.push(finding(s.gen.class === 'intact' ? 'temp-leftover' : 'temp-damaged', s.gen.file, `a temp of Gemini CLI's rewrite of the session file, left when the process died before the rename`))
  }

  // Before the agent's next start.
  if (hazard.triggers.length > 0) {
    const victims = states.filter((s) => s.kind === 'session' && s.entry.kind === 'file')
    const lost = victims.reduce((n, s) => n + (s.analysis?.promptsWritten ?? 0), 0)
    const records = victims.reduce((n, s) => n + (s.cls?.records.length ?? 0), 0)
    const t = hazard.triggers[0]
    const unfinished = t.st.plan?.changes.some((c) => c.kind === 'drop-trailing') === true
    const because = `${t.st.gen.file} (${unfinished ? 'it ends in a resumed start that never wrote its full checkpoint, so it replays as an empty session' : deleteWords(t.why, t.st.gen)})`
    const all = victims.map((s) => s.gen.file)
    const keptHold = victims.some((s) => !hazard.triggers.some((x) => x.st === s) && (s.analysis?.promptsWritten ?? 0) > 0)
    if (best && t.st === best.st && lost > 0) {
      findings.push(finding('next-start-loss', t.st.gen.file, `Gemini CLI's next start (any start, even \`gemini --list-sessions\`) deletes ${because}, with the ${plural(lost, 'prompt')} it holds${victims.length > 1 ? `, and by its short id ${hazard.shortId} every other session file of this session` : ''}. chatdoctor repair makes it a session file the CLI keeps (${describeChanges(t.st.plan!)}); run it, or chatdoctor bundle the chat, before Gemini CLI starts again`))
    } else if (keptHold) {
      const others = all.filter((f) => !hazard.triggers.some((x) => x.st.gen.file === f))
      findings.push(finding('next-start-loss', t.st.gen.file, `Gemini CLI's next start (any start, even \`gemini --list-sessions\`) deletes ${because} and, by its short id ${hazard.shortId}, every session file of this session${others.length > 0 ? `: ${others.join(', ')} with it` : ''} (${plural(lost, 'prompt')} in all). Run chatdoctor repair on this chat (it sets ${setAside.map((x) => x.st.gen.file).join(', ') || t.st.gen.file} aside, keeping it as evidence), or chatdoctor bundle it, before Gemini CLI starts again`))
    } else if (lost > 0) {
      findings.push(finding('next-start-loss', t.st.gen.file, `Gemini CLI's next start deletes ${because}, with the ${plural(lost, 'prompt')} in its ${plural(records, 'complete record')}; bundle it (chatdoctor bundle) or copy it out of ~/.gemini/tmp before Gemini CLI starts again`))
    } else {
      findings.push(finding('next-start-loss', t.st.gen.file, `Gemini CLI's next start deletes ${because}; it holds nothing of a conversation${t.st.gen.class === 'contextless' ? '' : ' (bundle it first to keep the evidence)'}`, t.st.gen.class === 'contextless' ? 'info' : 'warning'))
    }
  }
  if (topLevel && primary?.cls && primary.plan && !hazard.triggers.some((t) => t.st === primary)) {
    const last = primary.cls.lines[primary.cls.lines.length - 1]
    if (last && last.eol === 'none' && last.reasons.includes('torn-tail')) findings.push(finding('next-start-loss', primary.gen.file, `the last line is a torn record with no line end: Gemini CLI's next append (a resume, or \`--list-sessions\` saving a summary) goes directly after the torn bytes, and its loader then loses that record too; a repair drops the torn record (kept as evidence) so the next record starts a line of its own`, 'warning'))
    else if (primary.plan.changes.some((c) => c.kind === 'add-newline') && !primary.plan.changes.some((c) => c.kind !== 'add-newline')) findings.push(finding('next-start-loss', primary.gen.file, `the last record has no line end: Gemini CLI's next append runs onto the same line, and its loader then loses both records; a repair adds the line end`, 'warning'))
  }

  if (best && best.st.kind === 'snapshot') findings.push(finding('snapshot-restores', null, `${best.file} holds ${plural(best.measure.turns, 'answered prompt')}, more than a repair of the session files on disk keeps (${primary?.repaired ? primary.repaired.measure.turns : 0}); repair writes its bytes back as ${primary?.gen.file ?? 'the session file'}`))
  else if (best && primary && best.st !== primary && primary.repaired) findings.push(finding('primary-behind', primary.gen.file, `${primary.gen.file} reaches ${primary.repaired.measure.turns} answered prompts even after repair; ${best.file} reaches ${best.measure.turns}`))

  // Setting a file aside matters when the cleanup it triggers would take a file holding prompts with it.
  const endangered = setAside.length > 0 && states.some((s) => s.kind === 'session' && !hazard.triggers.some((t) => t.st === s) && (s.analysis?.promptsWritten ?? 0) > 0)
  let status: ChatStatus
  if (!best) status = 'unrecoverable'
  else if (best.st !== primary || (best.st.plan?.changes.length ?? 0) > 0 || endangered) status = 'repairable'
  else status = 'healthy'
  // A chat whose files could not be read is not known to be lost: the unread files are said (exit bit 8).
  const unread = states.some((s) => s.kind !== 'temp' && (s.entry.kind !== 'file' || s.entry.data === undefined))
  if (status === 'unrecoverable' && !unread) {
    const main = primary ?? states[0]
    const why = main?.plan && main.plan.problems.length > 0 ? main.plan.problems.join('; ') : main?.legacy ? 'the legacy document is not whole' : 'no complete record survives'
    findings.push(finding('context-lost', null, `no generation gives a session file Gemini CLI loads and keeps (${why})`))
  }

  const transcriptTurns = states.reduce<number | null>((m, s) => (s.kind !== 'temp' && s.analysis ? Math.max(m ?? 0, s.analysis.promptsWritten) : m), null)
  const id = best?.st.repaired?.sessionId ?? primary?.analysis?.sessionId ?? states.find((s) => s.analysis?.sessionId)?.analysis?.sessionId ?? hazard.shortId ?? states.find((s) => s.shortId)?.shortId ?? path.basename(snapshot.unit.path).replace(/\.jsonl?$/, '')
  return {
    kind: 'chat',
    report: {
      format: 'gemini-cli',
      id,
      status,
      winner: best ? best.file : null,
      transcriptTurns,
      contextTurns: best ? best.measure.turns : null,
      findings,
      generations: states.map((s) => s.gen),
      ranking,
    },
  }
}
