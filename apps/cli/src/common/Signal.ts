/**
 * Commands that run until the person stops them (`harness mcp serve --http`, `harness view`
 * without `--out`) wait for SIGINT or SIGTERM here, and end with exit 0 instead of being
 * interrupted (exit 130).
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Deferred, Effect } from "effect"

/**
 * Waits for SIGINT or SIGTERM and gives its name. While it waits, the command owns both
 * signals: the runtime's own handlers (which would interrupt the CLI and exit 130) are set
 * aside, so a signal stops the server gracefully and the command exits 0; they are put back
 * after. Ours is added before the runtime's are taken off, and theirs put back before ours is
 * taken off: with no listener left even for an instant, Node closes its signal watcher, and a
 * signal arriving then is lost (the command would never stop).
 *
 * @since 0.1.0
 */
export const untilSignal: Effect.Effect<NodeJS.Signals> = Effect.acquireUseRelease(
  Effect.sync(() => {
    const received = Deferred.makeUnsafe<NodeJS.Signals>()
    const stop = (signal: NodeJS.Signals) => void Deferred.doneUnsafe(received, Effect.succeed(signal))
    const aside = { SIGINT: process.listeners("SIGINT"), SIGTERM: process.listeners("SIGTERM") }
    process.on("SIGINT", stop)
    process.on("SIGTERM", stop)
    for (const [signal, listeners] of Object.entries(aside)) {
      for (const listener of listeners) process.off(signal, listener)
    }
    return { received, stop, aside }
  }),
  ({ received }) => Deferred.await(received),
  ({ stop, aside }) =>
    Effect.sync(() => {
      for (const [signal, listeners] of Object.entries(aside)) {
        for (const listener of listeners) process.on(signal, listener as (signal: NodeJS.Signals) => void)
      }
      process.off("SIGINT", stop)
      process.off("SIGTERM", stop)
    })
)
