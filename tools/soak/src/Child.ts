/**
 * What a soak's child process says and does for its driver, the local soak's child and the
 * Postgres soak's runners alike: one JSON line per fact on stdout, and holding still until it is
 * killed.
 *
 * @since 0.1.0
 */
import process from "node:process"
import { Effect } from "effect"

/**
 * Writes one JSON line on stdout, for the driver.
 *
 * @since 0.1.0
 */
export const say = (line: unknown): Effect.Effect<void> =>
  Effect.sync(() => void process.stdout.write(`${JSON.stringify(line)}\n`))

/**
 * Says `{"holding": what}`, then waits until the process is killed (a timer keeps it alive).
 *
 * @since 0.1.0
 */
export const hold = (what: string): Effect.Effect<never> =>
  Effect.andThen(
    say({ holding: what }),
    Effect.callback<never>(() => {
      const keepAlive = setInterval(() => {}, 60_000)
      return Effect.sync(() => clearInterval(keepAlive))
    })
  )
