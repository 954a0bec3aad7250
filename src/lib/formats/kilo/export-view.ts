/**
 * What `kilo export` makes of a session's rows beyond the store family's document: Kilo 7.7.7's own export omits
 * a tool part's `state.metadata.diff` (the same change is in `state.metadata.filediff`) and writes the keys of
 * `state.metadata.filediff` as `file`, `additions`, `deletions`, `patch` (its rows hold `file`, `patch`,
 * `additions`, `deletions`), observed on its exports of the sessions in `shared/realdata/kilo/7.7.7` (the
 * document built from the rows is otherwise byte-equal to them). Keys it was not seen to order keep their order,
 * after those.
 */
import type {ExportDocument} from '../opencode-family/export-rows.js'

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const FILEDIFF_ORDER = ['file', 'additions', 'deletions', 'patch']

/** A file diff's keys in the order Kilo's export writes them. */
function ordered(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of FILEDIFF_ORDER) if (k in v) out[k] = v[k]
  for (const [k, x] of Object.entries(v)) if (!(k in out)) out[k] = x
  return out
}

/** The document as `kilo export` prints it (above). Pure. */
export function kiloExportView(doc: ExportDocument): ExportDocument {
  return {
    info: doc.info,
    messages: doc.messages.map((m) => ({
      info: m.info,
      parts: m.parts.map((p) => {
        const st = p.state
        if (p.type !== 'tool' || !isObj(st) || !isObj(st.metadata) || !('diff' in st.metadata || isObj(st.metadata.filediff))) return p
        const {diff: _d, ...metadata} = st.metadata
        if (isObj(metadata.filediff)) metadata.filediff = ordered(metadata.filediff)
        return {...p, state: {...st, metadata}}
      }),
    })),
  }
}
