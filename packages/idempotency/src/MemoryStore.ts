/**
 * A journal kept in memory: for tests and for single-process runs that only need replay
 * within the process. It does not survive a crash; use `SqliteStore` for that.
 *
 * It records what the SQLite store records: each input's canonical JSON text (`Canonical`),
 * refusing an input that has none, so both stores compare inputs alike, an entry never shares
 * an object with the caller, and comparing two inputs always ends.
 *
 * @since 0.1.0
 */
import { Effect, Result } from "effect"
import { type Entry, inputText, JournalError, type Observation, type Store } from "./Journal.ts"

/** An entry as kept: the input as its canonical text. */
interface Kept {
  readonly id: string
  readonly name: string
  readonly input: string
  readonly state: "started" | "done"
  readonly observation?: Observation
}

const toEntry = (kept: Kept): Entry => {
  const input: unknown = JSON.parse(kept.input)
  return kept.observation === undefined
    ? { id: kept.id, name: kept.name, input, state: kept.state }
    : { id: kept.id, name: kept.name, input, state: kept.state, observation: kept.observation }
}

/**
 * A fresh in-memory store.
 *
 * @since 0.1.0
 */
export const make: Effect.Effect<Store> = Effect.sync(() => {
  const file = "memory"
  const entries = new Map<string, Kept>()
  return {
    location: file,
    get: (id) =>
      Effect.sync(() => {
        const kept = entries.get(id)
        return kept === undefined ? undefined : toEntry(kept)
      }),
    start: (id, name, input) =>
      Effect.suspend(() => {
        if (entries.has(id)) {
          return Effect.fail(new JournalError({ file, problem: `call '${id}' is already in the journal` }))
        }
        const text = inputText(file, id, input)
        if (Result.isFailure(text)) return Effect.fail(text.failure)
        entries.set(id, { id, name, input: text.success, state: "started" })
        return Effect.void
      }),
    finish: (id, name, input, observation) =>
      Effect.suspend(() => {
        const started = entries.get(id)
        if (started !== undefined) {
          entries.set(id, { ...started, state: "done", observation })
          return Effect.void
        }
        const text = inputText(file, id, input)
        if (Result.isFailure(text)) return Effect.fail(text.failure)
        entries.set(id, { id, name, input: text.success, state: "done", observation })
        return Effect.void
      }),
    entries: Effect.sync(() => [...entries.values()].map(toEntry))
  }
})
