/**
 * The partial-plan cache never serves a stale result: a read-only step's result is reused only
 * while no step that may have changed the environment has run since (or alongside it); an
 * action (a tool not annotated read-only) that succeeded is done and is not run again; steps
 * that provably did not run change nothing; the step budget counts the reads that must run
 * again; and a session resumed over a journal makes the same decisions.
 */
import { Journal, MemoryStore } from "@agent-harness/idempotency"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type Event, RulePlanner, Session, Step } from "../src/index.ts"

/** A folder in memory with a read-only `read`, a replacing `write` and an `append`, and a `check` that fails. */
const folder = (initial: Record<string, string>, options?: { readonly failingWrites?: number }) => {
  const files = new Map(Object.entries(initial))
  const runs: Array<string> = []
  let failingWrites = options?.failingWrites ?? 0
  const read = Tool.make("read", {
    description: "Reads a file",
    parameters: Schema.Struct({ path: Schema.String }),
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    run: ({ path }) => {
      runs.push(`read ${path}`)
      return files.get(path) ?? Effect.fail({ message: `no file ${path}` })
    }
  })
  const write = Tool.make("write", {
    description: "Replaces a file",
    parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
    annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
    run: ({ path, content }) => {
      runs.push(`write ${path}`)
      files.set(path, content)
      // A write that fails after it wrote: it may have partly run.
      if (failingWrites > 0) {
        failingWrites--
        return Effect.fail({ message: "disk full" })
      }
      return `wrote ${path}`
    }
  })
  const append = Tool.make("append", {
    description: "Appends to a file",
    parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
    run: ({ path, content }) => {
      runs.push(`append ${path}`)
      files.set(path, `${files.get(path) ?? ""}${content}`)
      return `appended to ${path}`
    }
  })
  let checks = 0
  const check = Tool.make("check", {
    description: "Checks the work: fails the first time",
    parameters: Schema.Struct({}),
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    run: () => {
      runs.push("check")
      checks++
      return checks === 1 ? Effect.fail({ message: "check failed" }) : "checked"
    }
  })
  return { toolset: Toolset.make(read, write, append, check), files, runs }
}

const s = (id: number, tool: string, args: Readonly<Record<string, unknown>> = {}, group?: string) =>
  Step.make(id, tool, args, `step ${id}`, group)

const cachedIds = (events: ReadonlyArray<Event.Event>) =>
  events.flatMap((e) => (e.type === "step.cached" ? [[e.id, e.result] as const] : []))

const resultsOf = (events: ReadonlyArray<Event.Event>, id: number) =>
  events.flatMap((e) => (e.type === "step.succeeded" && e.id === id ? [e.result] : []))

const session = (
  toolset: Toolset.Toolset<Tool.Any>,
  first: Step.Plan,
  second: Step.Plan,
  maxSteps = 20,
  sessionId?: string
) =>
  Session.run({
    goal: "g",
    sessionId,
    planner: RulePlanner.make([
      { when: null, plan: first },
      // After any failure ("" is in every error).
      { when: "", plan: second }
    ]),
    toolset,
    maxSteps,
    maxReplans: 1
  })

describe("Session.run: the partial-plan cache never serves a stale result", () => {
  it.effect("read a, write a, a failure, replan read a: the read runs again and sees the new content", () =>
    Effect.gen(function* () {
      const { toolset, runs } = folder({ a: "old" })
      const result = yield* session(
        toolset,
        [s(1, "read", { path: "a" }), s(2, "write", { path: "a", content: "new" }), s(3, "check")],
        [s(1, "read", { path: "a" }), s(2, "write", { path: "a", content: "new" }), s(4, "check")]
      )
      assert.strictEqual(result.reason, "goal_met")
      assert.deepStrictEqual(resultsOf(result.events, 1), ["old", "new"])
      // The write is an action: done, not done again. The read is never served from the cache.
      assert.deepStrictEqual(cachedIds(result.events), [[2, "wrote a"]])
      assert.deepStrictEqual(runs, ["read a", "write a", "check", "read a", "check"])
    })
  )

  it.effect("a read with nothing changed since is reused; so is one when only read-only steps ran", () =>
    Effect.gen(function* () {
      const { toolset, runs } = folder({ a: "old", b: "b0" })
      const result = yield* session(
        toolset,
        [s(1, "read", { path: "a" }), s(2, "read", { path: "b" }), s(3, "check")],
        [s(1, "read", { path: "a" }), s(4, "check")]
      )
      assert.strictEqual(result.reason, "goal_met")
      assert.deepStrictEqual(cachedIds(result.events), [[1, "old"]])
      assert.deepStrictEqual(runs, ["read a", "read b", "check", "check"])
    })
  )

  it.effect("a write that failed may have partly run: reads before it are not reused", () =>
    Effect.gen(function* () {
      const { toolset, runs } = folder({ a: "old" }, { failingWrites: 1 })
      const result = yield* session(
        toolset,
        [s(1, "read", { path: "a" }), s(2, "write", { path: "a", content: "half" })],
        [s(1, "read", { path: "a" }), s(3, "check")]
      )
      assert.deepStrictEqual(resultsOf(result.events, 1), ["old", "half"])
      assert.deepStrictEqual(cachedIds(result.events), [])
      assert.deepStrictEqual(runs.slice(0, 3), ["read a", "write a", "read a"])
    })
  )

  it.effect("a write that provably did not run (failed its schema) changes nothing: the read is reused", () =>
    Effect.gen(function* () {
      const { toolset } = folder({ a: "old" })
      const result = yield* Session.run({
        goal: "g",
        planner: RulePlanner.make([
          { when: null, plan: [s(1, "read", { path: "a" }), s(2, "write", { path: "a" })] },
          { when: "not executed", plan: [s(1, "read", { path: "a" }), s(2, "write", { path: "a", content: "x" })] }
        ]),
        toolset,
        maxSteps: 10,
        maxReplans: 1
      })
      assert.strictEqual(result.reason, "goal_met")
      assert.deepStrictEqual(cachedIds(result.events), [[1, "old"]])
    })
  )

  it.effect("a read in the same group as a write ran alongside it: not reused", () =>
    Effect.gen(function* () {
      const { toolset } = folder({ a: "old", b: "b0" })
      const result = yield* session(
        toolset,
        [s(1, "read", { path: "a" }, "g"), s(2, "write", { path: "b", content: "b1" }, "g"), s(3, "check")],
        [s(1, "read", { path: "a" }, "g"), s(2, "write", { path: "b", content: "b1" }, "g"), s(4, "check")]
      )
      assert.strictEqual(result.reason, "goal_met")
      assert.deepStrictEqual(cachedIds(result.events), [[2, "wrote b"]])
      assert.deepStrictEqual(resultsOf(result.events, 1), ["old", "old"])
    })
  )

  it.effect("an action that succeeded is not run again, whatever ran after it (no double append)", () =>
    Effect.gen(function* () {
      const { toolset, files } = folder({ list: "bread" })
      const result = yield* session(
        toolset,
        [
          s(1, "append", { path: "list", content: ", milk" }),
          s(2, "write", { path: "b", content: "x" }),
          s(3, "check")
        ],
        [s(1, "append", { path: "list", content: ", milk" }), s(4, "check")]
      )
      assert.strictEqual(result.reason, "goal_met")
      assert.deepStrictEqual(cachedIds(result.events), [[1, "appended to list"]])
      assert.strictEqual(files.get("list"), "bread, milk")
    })
  )

  it.effect("a read after a write in the new plan runs again: the step budget counts it before anything runs", () =>
    Effect.gen(function* () {
      const first = [s(1, "read", { path: "a" }), s(2, "check")]
      // The write comes first now, so the read after it must run again: 2 steps, not 1.
      const second = [s(3, "write", { path: "a", content: "new" }), s(1, "read", { path: "a" })]
      const fits = folder({ a: "old" })
      const exact = yield* session(fits.toolset, first, second, 4)
      assert.deepStrictEqual([exact.reason, exact.steps], ["goal_met", 4])
      assert.deepStrictEqual(resultsOf(exact.events, 1), ["old", "new"])
      const short = folder({ a: "old" })
      const refused = yield* session(short.toolset, first, second, 3)
      assert.strictEqual(refused.reason, "step_budget")
      assert.deepStrictEqual(
        refused.events.flatMap((e) => (e.type === "plan.rejected" ? [e.detail] : [])),
        ["the plan needs 2 steps, 1 of 3 left"]
      )
      assert.deepStrictEqual(short.runs, ["read a", "check"])
    })
  )

  it.effect("a session resumed over its journal makes the same cache decisions: same call ids, same events", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore.make
      const first = [s(1, "read", { path: "a" }), s(2, "write", { path: "a", content: "new" }), s(3, "check")]
      const second = [s(1, "read", { path: "a" }), s(2, "write", { path: "a", content: "new" }), s(4, "check")]
      const { toolset, runs } = folder({ a: "old" })
      const original = yield* session(toolset, first, second, 20, "resume-me").pipe(
        Effect.provide(Journal.layer(store))
      )
      const ranBefore = [...runs]
      const resumed = yield* session(toolset, first, second, 20, "resume-me").pipe(Effect.provide(Journal.layer(store)))
      assert.deepStrictEqual(resumed.events, original.events)
      assert.deepStrictEqual(runs, ranBefore, "the resumed session ran nothing")
    })
  )
})
