/**
 * Several executor middlewares as one. Deprecated: composition lives in the executor now
 * (`Execute.compose`, and `Execute.withMiddleware` / `Execute.layerMiddleware` to add one to the
 * middleware in use); this module stays for old imports.
 *
 * @since 0.1.0
 */
import { Execute } from "@agent-harness/executor"

/**
 * The middlewares as one, the first outermost: `middlewares(gate, journal)` asks the gate, and
 * only a call the gate lets through reaches the journal, then the tool. An inner middleware is
 * not even called for a call an outer one answers itself.
 *
 * @deprecated Use `Execute.compose` from `@agent-harness/executor` (the same function).
 *
 * @example
 * ```ts
 * import { Execute } from "@agent-harness/executor"
 * import { Journal, MemoryStore } from "@agent-harness/idempotency"
 * import { Gate } from "@agent-harness/permission"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const gate = yield* Gate.make({ policy: { default: "ask" } })
 *   const store = yield* MemoryStore.make
 *   return Execute.compose(gate, Journal.middleware(store))
 * })
 * ```
 *
 * @since 0.1.0
 */
export const middlewares: (...layers: ReadonlyArray<Execute.Middleware>) => Execute.Middleware = Execute.compose
