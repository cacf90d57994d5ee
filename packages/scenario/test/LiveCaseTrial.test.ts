/**
 * `LiveCase.trial`: one trial against a model the caller provides (hand-made here), in a fresh
 * environment each time: inline files and a real root folder (TreeRoots) copied anew, so a
 * trial that writes never leaks into the next nor into the fixture; only the opening messages
 * as history; traced on the caller's trace as a conversation is; usage summed and time taken; a
 * model failure, or an environment that cannot be made, a failed trial and never a crash. And
 * without a live model (`Suite.run`), a live case is not run: `SKIP … needs --model`, counted
 * as skipped, not failed.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Message, Model, Trace } from "@agent-harness/executor"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Result } from "effect"
import { LiveCase, Mounter, Report, Suite } from "../src/index.ts"
import * as TreeRoots from "../src/TreeRoots.ts"
import { oneFileDisk } from "./fixtures/files.ts"
import { decodeLive, handModel, LIVE_FILE, liveJson } from "./fixtures/live.ts"
import { fakeMounter } from "./fixtures/mounter.ts"

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-harness-live-case-"))
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }))

/** Appends to list.txt, reads it back, and says what it read. */
const appender = () =>
  handModel(
    [
      [Message.toolUse("c1", "append", { path: "list.txt", content: ", eggs" })],
      [Message.toolUse("c2", "read", { path: "list.txt" })],
      [Message.text("done")]
    ],
    { inputTokens: 100, outputTokens: 7 }
  )

/** The list holds eggs exactly once after the trial. */
const once = [{ file: "list.txt", content: "bread, eggs" }, { text: "done" }, { stop: "end" }]

describe("LiveCase.trial", () => {
  it.effect("over inline files: each trial starts from the file's files, with only the opening messages", () => {
    const { model, requests } = appender()
    return Effect.gen(function* () {
      const live = decodeLive(liveJson({ system: "Be brief.", pass: once }))
      const first = yield* LiveCase.trial(live, LIVE_FILE)
      const second = yield* LiveCase.trial(live, LIVE_FILE)
      for (const trial of [first, second]) {
        expect(trial.verdict).toStrictEqual({ passed: true, failures: [] })
        expect(trial.files).toStrictEqual({ "list.txt": "bread, eggs" })
        expect(trial.usage).toStrictEqual({ inputTokens: 300, outputTokens: 21 })
        expect(Duration.toMillis(trial.duration)).toBeGreaterThanOrEqual(0)
      }
      expect(live.file.files).toStrictEqual({ "list.txt": "bread" })
      // Each trial's first call sees the opening messages only: no history from the trial before.
      const firsts = requests.filter((r) => r.messages.every((m) => m.role !== "assistant"))
      expect(firsts.map((r) => r.messages)).toStrictEqual([
        [Message.system("Be brief."), Message.user("Add eggs to the list.")],
        [Message.system("Be brief."), Message.user("Add eggs to the list.")]
      ])
      expect(requests).toHaveLength(6)
    }).pipe(Effect.provide(Model.layer(model)))
  })

  it.effect("over a root folder: a fresh copy per trial, the fixture never written", () =>
    Effect.gen(function* () {
      const suite = path.join(temp, "root")
      fs.mkdirSync(path.join(suite, "project"), { recursive: true })
      fs.writeFileSync(path.join(suite, "project", "list.txt"), "bread")
      const file = path.join(suite, "live.json")
      const { files: _files, ...json } = liveJson({ root: "project", pass: once })
      const live = decodeLive(json, file)
      const trials = [yield* LiveCase.trial(live, file), yield* LiveCase.trial(live, file)]
      expect(trials.map((t) => t.verdict.passed)).toStrictEqual([true, true])
      expect(trials.map((t) => t.files)).toStrictEqual([{ "list.txt": "bread, eggs" }, { "list.txt": "bread, eggs" }])
      expect(fs.readFileSync(path.join(suite, "project", "list.txt"), "utf8")).toBe("bread")
    }).pipe(Effect.provide([Model.layer(appender().model), TreeRoots.layer]))
  )

  it.effect("mounts the declared MCP servers for each trial, and closes them after it", () => {
    const fake = fakeMounter()
    const { model } = handModel([[Message.toolUse("c1", "fx__echo", { text: "hi" })], [Message.text("done")]])
    return Effect.gen(function* () {
      const live = decodeLive(
        liveJson({
          mcp: [{ prefix: "fx", command: "server" }],
          pass: [{ observation: { content: "echo: hi", is_error: false }, seen: true }, { text: "done" }]
        })
      )
      const trials = [yield* LiveCase.trial(live, LIVE_FILE), yield* LiveCase.trial(live, LIVE_FILE)]
      expect(trials.map((t) => t.verdict.passed)).toStrictEqual([true, true])
      expect(fake.asked.map((a) => a.declaration.prefix)).toStrictEqual(["fx", "fx"])
      expect(fake.closed).toStrictEqual(["fx", "fx"])
      const failing = fakeMounter({ failing: "fx" })
      const refused = yield* Effect.provideService(LiveCase.trial(live, LIVE_FILE), Mounter.Mounter, failing.mounter)
      expect(refused.verdict.failures[0]?.message).toMatch(
        /^the trial failed: mcp\[0\] \(fx\): MCP server 'server': could not start/
      )
    }).pipe(Effect.provide(Model.layer(model)), Effect.provideService(Mounter.Mounter, fake.mounter))
  })

  it.effect("is traced on the caller's trace with a conversation's annotations", () =>
    Effect.gen(function* () {
      const memory = yield* Trace.memory
      const live = decodeLive(liveJson({ pass: once }))
      yield* Effect.provideService(LiveCase.trial(live, LIVE_FILE), Trace.Trace, memory.trace)
      const events = yield* memory.events
      const annotated = events.flatMap((e) => (e.type === "trace.annotated" ? [[e.key, e.value]] : []))
      expect(annotated).toStrictEqual([
        ["variant", "fixed"],
        ["locale", "en"],
        ["files", { "list.txt": "bread" }],
        ["files.final", { "list.txt": "bread, eggs" }]
      ])
      expect(events.filter((e) => e.type === "call.started")).toHaveLength(2)
      expect(events.map((e) => e.type).filter((t) => t === "run.ended")).toHaveLength(1)
    }).pipe(Effect.provide(Model.layer(appender().model)))
  )

  it.effect("a model failure is a failed trial, not a crash", () =>
    Effect.gen(function* () {
      const failing: Model.Shape = {
        respond: () => Effect.fail({ _tag: "Overloaded", message: "529 overloaded" })
      }
      const live = decodeLive(liveJson({ pass: once }))
      const trial = yield* Effect.provide(LiveCase.trial(live, LIVE_FILE), Model.layer(failing))
      expect(trial.verdict.passed).toBe(false)
      expect(trial.verdict.failures[0]?.message).toBe("the trial failed: model call 1: 529 overloaded (a failed trial)")
      expect(Result.isFailure(trial.result) && trial.result.failure._tag).toBe("ModelError")
      expect(trial.files).toStrictEqual({ "list.txt": "bread" })
      expect(trial.usage).toStrictEqual({})
      const dying: Model.Shape = { respond: () => Effect.die(new Error("boom")) }
      const died = yield* Effect.exit(Effect.provide(LiveCase.trial(live, LIVE_FILE), Model.layer(dying)))
      expect(Exit.isSuccess(died) && died.value.verdict.passed).toBe(false)
    })
  )

  it.effect("a priced trial whose model fails at call 3 keeps the cost of the two calls it paid for", () =>
    Effect.gen(function* () {
      const { model } = appender()
      let calls = 0
      const failingThird: Model.Shape = {
        respond: (request) =>
          Effect.suspend(() =>
            ++calls === 3 ? Effect.fail({ _tag: "Overloaded", message: "529 overloaded" }) : model.respond(request)
          )
      }
      const live = decodeLive(liveJson({ pass: once }))
      const zero = { inputTokens: 0, outputTokens: 0, cost: 0 }
      const spend: LiveCase.Spend = { limits: {}, price: { input: 3, output: 15 }, spent: zero, reserved: zero }
      const trial = yield* Effect.provide(LiveCase.trial(live, LIVE_FILE, { spend }), Model.layer(failingThird))
      expect(Result.isFailure(trial.result) && trial.result.failure._tag).toBe("ModelError")
      // Two calls of 100 in and 7 out at $3 and $15 per million.
      expect(trial.cost).toBeCloseTo((2 * (100 * 3 + 7 * 15)) / 1e6, 12)
    })
  )

  it.effect("an environment that cannot be made is a failed trial in which nothing ran", () =>
    Effect.gen(function* () {
      const { files: _files, ...json } = liveJson({ root: "project", pass: once })
      const { model, requests } = appender()
      const trial = yield* Effect.provide(LiveCase.trial(decodeLive(json), LIVE_FILE), Model.layer(model))
      expect(trial.verdict.passed).toBe(false)
      expect(trial.verdict.failures[0]?.message).toMatch(
        /^the trial failed: root: declares a root folder, but nothing here can copy one/
      )
      expect(Result.isFailure(trial.result) && trial.result.failure._tag).toBe("NotRun")
      expect(requests).toHaveLength(0)
    })
  )
})

describe("a live case without a live model", () => {
  it.effect("Suite.run does not run it: a SKIP line saying it needs --model, counted as skipped, not failed", () =>
    Effect.gen(function* () {
      const scenario = yield* Suite.load(LIVE_FILE).pipe(Effect.provide(oneFileDisk(liveJson())))
      expect(scenario.kind).toBe("live")
      const verdict = yield* Suite.run(scenario, LIVE_FILE)
      expect(verdict.notRun).toBe(LiveCase.needsModel)
      expect(verdict.passed).toBe(false)
      expect(Report.verdict(verdict)).toBe(`SKIP live: ${LiveCase.needsModel}`)
      const totals = Report.totals([verdict], 0)
      expect(totals).toMatchObject({ passed: 0, failed: 0, skipped: 1 })
      expect(Report.closing(totals)).toStrictEqual(["1 skipped (not run: see the SKIP lines)", "0 passed, 0 failed"])
    })
  )

  it.effect("Suite.load refuses a live case's root, mcp or policy as a conversation's without their services", () =>
    Effect.gen(function* () {
      const { files: _files, ...json } = liveJson({ root: "project" })
      const refused = yield* Effect.flip(Suite.load(LIVE_FILE).pipe(Effect.provide(oneFileDisk(json))))
      expect(refused.path).toBe("root")
      const policy = yield* Effect.flip(
        Suite.load(LIVE_FILE).pipe(Effect.provide(oneFileDisk(liveJson({ policy: {} }))))
      )
      expect(policy.path).toBe("policy")
      const mcp = liveJson({ mcp: [{ prefix: "echo", command: "node" }] })
      expect((yield* Effect.flip(Suite.load(LIVE_FILE).pipe(Effect.provide(oneFileDisk(mcp))))).path).toBe("mcp")
    })
  )
})
