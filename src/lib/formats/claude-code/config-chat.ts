/**
 * Claude Code's registry as a chat: the diagnosis of `~/.claude.json` and its generations (role `index`), what
 * it and the project folders say of each session log (`annotate`), and the repair plan.
 *
 * The config's candidates are its intact generations: the backups and corrupted copies in `backups/` that parse,
 * each complete document of a file holding two back to back (two writers), and the complete top-level members
 * of a torn config (a salvage: every member byte for byte, the object closed after the last whole one). They are
 * ranked by what they hold, never by time alone: a first-run skeleton (no projects, no startups) last, then
 * projects, MCP servers, trusted projects, allowed tools, then the startup count and the time. The winner is
 * restored over a damaged or emptied config (the damaged one kept as evidence); a skeleton is never restored
 * silently (the report names the binary's own `cp` command instead).
 */
import {createHash} from 'node:crypto'
import path from 'node:path'
import {classifyJsonBytes} from '../../classify/index.js'
import type {ActionSource, ChatDirSnapshot, ChatPlan, Diagnosis, IndexAnnotation, ScannedChat} from '../../model/adapter.js'
import type {ChatStatus, Classification, Finding, Generation} from '../../model/report.js'
import {finding} from './findings.js'
import {CONFIG, CONFIG_GENERATION, claudeBaseOf, configDirOf, slugOf, type ClaudeConfigFacts} from './config-store.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The config facts of a snapshot, when it is Claude Code's registry chat. */
export function configFactsOf(snapshot: Pick<ChatDirSnapshot, 'unit'>): ClaudeConfigFacts | null {
  const f = snapshot.unit.facts as ClaudeConfigFacts | undefined
  return f && f.kind === 'claude-config' ? f : null
}

/** What a config generation holds, for ranking. */
export interface Richness {
  projects: number
  mcpServers: number
  trusted: number
  allowedTools: number
  startups: number
  /** No projects, no startups: what a first start writes before anything else. */
  skeleton: boolean
}

export function richnessOf(v: Record<string, unknown>): Richness {
  const projects = isObj(v.projects) ? Object.values(v.projects).filter(isObj) : []
  const count = (o: unknown) => (isObj(o) ? Object.keys(o).length : Array.isArray(o) ? o.length : 0)
  const mcpServers = count(v.mcpServers) + projects.reduce((n, p) => n + count(p.mcpServers), 0)
  const trusted = projects.filter((p) => p.hasTrustDialogAccepted === true).length
  const allowedTools = projects.reduce((n, p) => n + count(p.allowedTools), 0)
  const startups = typeof v.numStartups === 'number' ? v.numStartups : 0
  return {projects: projects.length, mcpServers, trusted, allowedTools, startups, skeleton: projects.length === 0 && startups === 0 && mcpServers === 0}
}

function describeRichness(r: Richness): string {
  if (r.skeleton) return 'a first-run skeleton'
  return `${plural(r.projects, 'project')}, ${r.trusted} trusted, ${plural(r.allowedTools, 'allowed tool')}, ${plural(r.mcpServers, 'MCP server')}, ${plural(r.startups, 'startup')}`
}

/** One intact generation of the config. */
export interface ConfigCandidate {
  /** The member's path, or a label (`salvage:.claude.json`, `.claude.json#2`). */
  name: string
  source: ActionSource
  bytes: Buffer
  richness: Richness
  mtimeMs: number
  /** Time in the generation's name (`.backup.<ms>`), else its mtime. */
  timeMs: number
}

/** Ranks candidates: skeletons last, then what they hold, then the startup count, then time. */
export function rankConfigCandidates(cs: ConfigCandidate[]): ConfigCandidate[] {
  return [...cs].sort(
    (a, b) =>
      Number(a.richness.skeleton) - Number(b.richness.skeleton) ||
      b.richness.projects - a.richness.projects ||
      b.richness.mcpServers - a.richness.mcpServers ||
      b.richness.trusted - a.richness.trusted ||
      b.richness.allowedTools - a.richness.allowedTools ||
      b.richness.startups - a.richness.startups ||
      b.timeMs - a.timeMs ||
      (a.name < b.name ? -1 : 1),
  )
}

/**
 * The complete top-level members of a torn JSON object, byte for byte, closed after the last whole one; null when
 * no member is whole or the result does not parse.
 */
export function salvageMembers(data: Buffer): Buffer | null {
  let i = 0
  while (i < data.length && (data[i] === 0x20 || data[i] === 0x0a || data[i] === 0x0d || data[i] === 0x09)) i++
  if (data[i] !== 0x7b) return null
  let depth = 0
  let inString = false
  let lastEnd = -1
  for (; i < data.length; i++) {
    const c = data[i]
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
      continue
    }
    if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) depth++
    else if (c === 0x7d || c === 0x5d) {
      depth--
      if (depth === 0) return null
    } else if (c === 0x2c && depth === 1) lastEnd = i
  }
  if (lastEnd < 0) return null
  const out = Buffer.concat([data.subarray(0, lastEnd), Buffer.from('\n}\n')])
  try {
    return isObj(JSON.parse(out.toString('utf8'))) ? out : null
  } catch {
    return null
  }
}

/** The config file as the snapshot read it, its verdict, and every candidate. */
export interface ConfigState {
  primary: {name: string; data: Buffer | null; cls: Classification | null; bytes: number; mtimeMs: number} | null
  /** Why the primary is unusable or emptied, in words; null when it is fine (or absent). */
  damage: string | null
  /** True when the primary is intact but a skeleton while a generation holds more. */
  emptied: boolean
  candidates: ConfigCandidate[]
}

function timeOfName(name: string, mtimeMs: number): number {
  const m = CONFIG_GENERATION.exec(path.basename(name))
  return m ? Number(m[2]) : mtimeMs
}

export function configState(snapshot: ChatDirSnapshot): ConfigState {
  const cands: ConfigCandidate[] = []
  let primary: ConfigState['primary'] = null
  for (const e of snapshot.files) {
    if (e.kind !== 'file') continue
    const data = e.data ?? null
    const isPrimary = e.name === CONFIG
    const cls = data ? classifyJsonBytes(data) : null
    if (isPrimary) primary = {name: e.name, data, cls, bytes: e.bytes, mtimeMs: e.mtimeMs}
    if (!data || !cls) continue
    const time = timeOfName(e.name, e.mtimeMs)
    if (cls.class === 'intact' && isObj(cls.value)) {
      if (!isPrimary) cands.push({name: e.name, source: {kind: 'file', name: e.name}, bytes: data, richness: richnessOf(cls.value), mtimeMs: e.mtimeMs, timeMs: time})
      continue
    }
    if (cls.reasons.includes('concatenated') && cls.damage) {
      // Two writers: each complete document is a candidate (the later one newer).
      const first = data.subarray(0, cls.damage.offset)
      const rest = data.subarray(cls.damage.offset)
      let k = 0
      for (const part of [first, rest]) {
        k++
        const c = classifyJsonBytes(part)
        const label = `${e.name}#${k}`
        if (c.class === 'intact' && isObj(c.value)) cands.push({name: label, source: {kind: 'bytes', label, data: part}, bytes: part, richness: richnessOf(c.value), mtimeMs: e.mtimeMs, timeMs: time + k})
      }
    } else if (isPrimary && (cls.class === 'truncated' || cls.class === 'corrupt')) {
      const s = salvageMembers(data)
      if (s) {
        const v = JSON.parse(s.toString('utf8')) as Record<string, unknown>
        const label = `salvage:${e.name}`
        cands.push({name: label, source: {kind: 'bytes', label, data: s}, bytes: s, richness: richnessOf(v), mtimeMs: e.mtimeMs, timeMs: time})
      }
    }
  }
  let damage: string | null = null
  let emptied = false
  const p = primary as ConfigState['primary']
  if (p && p.cls) {
    if (p.cls.class !== 'intact') damage = `${p.cls.class}${p.cls.reasons.length ? ` (${p.cls.reasons.join(', ')})` : ''}${p.cls.damage && p.cls.damage.length > 0 ? ` from byte ${p.cls.damage.offset} of ${p.bytes}` : ''}`
    else if (!isObj(p.cls.value)) damage = 'not a JSON object'
    else if (richnessOf(p.cls.value).skeleton && cands.some((c) => !c.richness.skeleton)) emptied = true
  } else if (p && !p.data) damage = 'unreadable'
  return {primary: p, damage, emptied, candidates: rankConfigCandidates(cands)}
}

function generationsOf(snapshot: ChatDirSnapshot): Generation[] {
  return snapshot.files.map((e) => {
    const g: Generation = {file: e.name, role: 'index', class: null, reasons: [], bytes: e.bytes, mtimeMs: e.mtimeMs, sha256: null, turns: null}
    if (e.kind !== 'file') {
      g.class = 'corrupt'
      g.reasons = ['not-a-file']
    } else if (!e.data) {
      g.class = 'corrupt'
      g.reasons = ['unreadable']
    } else {
      const c = classifyJsonBytes(e.data)
      g.class = c.class
      g.reasons = [...c.reasons]
      if (c.damage) g.damage = c.damage
      if (c.class === 'intact' && isObj(c.value) && e.name === CONFIG && richnessOf(c.value).skeleton) {
        g.class = 'contextless'
        g.reasons = ['semantic-empty']
      }
    }
    return g
  })
}

const home = (f: ClaudeConfigFacts) => (f.base === '' ? f.dir : path.join(f.dir, f.base))

/** Diagnoses Claude Code's registry chat. Pure. */
export function diagnoseClaudeConfig(snapshot: ChatDirSnapshot, f: ClaudeConfigFacts): Diagnosis {
  const st = configState(snapshot)
  const generations = generationsOf(snapshot)
  const findings: Finding[] = []
  const best = st.candidates[0]
  let status: ChatStatus = 'healthy'
  const ranking = st.candidates.map((c) => `${c.name} (${describeRichness(c.richness)})`).join('; ')
  if (st.damage !== null || st.emptied) {
    const what = st.damage !== null ? `${CONFIG} is ${st.damage}: every Claude Code command stops on it, print mode too ("Configuration error in ${CONFIG}", exit 1)` : `${CONFIG} holds only a first-run skeleton while ${best.name} holds ${describeRichness(best.richness)}: Claude Code starts as if for the first time (onboarding, trust dialogs) and the projects' allowed tools and MCP servers are gone`
    let next: string
    if (best && !best.richness.skeleton) next = `; a repair restores ${best.name} (${describeRichness(best.richness)})${best.source.kind === 'file' ? `, written ${new Date(best.timeMs).toISOString()}: what changed after it is lost` : ''}`
    else if (best) next = `; its only intact generation, ${best.name}, is a first-run skeleton: chatdoctor does not restore it by itself (\`cp -f "${path.join(snapshot.dir, best.name)}" "${path.join(snapshot.dir, CONFIG)}"\` does, as Claude Code itself suggests)`
    else next = `; no intact generation is left: move it aside and Claude Code writes a new one (trust, allowed tools and MCP servers start empty)`
    findings.push(finding('index-damaged', CONFIG, what + next, st.damage !== null ? 'error' : 'warning'))
    if (ranking) findings.push(finding('salvage-available', null, `candidates, best first: ${ranking}`, 'info'))
    status = 'repairable'
  }
  for (const l of f.legacy) {
    const dirRel = path.posix.dirname(l.rel)
    const logs = f.logs.filter((x) => path.posix.dirname(x.rel) === dirRel)
    if (l.listed === null) {
      findings.push(finding('index-unreadable', l.rel, `${l.rel} cannot be read as a session index; Claude Code 2.1.328 lists sessions from the logs themselves, so it is left as it is`, 'info'))
      continue
    }
    const listed = new Set(l.listed.map((x) => x.sessionId))
    const gone = l.listed.filter((x) => !logs.some((g) => g.sessionId === x.sessionId))
    const unlisted = logs.filter((g) => !listed.has(g.sessionId))
    if (gone.length > 0) {
      const slug = path.posix.basename(dirRel)
      const prompts = Object.entries(f.historyPrompts).filter(([cwd]) => slugOf(cwd) === slug).reduce((n, [, k]) => n + k, 0)
      findings.push(finding('index-entry-missing', l.rel, `${l.rel} lists ${plural(gone.length, 'session')} whose logs are gone (${gone.slice(0, 3).map((x) => x.sessionId).join(', ')}${gone.length > 3 ? ', …' : ''}): they cannot be resumed${prompts > 0 ? `; ${plural(prompts, 'prompt')} typed in that project survive in history.jsonl` : ''}; chatdoctor never rebuilds this index (it is the only catalogue of them left)`))
      status = status === 'healthy' ? 'degraded' : status
    }
    if (unlisted.length > 0) findings.push(finding('index-stale', l.rel, `${l.rel} lists ${l.listed.length} of the ${plural(logs.length, 'log')} in its folder (${unlisted.length} not listed); Claude Code 2.1.328 lists sessions from the logs themselves, not from this file (versions that read it do not show the others)`, 'info'))
  }
  return {
    kind: 'chat',
    report: {format: 'claude-code', id: 'config', status, winner: st.damage === null && !st.emptied ? (st.primary ? CONFIG : null) : (best?.name ?? null), transcriptTurns: null, contextTurns: null, findings, generations, ranking: []},
  }
}

/** What the registry says of one session log. Pure. */
export function annotateClaudeSession(session: Pick<ScannedChat, 'report' | 'snapshot'>, indexes: ReadonlyArray<Pick<ScannedChat, 'report' | 'snapshot'>>): IndexAnnotation | null {
  const base = claudeBaseOf(session.snapshot.unit.path)
  // A sub-agent's log is opened with its parent session, never on its own.
  if (!base || session.snapshot.unit.path.split(path.sep).includes('subagents')) return null
  const idx = indexes.find((i) => {
    const f = configFactsOf(i.snapshot)
    return f !== null && home(f) === base
  })
  const f = idx ? configFactsOf(idx.snapshot) : null
  if (!idx || !f) return null
  const file = path.basename(session.snapshot.unit.path)
  const rel = path.relative(f.dir, session.snapshot.unit.path).split(path.sep).join('/')
  const log = f.logs.find((l) => l.rel === rel)
  const findings: Finding[] = []
  let repairedBy: string | undefined
  const id = session.report.id
  const cdTo = log?.cwd ? `cd ${log.cwd} && ` : ''
  if (idx.report.findings.some((x) => x.id === 'index-damaged' && x.severity === 'error')) {
    findings.push(finding('index-damaged', file, `Claude Code cannot start while ${CONFIG} is damaged: \`${cdTo}claude --resume ${id}\` exits 1 until it is restored`))
    if (idx.report.status === 'repairable' && idx.report.winner !== null && idx.report.winner !== CONFIG) repairedBy = idx.snapshot.unit.path
  }
  if (log?.cwd && slugOf(log.cwd) !== log.slug) {
    findings.push(finding('not-in-index', file, `this log lies in projects/${log.slug}/, but Claude Code looks for the sessions of ${log.cwd} in projects/${slugOf(log.cwd)}/: \`claude --resume\` from ${log.cwd} neither lists nor opens it; move it there (or resume it from the folder the name ${log.slug} encodes)`))
  } else if (log?.entrypoint === 'sdk-cli') {
    findings.push(finding('not-in-index', file, `a print-mode session: \`claude --resume\`'s picker never lists these (not damage); \`${cdTo}claude --resume ${id}\` opens it`, 'info'))
  }
  return findings.length > 0 ? {findings, ...(repairedBy ? {repairedBy} : {})} : null
}

/** The repair plan of Claude Code's registry chat. Pure. */
export function planClaudeConfig(chat: ScannedChat): ChatPlan {
  const f = configFactsOf(chat.snapshot)!
  const plan: ChatPlan = {chat, actions: [], watch: chat.snapshot.files.filter((e) => e.kind === 'file').map((e) => ({name: e.name, bytes: e.bytes, mtimeMs: e.mtimeMs})), temps: [], evidenceSub: 'claude-config'}
  const st = configState(chat.snapshot)
  if (st.damage === null && !st.emptied) {
    if (chat.report.status === 'degraded') plan.advice = 'the sessions the legacy index lists are gone; nothing on disk brings them back'
    return plan
  }
  const best = st.candidates[0]
  if (!best || best.richness.skeleton) {
    plan.manual = chat.report.findings.find((x) => x.id === 'index-damaged')?.message ?? `${CONFIG} cannot be restored from a generation`
    return plan
  }
  if (f.live.length > 0) {
    plan.refusal = `refused: ${f.live[0]}; quit Claude Code and run chatdoctor repair again`
    return plan
  }
  if (st.primary) plan.actions.push({type: 'preserve', from: CONFIG, to: CONFIG, sha256: chat.report.generations.find((g) => g.file === CONFIG)?.sha256 ?? null})
  const data = best.bytes
  plan.actions.push({type: 'restore', from: best.name, to: CONFIG, sha256: createHash('sha256').update(data).digest('hex'), source: best.source, data})
  if (best.source.kind === 'file') plan.warnings = [`${best.name} was written ${new Date(best.timeMs).toISOString()}; what changed in ${CONFIG} after it is lost (the damaged file is kept as evidence)`]
  plan.statusAfter = 'healthy'
  return plan
}

/** The folder of the registry chat for a path below `projects/` (for tests). */
export function configDirFor(p: string, homeDir: string, env: NodeJS.ProcessEnv): string | null {
  const b = claudeBaseOf(p)
  return b ? configDirOf(b, homeDir, env) : null
}
