/**
 * A setup step SQLite refuses at once with "database is locked" (no busy handler where waiting
 * could deadlock: several processes switching one new file to WAL) is tried again until the busy
 * timeout, after letting go of its lock; other errors are not. The six-process test in
 * SqliteStore.test.ts is the race itself (about 1 in 240 opens lost it before).
 */
import { describe, expect, it } from "@effect/vitest"
import * as BusyRetry from "../src/internal/busyRetry.ts"

const locked = () => Object.assign(new Error("database is locked"), { code: "ERR_SQLITE_ERROR", errcode: 5 })

describe("BusyRetry.untilDeadline", () => {
  it("tries a busy step again, rolling back each time, until it succeeds", () => {
    let attempts = 0
    let rollbacks = 0
    const waits: Array<number> = []
    const result = BusyRetry.untilDeadline(
      () => {
        attempts++
        if (attempts < 4) throw locked()
        return "set up"
      },
      { deadline: Number.POSITIVE_INFINITY, rollback: () => void rollbacks++, wait: (ms) => void waits.push(ms) }
    )
    expect(result).toBe("set up")
    expect(attempts).toBe(4)
    expect(rollbacks).toBe(3)
    expect(waits.every((ms) => ms >= 10 && ms < 50)).toBe(true)
  })

  it("at the deadline, the busy error is thrown", () => {
    let clock = 0
    let attempts = 0
    expect(() =>
      BusyRetry.untilDeadline(
        () => {
          attempts++
          throw locked()
        },
        {
          deadline: 100,
          rollback: () => {},
          wait: (ms) => {
            clock += ms
          },
          now: () => clock
        }
      )
    ).toThrow("database is locked")
    expect(attempts).toBeGreaterThan(1)
    expect(clock).toBeGreaterThanOrEqual(100)
  })

  it("any other error is thrown at once", () => {
    let attempts = 0
    expect(() =>
      BusyRetry.untilDeadline(
        () => {
          attempts++
          throw new Error("disk I/O error")
        },
        { deadline: Number.POSITIVE_INFINITY, rollback: () => {}, wait: () => {} }
      )
    ).toThrow("disk I/O error")
    expect(attempts).toBe(1)
  })

  it("the default wait blocks the thread for about the time asked", () => {
    const started = performance.now()
    BusyRetry.sleepSync(30)
    expect(performance.now() - started).toBeGreaterThanOrEqual(25)
  })

  it("a thrown value whose message getter throws is not busy", () => {
    const hostile = new Proxy(new Error("x"), {
      get() {
        throw new Error("boom")
      }
    })
    expect(BusyRetry.isBusy(hostile)).toBe(false)
  })
})
