/**
 * `chatdoctor-bundle.json`, the manifest at the root of every bundle `chatdoctor bundle` writes.
 * It lets `check` verify a bundle (missing or extra files, size or hash mismatches) and rank generations by
 * their exact mtimes (tar keeps whole seconds, zip two). Loose zod objects: fields may be added, never renamed.
 */
import {z} from 'zod'
import {CLASSES, REASONS, ROLES, STATUSES} from '../../model/enums.js'
import type {ChatReport} from '../../model/report.js'

/** File name of the manifest at the archive root. */
export const MANIFEST_NAME = 'chatdoctor-bundle.json'

/** Version of the manifest layout. */
export const BUNDLE_SCHEMA_VERSION = 1

/** One file of a chat as bundled: `path` relative to the chat's folder, `/`-separated. */
export const ManifestFileSchema = z.looseObject({
  path: z.string(),
  /** Size in bytes of the bundled bytes. */
  bytes: z.number().int().nonnegative(),
  /** The file's mtime on disk at export, ms since epoch, exact (fractional as the OS gave it). */
  mtimeMs: z.number(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
})

/** The `scan` verdict of a chat at export time (of the original files, also in a redacted bundle). */
export const ManifestVerdictSchema = z.looseObject({
  status: z.enum(STATUSES),
  winner: z.string().nullable(),
  transcriptTurns: z.number().int().nonnegative().nullable(),
  contextTurns: z.number().int().nonnegative().nullable(),
  /** Finding ids, in report order. */
  findings: z.array(z.string()),
  generations: z.array(
    z.looseObject({
      file: z.string(),
      role: z.enum(ROLES),
      class: z.enum(CLASSES).nullable(),
      reasons: z.array(z.enum(REASONS)),
      turns: z.number().int().nonnegative().nullable(),
    }),
  ),
})

export const ManifestChatSchema = z.looseObject({
  /** Chat id (Codebuff: the chat dir's name). */
  id: z.string(),
  /** Format id of the adapter (`codebuff`). */
  format: z.string(),
  /** The chat's folder in the archive (its id). */
  folder: z.string(),
  verdict: ManifestVerdictSchema,
  files: z.array(ManifestFileSchema),
  /** Files of the chat dir left out of the bundle, with why (e.g. `log.jsonl` of a redacted bundle). */
  omitted: z.array(z.looseObject({path: z.string(), reason: z.string()})),
})

export const ManifestSchema = z.looseObject({
  schemaVersion: z.literal(BUNDLE_SCHEMA_VERSION),
  kind: z.literal('chatdoctor-bundle'),
  chatdoctorVersion: z.string(),
  /** ISO 8601 time of export. */
  createdAt: z.string(),
  /** True for `--redact` bundles: content replaced by keyed-hash placeholders (the key is not stored). */
  redacted: z.boolean(),
  chats: z.array(ManifestChatSchema),
})

export type Manifest = z.infer<typeof ManifestSchema>
export type ManifestChat = z.infer<typeof ManifestChatSchema>
export type ManifestVerdict = z.infer<typeof ManifestVerdictSchema>

/** The verdict of a chat report as stored in a manifest. */
export function verdictOf(report: Omit<ChatReport, 'path'>): ManifestVerdict {
  return {
    status: report.status,
    winner: report.winner,
    transcriptTurns: report.transcriptTurns,
    contextTurns: report.contextTurns,
    findings: report.findings.map((f) => f.id),
    generations: report.generations.map((g) => ({file: g.file, role: g.role, class: g.class, reasons: g.reasons, turns: g.turns})),
  }
}

/**
 * A verdict with each document inside a file (`<file>@<byte offset>`) named by its order in that file instead
 * (`<file>@#1`, `@#2`, …): redaction changes the length of strings, so a document's offset moves, not its place.
 */
function withDocumentOrdinals(v: ManifestVerdict): ManifestVerdict {
  const docs = v.generations.map((g) => /^(.+)@(\d+)$/.exec(g.file)).filter((m): m is RegExpExecArray => m !== null)
  if (docs.length === 0) return v
  const rename = new Map<string, string>()
  for (const file of new Set(docs.map((m) => m[1]))) {
    docs
      .filter((m) => m[1] === file)
      .sort((x, y) => Number(x[2]) - Number(y[2]))
      .forEach((m, k) => rename.set(m[0], `${file}@#${k + 1}`))
  }
  const n = (f: string | null) => (f !== null && rename.has(f) ? rename.get(f)! : f)
  return {...v, winner: n(v.winner), generations: v.generations.map((g) => ({...g, file: n(g.file)!}))}
}

/**
 * What must not change when a chat is redacted: status, winner, turns N/M, and every classified generation's
 * class, reasons and turns, and the finding ids — leaving out files of role `other` and `unknown-file`
 * findings (a redacted bundle omits files it cannot redact). Returns a description of the first difference,
 * or null when equal.
 */
export function verdictDifference(a0: ManifestVerdict, b0: ManifestVerdict): string | null {
  const a = withDocumentOrdinals(a0)
  const b = withDocumentOrdinals(b0)
  for (const k of ['status', 'winner', 'transcriptTurns', 'contextTurns'] as const) if (a[k] !== b[k]) return `${k} ${a[k]} → ${b[k]}`
  const gens = (v: ManifestVerdict) => JSON.stringify(v.generations.filter((g) => g.role !== 'other'))
  if (gens(a) !== gens(b)) return 'generation classes or turns'
  const ids = (v: ManifestVerdict) => JSON.stringify(v.findings.filter((id) => id !== 'unknown-file'))
  if (ids(a) !== ids(b)) return `findings ${ids(a)} → ${ids(b)}`
  return null
}
