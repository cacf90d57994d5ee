/**
 * `LiveCase.evaluate`: each kind of check holds and fails over one real trial (a hand-made model
 * through the real loop and file tools), a model failure is a failed trial, and hostile values
 * (a huge text against a pattern that backtracks in JavaScript, a throwing getter, a cyclic
 * input, a pattern a hand-made case never compiled) fail their check in words, never a throw.
 */
import { type Loop, Message, Model } from "@agent-harness/executor"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { LiveCase, type ScenarioFile } from "../src/index.ts"
import { decodeLive, handModel, LIVE_FILE, liveJson } from "./fixtures/live.ts"

/** One trial: the model writes list.txt, reads a file that does not exist, then says done. */
const oneTrial = (): Promise<LiveCase.Run> => {
  const { model } = handModel([
    [Message.toolUse("c1", "write", { path: "list.txt", content: "bread, eggs" })],
    [Message.toolUse("c2", "read", { path: "missing.txt" })],
    [Message.text("done: eggs added")]
  ])
  const trial = LiveCase.trial(decodeLive(liveJson()), LIVE_FILE)
  return Effect.runPromise(
    Effect.map(Effect.provide(trial, Model.layer(model)), (t) => ({ ended: t.result, files: t.files }))
  )
}

let run: LiveCase.Run

beforeAll(async () => {
  run = await oneTrial()
})

/** The verdict of `checks` (as a file writes them) on `over` (default: the trial). */
const judge = (checks: ReadonlyArray<unknown>, over: LiveCase.Run = run): LiveCase.Judged =>
  LiveCase.evaluate(decodeLive(liveJson({ pass: checks })), over)

/** Whether each check, alone, holds. */
const holds = (...checks: ReadonlyArray<unknown>): ReadonlyArray<boolean> => checks.map((c) => judge([c]).passed)

const finished = (over: LiveCase.Run): Loop.RunResult => {
  if (Result.isFailure(over.ended)) throw new Error("the trial failed")
  return over.ended.success
}

describe("LiveCase.evaluate", () => {
  it("the final text: exact, or a pattern", () => {
    expect(holds({ text: "done: eggs added" }, { text: { pattern: "eggs" } })).toStrictEqual([true, true])
    expect(holds({ text: "done" }, { text: { pattern: "^milk" } })).toStrictEqual([false, false])
    const failed = judge([{ stop: "end" }, { text: "done" }])
    expect(failed.passed).toBe(false)
    expect(failed.failures).toStrictEqual([
      {
        check: 1,
        expected: '"done"',
        seen: '"done: eggs added"',
        message: 'pass[1]: the final text differs\n  expected: "done"\n  seen:     "done: eggs added"'
      }
    ])
    const noText: LiveCase.Run = {
      ...run,
      ended: Result.succeed({ ...finished(run), stop: "turn_cap", text: undefined })
    }
    expect(judge([{ text: { pattern: "" } }], noText).failures[0]?.seen).toBe("(no final text)")
  })

  it("a file: its content exact or by pattern, or its absence", () => {
    expect(
      holds(
        { file: "list.txt", content: "bread, eggs" },
        { file: "list.txt", content: { pattern: "eggs$" } },
        { file: "missing.txt", absent: true }
      )
    ).toStrictEqual([true, true, true])
    expect(
      holds(
        { file: "list.txt", content: "bread" },
        { file: "list.txt", content: { pattern: "^eggs" } },
        { file: "list.txt", absent: true },
        { file: "other.txt", content: "" }
      )
    ).toStrictEqual([false, false, false, false])
    expect(judge([{ file: "other.txt", content: "x" }]).failures[0]?.message).toBe(
      `pass[0]: file 'other.txt' does not exist\n  expected: "x"\n  seen:     (no such file)`
    )
    expect(judge([{ file: "list.txt", absent: true }]).failures[0]?.seen).toBe('"bread, eggs"')
    // Not a key of the prototype either.
    expect(holds({ file: "toString", absent: true })).toStrictEqual([true])
  })

  it("an observation seen, or never seen", () => {
    expect(
      holds(
        { observation: { content: { pattern: "does not exist" }, is_error: true }, seen: true },
        { observation: { content: { pattern: "^wrote" }, is_error: false }, seen: true },
        { observation: { content: { pattern: "not executed" } }, seen: false },
        { observation: {}, seen: true }
      )
    ).toStrictEqual([true, true, true, true])
    expect(
      holds(
        { observation: { content: { pattern: "does not exist" }, is_error: false }, seen: true },
        { observation: { is_error: true }, seen: false },
        { observation: { content: "nothing like it" }, seen: true }
      )
    ).toStrictEqual([false, false, false])
    const never = judge([{ observation: { is_error: true }, seen: false }]).failures[0]
    expect(never?.seen).toBe(`turn 2, tool_use_id "c2": "file 'missing.txt' does not exist"`)
    expect(never?.expected).toBe("never an observation with is_error true")
  })

  it("a call made at least once, or never, its input containing the check's", () => {
    expect(
      holds(
        { call: { name: "write" }, made: true },
        { call: { name: "write", input: { path: "list.txt" } }, made: true },
        { call: { name: "write", input: { path: "list.txt", content: "bread, eggs" } }, made: true },
        { call: { name: "append" }, made: false },
        { call: { name: "read", input: { path: "list.txt" } }, made: false }
      )
    ).toStrictEqual([true, true, true, true, true])
    expect(
      holds(
        { call: { name: "write", input: { path: "other.txt" } }, made: true },
        { call: { name: "write", input: { mode: "w" } }, made: true },
        { call: { name: "read" }, made: false }
      )
    ).toStrictEqual([false, false, false])
    expect(judge([{ call: { name: "read" }, made: false }]).failures[0]?.seen).toBe(
      `turn 2, id "c2", input {"path":"missing.txt"}`
    )
  })

  it("the stop reason", () => {
    expect(holds({ stop: "end" }, { stop: "turn_cap" })).toStrictEqual([true, false])
    expect(judge([{ stop: "turn_cap" }]).failures[0]?.message).toBe(
      "pass[0]: the run stopped with 'end'\n  expected: turn_cap\n  seen:     end"
    )
  })

  it("every check must hold; each that does not is named by its index", () => {
    const verdict = judge([
      { stop: "end" },
      { text: "x" },
      { file: "list.txt", absent: true },
      { call: { name: "write" }, made: true }
    ])
    expect(verdict.passed).toBe(false)
    expect(verdict.failures.map((f) => f.check)).toStrictEqual([1, 2])
    expect(judge([{ stop: "end" }, { call: { name: "write" }, made: true }])).toStrictEqual({
      passed: true,
      failures: []
    })
  })

  it("a model failure is a failed trial, whatever the checks", () => {
    const failed: LiveCase.Run = {
      ended: Result.fail(new Model.ModelError({ turn: 2, reason: { _tag: "RateLimited", message: "429 too many" } })),
      files: { "list.txt": "bread" }
    }
    const verdict = judge([{ file: "list.txt", content: "bread" }], failed)
    expect(verdict.passed).toBe(false)
    expect(verdict.failures).toStrictEqual([
      {
        expected: "a run that ends",
        seen: "model call 2: 429 too many",
        message: "the trial failed: model call 2: 429 too many (a failed trial)"
      }
    ])
  })

  it("hostile values fail their check in words: a huge text, a throwing getter, a cyclic input, an uncompiled pattern", () => {
    const huge = `${"a".repeat(5_000_000)}b`
    const hugeRun: LiveCase.Run = { ...run, ended: Result.succeed({ ...finished(run), text: huge }) }
    const started = performance.now()
    // (a+)+$ backtracks for ever in JavaScript on this text; RE2 answers in linear time.
    const verdict = judge([{ text: { pattern: "(a+)+$" } }, { text: "a" }, { text: { pattern: "a+b$" } }], hugeRun)
    expect(performance.now() - started).toBeLessThan(20_000)
    expect(verdict.failures.map((f) => f.check)).toStrictEqual([0, 1])
    expect(verdict.failures[0]?.seen.length).toBeLessThan(300)
    expect(verdict.failures[0]?.seen).toMatch(/… \(5000003 characters\)$/)

    const throwing = Object.defineProperty({ ...finished(run) }, "turns", {
      get: () => {
        throw new Error("turns are gone")
      }
    })
    const broken = judge([{ stop: "end" }, { call: { name: "write" }, made: true }], {
      ...run,
      ended: Result.succeed(throwing)
    })
    expect(broken.failures).toStrictEqual([
      {
        check: 1,
        expected: "a run whose values can be read",
        seen: "turns are gone",
        message:
          "pass[1]: the check could not be judged (turns are gone)\n  expected: a run whose values can be read\n  seen:     turns are gone"
      }
    ])

    const cyclic: { [key: string]: unknown } = { path: "list.txt" }
    cyclic.self = cyclic
    const cycleRun: LiveCase.Run = {
      ...run,
      ended: Result.succeed({
        ...finished(run),
        turns: [{ turn: 1, reply: [Message.toolUse("c9", "write", cyclic)], outcomes: [] }]
      })
    }
    const deep = { path: "list.txt", self: { self: { self: { path: "list.txt" } } } }
    expect(judge([{ call: { name: "write", input: deep }, made: true }], cycleRun).passed).toBe(true)
    const shown = judge([{ call: { name: "write" }, made: false }], cycleRun).failures[0]?.seen
    expect(shown).toMatch(/^turn 1, id "c9", input \(a value that cannot be shown: /)

    const unreadable = Object.defineProperty({ files: {} }, "ended", {
      get: () => {
        throw new Error("no result here")
      }
    }) as unknown as LiveCase.Run
    expect(judge([{ stop: "end" }], unreadable)).toStrictEqual({
      passed: false,
      failures: [
        {
          expected: "a trial whose result can be read",
          seen: "no result here",
          message: "the trial could not be judged (no result here)"
        }
      ]
    })

    const handMade: ScenarioFile.LiveFile = { ...decodeLive(liveJson()).file, pass: [{ text: { pattern: "(a)\\1" } }] }
    expect(LiveCase.evaluate(handMade, run).failures[0]?.message).toMatch(
      /^pass\[0\]: the pattern \/\(a\)\\1\/ cannot be used: not supported: a backreference/
    )
  })
})
