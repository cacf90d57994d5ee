/**
 * A module loaded when it is used: a subcommand, an engine or a walkthrough is its own chunk in
 * the built CLI, and `harness run` does not load the others, which keeps start-up short.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"

/**
 * Loads a module (`() => import("./X.ts")`), then runs what `use` makes of it.
 *
 * @since 0.1.0
 */
export const lazy = <M, A, E, R>(
  load: () => Promise<M>,
  use: (module: M) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => Effect.flatMap(Effect.promise(load), use)
