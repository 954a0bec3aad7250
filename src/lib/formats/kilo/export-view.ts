/**
 * What `kilo export` leaves out of a session's rows: Kilo 7.7.7's own export omits a tool part's
 * `state.metadata.diff` (the same change is in `state.metadata.filediff`), observed on its exports of the sessions
 * in `shared/realdata/kilo/7.7.7` (the document built from the rows is otherwise byte-equal to them).
 */
import type {ExportDocument} from '../opencode-family/export-rows.js'

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The document as `kilo export` prints it: each tool part without `state.metadata.diff`. Pure. */
export function kiloExportView(doc: ExportDocument): ExportDocument {
  return {
    info: doc.info,
    messages: doc.messages.map((m) => ({
      info: m.info,
      parts: m.parts.map((p) => {
        const st = p.state
        if (p.type !== 'tool' || !isObj(st) || !isObj(st.metadata) || !('diff' in st.metadata)) return p
        const {diff: _d, ...metadata} = st.metadata
        return {...p, state: {...st, metadata}}
      }),
    })),
  }
}
