/**
 * Hostile commands in the real sandbox: a fork bomb, a process that ignores SIGTERM, one left in
 * the background, huge and binary output, hostile values, interruptions. Each must end bounded,
 * with nothing left running on the host and no cgroup left behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber } from "effect"
import { Sandbox } from "../src/index.ts"
import {
  detect,
  eventually,
  leftCgroups,
  makeRoot,
  marker,
  processesWith,
  remove,
  run,
  runExit,
  timeout
} from "./fixtures.ts"

let root: string
let sandbox: Sandbox.Sandbox

beforeAll(async () => {
  root = makeRoot()
  sandbox = await detect({ root, timeoutMs: 20_000, maxProcesses: 32 })
}, timeout)

afterAll(() => {
  remove(root)
  expect(leftCgroups(sandbox)).toEqual([])
})

/** The typed failure of an exit. */
const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const found = Cause.findError(exit.cause)
  if (found._tag === "Failure") throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.success
}

describe("processes", () => {
  it(
    "a fork bomb is contained by maxProcesses, killed at the timeout, and leaves nothing",
    async () => {
      const mark = marker()
      const bomb = await run(sandbox, { shell: `f() { f | f & }; f; sleep ${mark}` }, { timeoutMs: 3_000 })
      expect(bomb.timedOut).toBe(true)
      expect(bomb.exitCode).toBe(null)
      expect(bomb.signal).toBe("SIGKILL")
      expect(bomb.durationMs).toBeLessThan(15_000)
      expect(await eventually(() => processesWith(mark).length === 0)).toBe(true)
      expect(leftCgroups(sandbox)).toEqual([])
      // The machine is fine: the next command runs at once.
      const after = await run(sandbox, { argv: ["echo", "still here"] })
      expect(after.stdout.text).toBe("still here\n")
    },
    timeout
  )

  it(
    "maxProcesses holds: past it, fork fails inside the sandbox",
    async () => {
      const done = await run(sandbox, {
        shell: "i=0; while [ $i -lt 200 ]; do sleep 5 & i=$((i+1)); done; echo survived"
      })
      expect(done.stdout.text).not.toContain("survived")
      expect(done.stderr.text + done.stdout.text).toMatch(/fork|Resource temporarily unavailable/i)
    },
    timeout
  )

  it(
    "a process that ignores SIGTERM is killed at the timeout",
    async () => {
      const mark = marker()
      const done = await run(sandbox, { shell: `trap '' TERM; echo waiting; sleep ${mark}` }, { timeoutMs: 3_000 })
      expect(done.timedOut).toBe(true)
      expect(done.stdout.text).toBe("waiting\n")
      expect(await eventually(() => processesWith(mark).length === 0)).toBe(true)
    },
    timeout
  )

  it(
    "a process left in the background is killed when the command exits, setsid or nohup included",
    async () => {
      const mark = marker()
      const done = await run(sandbox, {
        shell: `sleep ${mark} & setsid sleep ${mark} & nohup sleep ${mark} >/dev/null 2>&1 & echo started`
      })
      expect(done.exitCode).toBe(0)
      expect(done.timedOut).toBe(false)
      expect(done.stdout.text).toBe("started\n")
      expect(done.durationMs).toBeLessThan(10_000)
      expect(processesWith(mark)).toEqual([])
    },
    timeout
  )
})

describe("output", () => {
  it(
    "huge output is capped, counted whole, and memory stays bounded",
    async () => {
      const before = process.memoryUsage().rss
      const done = await run(sandbox, { shell: "yes | head -c 50000000" })
      expect(done.exitCode).toBe(0)
      expect(done.stdout.bytes).toBe(50_000_000)
      expect(done.stdout.truncated).toBe(true)
      expect(done.stdout.text.length).toBe(30_000)
      expect(done.stdout.text.startsWith("y\ny\n")).toBe(true)
      expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024)
    },
    timeout
  )

  it(
    "endless output until the timeout: the output so far, capped",
    async () => {
      const done = await run(sandbox, { argv: ["yes"] }, { timeoutMs: 3_000 })
      expect(done.timedOut).toBe(true)
      expect(done.stdout.bytes).toBeGreaterThan(30_000)
      expect(done.stdout.text.length).toBe(30_000)
      expect(done.stdout.truncated).toBe(true)
    },
    timeout
  )

  it(
    "binary output is said binary, with its size and no text",
    async () => {
      const random = await run(sandbox, { shell: "head -c 4096 /dev/urandom" })
      expect(random.stdout).toEqual({ text: "", bytes: 4096, truncated: false, binary: true })
      const nul = await run(sandbox, { shell: "printf 'a\\000b' >&2" })
      expect(nul.stderr).toEqual({ text: "", bytes: 3, truncated: false, binary: true })
    },
    timeout
  )

  it(
    "a cut falls on a character boundary",
    async () => {
      const done = await run(sandbox, { argv: ["printf", "ñññ"] }, { maxOutputBytes: 5 })
      expect(done.stdout).toEqual({ text: "ññ", bytes: 6, truncated: true, binary: false })
    },
    timeout
  )
})

describe("hostile values", () => {
  const problemOf = async (command: unknown) => {
    const started = Date.now()
    const error = failureOf(await runExit(sandbox, command))
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(error).toBeInstanceOf(Sandbox.InvalidCommand)
    return error as Sandbox.InvalidCommand
  }

  it(
    "are typed failures naming the problem, and nothing runs",
    async () => {
      const throwing = {
        get argv(): never {
          throw new Error("boom")
        }
      }
      expect((await problemOf(throwing)).message).toBe("the command could not be read: boom")
      const proxy = new Proxy(["echo"], {
        get: () => {
          throw new Error("trap")
        }
      })
      expect((await problemOf({ argv: proxy })).message).toBe("the command could not be read: trap")
      const revocable = Proxy.revocable({}, {})
      revocable.revoke()
      expect((await problemOf(revocable.proxy)).kind).toBe("unreadable")
      expect((await problemOf({ argv: ["echo", "a\0b"] })).message).toBe(
        "argument 1 contains a NUL character, which no program argument can hold"
      )
      expect((await problemOf({ argv: ["echo", "x".repeat(10 * 1024 * 1024)] })).message).toBe(
        "argument 1 is 10,485,760 bytes long, more than the 131,071 bytes a program argument can be"
      )
      expect((await problemOf({ argv: Array.from({ length: 200_000 }, () => "a") })).kind).toBe("too-large")
      expect((await problemOf({ argv: ["echo", 42] })).message).toBe("argument 1 is not a text")
      expect((await problemOf({ argv: [] })).message).toBe("the program is empty")
      expect((await problemOf({ argv: [""] })).message).toBe("the program is empty")
      expect((await problemOf({ argv: ["a"], shell: "b" })).kind).toBe("not-command")
      expect((await problemOf(null)).kind).toBe("not-command")
      expect((await problemOf({ shell: "echo \0" })).message).toBe(
        "the shell line contains a NUL character, which no program argument can hold"
      )
    },
    timeout
  )

  it(
    "invalid or unreadable run options are an InvalidPolicy",
    async () => {
      const exit = await Effect.runPromiseExit(Sandbox.run(sandbox, { argv: ["true"] }, { timeoutMs: -1 }))
      const error = failureOf(exit)
      expect(error).toBeInstanceOf(Sandbox.InvalidPolicy)
      expect(error.message).toBe("Sandbox: option 'timeoutMs' must be a whole number from 1 to 2147483647, got -1")
      const hostile = {
        get timeoutMs(): number {
          throw new Error("no")
        }
      }
      const unreadable = failureOf(await Effect.runPromiseExit(Sandbox.run(sandbox, { argv: ["true"] }, hostile)))
      expect(unreadable.message).toBe("Sandbox: option 'options' could not be read: no")
    },
    timeout
  )
})

describe("interruption", () => {
  it(
    "interrupting the Effect kills the command and everything it started",
    async () => {
      const mark = marker()
      const fiber = Effect.runFork(Sandbox.run(sandbox, { shell: `sleep ${mark} & sleep ${mark}` }))
      const started = await eventually(() => processesWith(mark).length >= 2)
      const exit = await Effect.runPromise(Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber))))
      expect(started).toBe(true)
      expect(Exit.hasInterrupts(exit)).toBe(true)
      expect(processesWith(mark)).toEqual([])
      expect(leftCgroups(sandbox)).toEqual([])
    },
    timeout
  )

  it(
    "a caller's timeout interrupts it the same way",
    async () => {
      const mark = marker()
      const exit = await Effect.runPromiseExit(
        Sandbox.run(sandbox, { argv: ["sleep", mark] }).pipe(Effect.timeout("500 millis"))
      )
      expect(Exit.isFailure(exit)).toBe(true)
      expect(processesWith(mark)).toEqual([])
      expect(leftCgroups(sandbox)).toEqual([])
    },
    timeout
  )
})
