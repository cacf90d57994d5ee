/**
 * Several executor middlewares as one: the executor has one `Execute.Middleware` slot, and a
 * permission gate must stand in front of a journal, so that a denied call never reaches it (it
 * is never journaled as started, and its id stays free).
 *
 * @since 0.1.0
 */
import type { Execute } from "@agent-harness/executor"
import { Effect } from "effect"

/**
 * The middlewares as one, the first outermost: `middlewares(gate, journal)` asks the gate, and
 * only a call the gate lets through reaches the journal, then the tool. An inner middleware is
 * not even called for a call an outer one answers itself.
 *
 * @example
 * ```ts
 * import { Execute } from "@agent-harness/executor"
 * import { Journal, MemoryStore } from "@agent-harness/idempotency"
 * import { Compose, Gate } from "@agent-harness/permission"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const gate = yield* Gate.make({ policy: { default: "ask" } })
 *   const store = yield* MemoryStore.make
 *   return Compose.middlewares(gate, Journal.middleware(store))
 * })
 * // ...then Effect.provideService(Execute.Middleware, middleware) around the loop.
 * ```
 *
 * @since 0.1.0
 */
export const middlewares =
  (...layers: ReadonlyArray<Execute.Middleware>): Execute.Middleware =>
  (call, tool, run) =>
    layers.reduceRight((inner, middleware) => Effect.suspend(() => middleware(call, tool, inner)), run)
