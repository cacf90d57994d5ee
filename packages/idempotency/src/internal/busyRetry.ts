/**
 * Trying a SQLite step again when it fails with "database is locked" at once. SQLite's busy
 * handler does not run where waiting could deadlock (two connections that both hold a shared
 * lock and want the exclusive one, as when several processes switch one new file to WAL): one
 * of them gets SQLITE_BUSY immediately and must let go of its lock and start again.
 */

/** SQLite said another connection holds the lock. */
export const isBusy = (error: unknown): boolean => {
  try {
    return /database is locked|SQLITE_BUSY/i.test(error instanceof Error ? error.message : String(error))
  } catch {
    return false
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4))

/** Blocks the thread for `millis`, as SQLite's own busy timeout does while it waits. */
export const sleepSync = (millis: number): void => {
  Atomics.wait(pause, 0, 0, millis)
}

/** How `untilDeadline` tries again. */
export interface Options {
  /** When to stop trying (`Date.now()` milliseconds): the last busy error is thrown then. */
  readonly deadline: number
  /** Lets go of what the failed attempt held (rolls its transaction back); must not throw. */
  readonly rollback: () => void
  /** How to wait between attempts; a random 10–50 ms block of the thread by default. */
  readonly wait?: ((millis: number) => void) | undefined
  /** The clock; `Date.now` by default. */
  readonly now?: (() => number) | undefined
}

/**
 * Runs `step`; when it throws a busy error, rolls back, waits a short random time and runs it
 * again, until `deadline`. Any other error, and a busy error at the deadline, is thrown.
 */
export const untilDeadline = <A>(step: () => A, options: Options): A => {
  const wait = options.wait ?? sleepSync
  const now = options.now ?? Date.now
  while (true) {
    try {
      return step()
    } catch (error) {
      options.rollback()
      if (!isBusy(error) || now() >= options.deadline) throw error
      wait(10 + Math.floor(Math.random() * 40))
    }
  }
}
