/**
 * Commands that run until the person stops them (`harness mcp serve --http`, `harness view`
 * without `--out`) wait for SIGINT or SIGTERM here, and end with exit 0 instead of being
 * interrupted (exit 130). A streamed `harness agent` run takes Ctrl-C as a request to stop
 * cleanly (`interruptOnSigint`).
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Deferred, Effect, type Scope } from "effect"

/**
 * For the length of the scope, `listener` alone hears `signals`: the runtime's own handlers
 * (which would interrupt the CLI and exit 130) are set aside, and put back after. Ours is added
 * before the runtime's are taken off, and theirs put back before ours is taken off: with no
 * listener left even for an instant, Node closes its signal watcher, and a signal arriving then
 * is lost (the command would never stop).
 */
const takeOver = (
  signals: ReadonlyArray<NodeJS.Signals>,
  listener: (signal: NodeJS.Signals) => void
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const aside = signals.map((signal) => ({ signal, listeners: process.listeners(signal) }))
      for (const signal of signals) process.on(signal, listener)
      for (const { signal, listeners } of aside) {
        for (const one of listeners) process.off(signal, one)
      }
      return aside
    }),
    (aside) =>
      Effect.sync(() => {
        for (const { signal, listeners } of aside) {
          for (const one of listeners) process.on(signal, one as (signal: NodeJS.Signals) => void)
        }
        for (const signal of signals) process.off(signal, listener)
      })
  )

/**
 * Waits for SIGINT or SIGTERM and gives its name. While it waits, the command owns both
 * signals (the runtime's handlers set aside, put back after), so a signal stops the server
 * gracefully and the command exits 0.
 *
 * @since 0.1.0
 */
export const untilSignal: Effect.Effect<NodeJS.Signals> = Effect.scoped(
  Effect.gen(function* () {
    const received = Deferred.makeUnsafe<NodeJS.Signals>()
    yield* takeOver(["SIGINT", "SIGTERM"], (signal) => void Deferred.doneUnsafe(received, Effect.succeed(signal)))
    return yield* Deferred.await(received)
  })
)

/**
 * Ctrl-C as a request to stop, for the length of the scope: `requested` completes at the
 * first SIGINT (a loop's `interrupt` option waits on it), and a second SIGINT ends the process at
 * once through `exit` (default `process.exit`) with 130. The runtime's own SIGINT handlers are
 * set aside meanwhile (the first Ctrl-C does not interrupt the command); SIGTERM is left to them.
 *
 * @since 0.2.0
 */
export const interruptOnSigint = (
  exit: (code: number) => void = (code) => process.exit(code)
): Effect.Effect<{ readonly requested: Effect.Effect<void> }, never, Scope.Scope> =>
  Effect.gen(function* () {
    const requested = Deferred.makeUnsafe<void>()
    let count = 0
    yield* takeOver(["SIGINT"], () => {
      count++
      if (count === 1) Deferred.doneUnsafe(requested, Effect.void)
      else exit(130)
    })
    return { requested: Deferred.await(requested) }
  })
