/**
 * Human text of `snapshot` (taken, skipped, errors), `snapshot --list`, `snapshot --prune` and `guard`. Never
 * prints chat content: paths, times, counts, sizes and hashes only. Control characters in names are escaped.
 */
import type {ChalkInstance} from 'chalk'
import type {OperationalError} from '../model/report.js'
import type {SnapshotRef} from '../model/snapshot.js'
import type {GuardResult, GuardStatus} from '../pipeline/snapshot/guard.js'
import type {ForgetResult, PruneResult, TakeResult} from '../pipeline/snapshot/take.js'
import {printableName, tildify} from '../fsio/paths.js'
import {UNLIMITED, fitParts} from './width.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`
const show = (s: string) => printableName(s)

function mib(n: number): string {
  return n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`
}

function errorsText(errors: readonly OperationalError[], c: ChalkInstance, width: number): string[] {
  return errors.flatMap((e) => fitParts([{whole: c.red('error')}, ' ', {whole: show(e.path)}, `: ${e.message}`], width))
}

/** The widths a snapshot text fits: its lines of a chat each, and errors (`width`); its closing sentence (`prose`). */
export interface SnapshotWidths {
  /** The width to fit (`outputWidth`: unlimited when piped, so each chat stays one line); default unlimited. */
  width?: number
  /** The width the closing sentence is wrapped to (`proseWidth`); default `width`. */
  prose?: number
}

/**
 * `chatdoctor snapshot`, fitted to `width` (a chat's path is never broken: one that does not fit stands on a
 * line of its own), the closing sentence to `prose`.
 */
export function renderTake(r: TakeResult, opts: {chalk: ChalkInstance; quiet: boolean; verbose: boolean} & SnapshotWidths): {stdout: string; stderr: string} {
  const c = opts.chalk
  const w = opts.width ?? UNLIMITED
  const pw = opts.prose ?? w
  const out: string[] = []
  for (const t of r.taken) out.push(...fitParts([{whole: c.green('snapshot')}, ' ', {whole: show(t.chat)}, `: ${t.header.time}, ${plural(t.header.turns, 'turn')}, ${plural(t.header.messages, 'message')}, ${mib(t.header.bytes)}${t.header.redacted ? ', redacted' : ''}${t.removed > 0 ? ` (${plural(t.removed, 'older snapshot')} removed)` : ''}`], w))
  if (!opts.quiet || opts.verbose) for (const s of r.skipped) out.push(...fitParts([{whole: c.dim('skipped')}, ' ', {whole: show(s.chat)}, `: ${s.reason}`], w))
  if (!opts.quiet) out.push(...fitParts([`${plural(r.chats, 'chat')}: ${r.taken.length} snapshotted, ${r.skipped.length} skipped${r.errors.length > 0 ? `, ${plural(r.errors.length, 'error')}` : ''}`], pw))
  return {stdout: out.join('\n'), stderr: errorsText(r.errors, c, w).join('\n')}
}

/** `chatdoctor snapshot --list`, wrapped as `renderTake`. */
export function renderList(l: {refs: SnapshotRef[]; errors: OperationalError[]; bytes: number}, opts: {chalk: ChalkInstance; home: string} & SnapshotWidths): {stdout: string; stderr: string} {
  const w = opts.width ?? UNLIMITED
  const pw = opts.prose ?? w
  const out: string[] = []
  let chat = ''
  for (const r of l.refs) {
    if (r.header.chat !== chat) {
      chat = r.header.chat
      out.push(...fitParts([{whole: show(tildify(chat, opts.home))}, ` (${r.header.format})`], w))
    }
    out.push(...fitParts([`  ${r.header.time}  ${plural(r.header.turns, 'turn')}, ${plural(r.header.messages, 'message')}, ${mib(r.header.bytes)}, sha256 ${r.header.sha256.slice(0, 12)}${r.header.redacted ? ', redacted' : ''}`], w, '    '))
  }
  out.push(...fitParts([`${plural(l.refs.length, 'snapshot')}, ${mib(l.bytes)} in the store`], pw))
  return {stdout: out.join('\n'), stderr: errorsText(l.errors, opts.chalk, w).join('\n')}
}

/** `chatdoctor snapshot --prune`, wrapped as `renderTake`. */
export function renderPrune(p: PruneResult, opts: {chalk: ChalkInstance} & SnapshotWidths): {stdout: string; stderr: string} {
  const w = opts.width ?? UNLIMITED
  const pw = opts.prose ?? w
  const out = p.removed.flatMap((r) => fitParts(['removed ', {whole: show(r.file)}, ' (', {whole: show(r.chat)}, `, ${r.time}): ${r.why}`], w))
  out.push(...fitParts([`${plural(p.removed.length, 'snapshot')} removed; the store holds ${mib(p.bytesAfter)} (was ${mib(p.bytesBefore)})`], pw))
  return {stdout: out.join('\n'), stderr: errorsText(p.errors, opts.chalk, w).join('\n')}
}

/** `chatdoctor snapshot --forget`. */
export function renderForget(f: ForgetResult, opts: {chalk: ChalkInstance} & SnapshotWidths): {stdout: string; stderr: string} {
  const w = opts.width ?? UNLIMITED
  const pw = opts.prose ?? w
  const verb = f.dryRun ? 'would remove' : 'removed'
  const out = f.removed.flatMap((r) => fitParts([`${verb} `, {whole: show(r.file)}, ' (', {whole: show(r.chat)}, `, ${r.time})`], w))
  const refused = f.refused.flatMap((r) => fitParts([opts.chalk.red('refused'), ' ', {whole: show(r.chat)}, `: ${r.reason}`], w))
  const chats = new Set(f.removed.map((r) => r.chat)).size
  out.push(...fitParts([`${plural(f.removed.length, 'snapshot')} of ${plural(chats, 'chat')} ${f.dryRun ? 'would be removed (dry run: nothing removed)' : 'removed'}`], pw))
  return {stdout: out.join('\n'), stderr: [...refused, ...errorsText(f.errors, opts.chalk, w)].join('\n')}
}

/** `chatdoctor guard install|uninstall`. */
export function renderGuard(r: GuardResult, opts: {chalk: ChalkInstance; quiet?: boolean; verbose?: boolean; source?: string}): {stdout: string; stderr: string} {
  const out = guardText(r, opts.chalk)
  if (r.kind === 'error') return out
  // -q: nothing but errors, and for an agent without a hook the timer text alone (what there is to act on).
  if (opts.quiet) return {stdout: r.kind === 'timer' ? r.text : '', stderr: ''}
  if ((r.kind === 'installed' || r.kind === 'already') && r.notes.length > 0) out.stdout += r.notes.map((n) => `\nnote: ${n}`).join('')
  if (opts.verbose && opts.source) out.stdout += `\nThe mechanism is documented in ${opts.source}.`
  return out
}

function guardText(r: GuardResult, c: ChalkInstance): {stdout: string; stderr: string} {
  switch (r.kind) {
    case 'installed':
      return {stdout: `${c.green('installed')} chatdoctor's snapshot hook for ${r.agent} in ${show(r.file)}${r.created ? ' (a new file)' : ''}${r.evidence ? `; its previous version is kept in ${show(r.evidence)}` : ''}. It takes effect when the agent starts next.`, stderr: ''}
    case 'already':
      return {stdout: `chatdoctor's snapshot hook for ${r.agent} is already in ${show(r.file)}; nothing written`, stderr: ''}
    case 'uninstalled': {
      const how = r.how === 'restored' ? 'put back exactly as it was before guard install' : r.how === 'removed-file' ? 'removed (guard install had made it)' : "edited: exactly chatdoctor's entries removed (the file had changed since guard install)"
      return {stdout: `${c.green('uninstalled')} chatdoctor's snapshot hook for ${r.agent}: ${show(r.file)} ${how}${r.evidence ? `; the version with the hook is kept in ${show(r.evidence)}` : ''}`, stderr: ''}
    }
    case 'absent':
      return {stdout: `no chatdoctor snapshot hook for ${r.agent} in ${show(r.file)}; nothing written`, stderr: ''}
    case 'timer':
      return {stdout: `${r.why}\nchatdoctor installs nothing for ${r.agent}. To take snapshots on a timer, add one of these yourself:\n\n${r.text}`, stderr: ''}
    case 'error':
      return {stdout: '', stderr: `chatdoctor: guard ${r.agent}: ${r.message}`}
  }
}

/** `chatdoctor guard status`. */
export function renderGuardStatus(list: readonly GuardStatus[], opts: {chalk: ChalkInstance; quiet?: boolean; verbose?: boolean; sources?: ReadonlyMap<string, string>}): string {
  const c = opts.chalk
  return list
    .filter((s) => !opts.quiet || s.installed)
    .map((s) => {
      const line = `${s.displayName}: ${s.installed ? c.green('installed') : c.yellow('not installed')} (${s.detail})${s.file ? ` in ${show(s.file)}` : ''}; ${plural(s.snapshots, 'snapshot')}${s.newest ? `, newest ${s.newest}` : ''}`
      const source = opts.verbose ? opts.sources?.get(s.agent) : undefined
      return source ? `${line}\n  documented in ${source}` : line
    })
    .join('\n')
}
