/**
 * The progress bar of a long scan: on stderr, only when stderr is a TTY, not under `--json`, and only once the
 * scan has run for `PROGRESS_DELAY_MS` (a quick scan shows nothing). Drawn by cli-progress, loaded only when a
 * bar may be shown.
 */
import type {ScanProgress} from '../lib/pipeline/scan.js'

/** A scan shorter than this shows no bar (ms). */
export const PROGRESS_DELAY_MS = 1000

/** Whether a progress bar may be shown: stderr is a TTY, no `--json`, and `TERM` is not `dumb`. */
export function progressWanted(ctx: {stderrIsTTY: boolean; json: boolean; env: NodeJS.ProcessEnv}): boolean {
  return ctx.stderrIsTTY && !ctx.json && ctx.env.TERM !== 'dumb'
}

/** The text after the bar: chats done of total, files and MB read, MB/s. */
export function progressText(p: ScanProgress, elapsedMs: number): {files: number; mb: string; rate: string} {
  const mb = p.bytesRead / 1e6
  return {files: p.filesRead, mb: mb.toFixed(1), rate: elapsedMs > 0 ? (mb / (elapsedMs / 1000)).toFixed(1) : '0.0'}
}

/**
 * A progress display for `scanPaths`' `onProgress`. `create` returns a no-op reporter when no bar is wanted.
 * `stop()` clears the bar (call it before printing the report).
 */
export class ScanProgressBar {
  private bar: {start(total: number, value: number, payload: object): void; update(value: number, payload: object): void; setTotal(total: number): void; stop(): void} | null = null
  private readonly started = Date.now()

  private constructor(
    private readonly make: (() => ScanProgressBar['bar']) | null,
    private readonly delayMs: number,
  ) {}

  /** `delayMs`: how long a scan runs before the bar appears (tests pass 0). */
  static async create(wanted: boolean, stream: NodeJS.WritableStream = process.stderr, delayMs = PROGRESS_DELAY_MS): Promise<ScanProgressBar> {
    if (!wanted) return new ScanProgressBar(null, delayMs)
    const {default: cliProgress} = await import('cli-progress')
    return new ScanProgressBar(
      () =>
        new cliProgress.SingleBar(
          {
            stream,
            format: '{bar} {value}/{total} chats | {files} files | {mb} MB | {rate} MB/s',
            hideCursor: true,
            clearOnComplete: true,
            fps: 10,
          },
          cliProgress.Presets.shades_classic,
        ),
      delayMs,
    )
  }

  /** Feeds a progress update; starts the bar once the scan has run for `PROGRESS_DELAY_MS`. */
  readonly update = (p: ScanProgress): void => {
    if (this.make === null) return
    const elapsed = Date.now() - this.started
    if (this.bar === null) {
      if (elapsed < this.delayMs || p.chatsDone >= p.chatsTotal) return
      this.bar = this.make()
      this.bar!.start(p.chatsTotal, p.chatsDone, progressText(p, elapsed))
      return
    }
    this.bar.update(p.chatsDone, progressText(p, elapsed))
  }

  /** Removes the bar from the terminal (no-op when none was shown). */
  stop(): void {
    this.bar?.stop()
    this.bar = null
  }
}
