/**
 * Commands that run until the person stops them (`harness mcp serve --http`, `harness view`
 * without `--out`) wait for SIGINT or SIGTERM here, and end with exit 0 instead of being
 * interrupted (exit 130).
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Effect } from "effect"

/**
 * Waits for SIGINT or SIGTERM and gives its name. While it waits, the command owns both
 * signals: the runtime's own handlers (which would interrupt the CLI and exit 130) are set
 * aside, so a signal stops the server gracefully and the command exits 0; they are put back
 * after.
 *
 * @since 0.1.0
 */
export const untilSignal: Effect.Effect<NodeJS.Signals> = Effect.acquireUseRelease(
  Effect.sync(() => {
    const aside = { SIGINT: process.listeners("SIGINT"), SIGTERM: process.listeners("SIGTERM") }
    process.removeAllListeners("SIGINT")
    process.removeAllListeners("SIGTERM")
    return aside
  }),
  () =>
    Effect.callback<NodeJS.Signals>((resume) => {
      const stop = (signal: NodeJS.Signals) => resume(Effect.succeed(signal))
      process.once("SIGINT", stop)
      process.once("SIGTERM", stop)
      return Effect.sync(() => {
        process.off("SIGINT", stop)
        process.off("SIGTERM", stop)
      })
    }),
  (aside) =>
    Effect.sync(() => {
      for (const [signal, listeners] of Object.entries(aside)) {
        process.removeAllListeners(signal)
        for (const listener of listeners) process.on(signal, listener as (signal: NodeJS.Signals) => void)
      }
    })
)
