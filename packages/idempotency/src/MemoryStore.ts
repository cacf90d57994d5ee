/**
 * A journal kept in memory: for tests and for single-process runs that only need replay
 * within the process. It does not survive a crash; use `SqliteStore` for that.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { type Entry, JournalError, type Store } from "./Journal.ts"

/**
 * A fresh in-memory store.
 *
 * @since 0.1.0
 */
export const make: Effect.Effect<Store> = Effect.sync(() => {
  const entries = new Map<string, Entry>()
  return {
    location: "memory",
    get: (id) => Effect.sync(() => entries.get(id)),
    start: (id, tool, input) =>
      Effect.suspend(() =>
        entries.has(id)
          ? Effect.fail(new JournalError({ file: "memory", problem: `call '${id}' is already in the journal` }))
          : Effect.sync(() => void entries.set(id, { id, tool, input, state: "started" }))
      ),
    finish: (id, tool, input, observation) =>
      Effect.sync(
        () => void entries.set(id, { id, tool, input: entries.get(id)?.input ?? input, state: "done", observation })
      ),
    entries: Effect.sync(() => [...entries.values()])
  }
})
