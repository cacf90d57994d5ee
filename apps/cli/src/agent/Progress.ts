/**
 * `harness agent` shows a running tool's progress on stderr as it comes, a line per update
 * (`  … fetch 3/10 downloading`): for the person watching, never for the model (stdout stays
 * the transcript; the model is told only the call's outcome).
 */
import { Trace } from "@agent-harness/executor"
import { Printable } from "@agent-harness/permission"
import { Effect } from "effect"

/** How far, in words: `3/10`, or `3` when the end is not known. */
const amount = (progress: number, total: number | undefined): string =>
  total === undefined ? `${progress}` : `${progress}/${total}`

/**
 * One update as the line stderr shows, with anything a terminal would act on made visible.
 *
 * @since 0.1.0
 */
export const line = (event: typeof Trace.ToolProgress.Type): string =>
  Printable.line(
    `  … ${event.name ?? event.tool_use_id} ${amount(event.progress, event.total)}${event.message === undefined ? "" : ` ${event.message}`}`
  )

/**
 * The trace `inner`, with every `call.progressed` event also written to stderr (by `write`) as
 * it is recorded.
 *
 * @since 0.1.0
 */
export const tee = (inner: Trace.Trace, write: (text: string) => void): Trace.Trace => ({
  record: (event) =>
    Trace.isEvent(event) && event.type === "call.progressed"
      ? Effect.andThen(
          Effect.sync(() => write(`${line(event)}\n`)),
          inner.record(event)
        )
      : inner.record(event)
})
