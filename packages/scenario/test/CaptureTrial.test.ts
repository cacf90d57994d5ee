/**
 * `Capture.trial` and `Capture.checkedTrial`: a live trial, run with a hand-made model under a
 * real `Trace.jsonl` file, captured into a conversation scenario that decodes, replays with the
 * scripted model, and fails exactly as the trial did (its failing checks, nothing else); a
 * passing trial's scenario passes. A `root` is made relative to where the scenario is written
 * when that folder holds it, else inlined from the trace. Traces that cannot give one are refused
 * naming the line.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Message, Model, Trace } from "@agent-harness/executor"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Result } from "effect"
import { Capture, Conversation, LiveCase, ScenarioFile } from "../src/index.ts"
import * as Paths from "../src/internal/paths.ts"
import * as TreeRoots from "../src/TreeRoots.ts"
import { decodeLive, handModel, LIVE_FILE, liveJson } from "./fixtures/live.ts"

const temp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-harness-capture-trial-"))
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }))
let traces = 0

/** A file handle whose `writeAll` writes with node's calls (the rest is not needed here). */
const nodeHandle = (fd: number): FileSystem.File => ({
  [FileSystem.FileTypeId]: FileSystem.FileTypeId,
  stat: Effect.die("disk: stat is not supported"),
  seek: () => Effect.die("disk: seek is not supported"),
  sync: Effect.sync(() => fs.fsyncSync(fd)),
  read: () => Effect.die("disk: read is not supported"),
  readAlloc: () => Effect.die("disk: readAlloc is not supported"),
  truncate: () => Effect.die("disk: truncate is not supported"),
  write: (buffer) => Effect.sync(() => fs.writeSync(fd, buffer)),
  writeAll: (buffer) => Effect.sync(() => void fs.writeFileSync(fd, buffer))
})

/** A file system that writes (and appends) text and opens files with node's calls: what `Trace.jsonl` needs. */
const disk = Layer.succeed(FileSystem.FileSystem)(
  FileSystem.makeNoop({
    open: (file, options) =>
      Effect.map(
        Effect.acquireRelease(
          Effect.sync(() => fs.openSync(file, options?.flag ?? "r")),
          (fd) => Effect.sync(() => fs.closeSync(fd))
        ),
        nodeHandle
      ),
    writeFileString: (file, data, options) =>
      Effect.sync(() => fs.writeFileSync(file, data, options?.flag === undefined ? {} : { flag: options.flag }))
  })
)

/** Runs one trial with `replies` under a `Trace.jsonl` file: the trial and the trace's text. */
const traced = (live: ScenarioFile.Live, replies: ReadonlyArray<ReadonlyArray<Message.ReplyBlock>>, file = LIVE_FILE) =>
  Effect.gen(function* () {
    const tracePath = path.join(temp, `trial-${traces++}.jsonl`)
    const { model } = handModel(replies)
    const trial = yield* LiveCase.trial(live, file).pipe(
      Effect.provide(Layer.merge(Model.layer(model), Layer.provide(Trace.jsonl(tracePath), disk))),
      Effect.orDie
    )
    return { trial, text: fs.readFileSync(tracePath, "utf8") }
  })

const appendEggs = [Message.toolUse("c1", "append", { path: "list.txt", content: ", eggs" })]

/** The captured scenario decoded as a conversation (throws when it is not one). */
const asConversation = (captured: Capture.Captured, file: string): ScenarioFile.Conversation => {
  const decoded = ScenarioFile.decode(file, captured)
  if (Result.isFailure(decoded)) throw new Error(decoded.failure.message)
  if (decoded.success.kind !== "conversation") throw new Error("not a conversation")
  return decoded.success
}

const OUT = "harness-trials/captured/live.fixed.0.json"

describe("Capture.trial", () => {
  it.effect(
    "a failing trial (final text 'not done', pass text 'done'): the scenario replays and fails the same way",
    () =>
      Effect.gen(function* () {
        const live = decodeLive(liveJson({ system: "Be brief.", pass: [{ text: "done" }, { stop: "end" }] }))
        const { trial, text } = yield* traced(live, [appendEggs, [Message.text("not done")]])
        expect(trial.verdict.passed).toBe(false)
        const captured = Capture.trial(live, LIVE_FILE, text, { out: OUT, trial: 0 })
        if (Result.isFailure(captured)) throw new Error(captured.failure.message)
        expect(captured.success).toMatchObject({
          format: 1,
          kind: "conversation",
          name: "live: captured from trial 0 of cases/live.json (variant fixed)",
          system: "Be brief.",
          user: "Add eggs to the list.",
          files: { "list.txt": "bread" },
          pass: [{ text: "done" }, { stop: "end" }],
          outcome: { stop: "end", text: "not done", files: { "list.txt": "bread, eggs" } }
        })
        const verdict = yield* Conversation.run(asConversation(captured.success, OUT), OUT)
        expect(verdict.passed).toBe(false)
        expect(verdict.failures.map((f) => [f.kind, f.message])).toStrictEqual(
          trial.verdict.failures.map((f) => ["pass", f.message])
        )
        const checked = yield* Capture.checkedTrial(live, LIVE_FILE, text, {
          out: OUT,
          trial: 0,
          judged: trial.verdict
        })
        expect(checked.scenario).toStrictEqual(captured.success)
        expect(checked.verdict.failures).toStrictEqual(verdict.failures)
        expect(checked.expected.map((f) => f.message)).toStrictEqual(trial.verdict.failures.map((f) => f.message))
        // Without the trial's verdict, the criterion judged over the trace says the same.
        const byTrace = yield* Capture.checkedTrial(live, LIVE_FILE, text, { out: OUT })
        expect(byTrace.expected).toStrictEqual(checked.expected)
      })
  )

  it.effect("a file check and a call never made: both fail in the replay as in the trial", () =>
    Effect.gen(function* () {
      const pass = [
        { file: "list.txt", content: "bread, eggs, milk" },
        { call: { name: "append", input: { content: ", milk" } }, made: true },
        { observation: { is_error: true }, seen: false },
        { text: "done" }
      ]
      const live = decodeLive(liveJson({ pass }))
      const { trial, text } = yield* traced(live, [appendEggs, [Message.text("done")]])
      expect(trial.verdict.failures.map((f) => f.check)).toStrictEqual([0, 1])
      const checked = yield* Capture.checkedTrial(live, LIVE_FILE, text, { out: OUT, judged: trial.verdict })
      expect(checked.verdict.failures.map((f) => f.message.split("\n")[0])).toStrictEqual([
        "pass[0]: file 'list.txt' differs",
        "pass[1]: the call was never made"
      ])
    })
  )

  it.effect("a passing trial gives a scenario that passes", () =>
    Effect.gen(function* () {
      const live = decodeLive(liveJson({ pass: [{ file: "list.txt", content: "bread, eggs" }, { text: "done" }] }))
      const { trial, text } = yield* traced(live, [appendEggs, [Message.text("done")]])
      expect(trial.verdict.passed).toBe(true)
      const checked = yield* Capture.checkedTrial(live, LIVE_FILE, text, { out: OUT, judged: trial.verdict })
      expect(checked.verdict.passed).toBe(true)
      expect(checked.expected).toStrictEqual([])
    })
  )

  it.effect("a replay that does not fail the same way is refused, both sides shown", () =>
    Effect.gen(function* () {
      const live = decodeLive(liveJson({ pass: [{ text: "done" }] }))
      const { text } = yield* traced(live, [[Message.text("not done")]])
      // A trial said to have passed, whose replay fails.
      const passed = { passed: true, failures: [] }
      const error = yield* Effect.flip(Capture.checkedTrial(live, LIVE_FILE, text, { out: OUT, judged: passed }))
      expect(error.problem).toBe(
        "the captured scenario does not fail the same way under the variant 'fixed'\n" +
          "  the trial:  (passes)\n" +
          '  the replay: [pass] pass[0]: the final text differs   expected: "done"   seen:     "not done"'
      )
      // A trace recorded under a variant this harness does not know: refused at its line.
      const unknown = text.replace('"value":"fixed"', '"value":"other"')
      const refused = yield* Effect.flip(Capture.checkedTrial(live, LIVE_FILE, unknown, { out: OUT }))
      expect(refused.message).toMatch(/^cases\/live\.json \(trace\): line 1: value: recorded under the variant 'other'/)
    })
  )

  it.effect("a root: relative to the scenario's folder when it holds it, else the copy's files inlined", () =>
    Effect.gen(function* () {
      const suite = path.join(temp, "suite")
      fs.mkdirSync(path.join(suite, "cases", "project"), { recursive: true })
      fs.writeFileSync(path.join(suite, "cases", "project", "list.txt"), "bread")
      const liveFile = path.join(suite, "cases", "live.json")
      const { files: _files, ...json } = liveJson({ root: "project", pass: [{ text: "done" }] })
      const live = decodeLive(json, liveFile)
      const { trial, text } = yield* traced(live, [appendEggs, [Message.text("not done")]], liveFile)
      expect(trial.verdict.passed).toBe(false)
      // Written at the suite's top: the root stays a folder, from there.
      const top = path.join(suite, "captured-live.json")
      const kept = yield* Capture.checkedTrial(live, liveFile, text, { out: top, judged: trial.verdict })
      expect(kept.scenario.root).toBe("cases/project")
      expect(kept.scenario.files).toBeUndefined()
      fs.writeFileSync(top, JSON.stringify(kept.scenario))
      const loaded = ScenarioFile.parse(top, fs.readFileSync(top, "utf8"))
      if (Result.isFailure(loaded) || loaded.success.kind !== "conversation") throw new Error("not a conversation")
      const replayed = yield* Conversation.run(loaded.success, top)
      expect(replayed.failures.map((f) => f.kind)).toStrictEqual(["pass"])
      // Written in a folder beside the cases: the copy's files as the trace shows them.
      const beside = path.join(suite, "harness-trials", "captured", "live.fixed.0.json")
      const inlined = yield* Capture.checkedTrial(live, liveFile, text, { out: beside, judged: trial.verdict })
      expect(inlined.scenario.root).toBeUndefined()
      expect(inlined.scenario.files).toStrictEqual({ "list.txt": "bread" })
      expect(inlined.verdict.failures.map((f) => f.kind)).toStrictEqual(["pass"])
      // The fixture was never written.
      expect(fs.readFileSync(path.join(suite, "cases", "project", "list.txt"), "utf8")).toBe("bread")
    }).pipe(Effect.provide(TreeRoots.layer))
  )

  it.effect("traces that cannot give a scenario are refused, naming the line", () =>
    Effect.gen(function* () {
      const live = decodeLive(liveJson())
      const { text } = yield* traced(live, [appendEggs, [Message.text("done")]])
      const lines = text.split("\n")
      const refusal = (trace: string, of: ScenarioFile.Live = live): string => {
        const captured = Capture.trial(of, LIVE_FILE, trace, { out: OUT, trace: "t.jsonl" })
        if (Result.isSuccess(captured)) throw new Error("captured")
        return captured.failure.message
      }
      expect(refusal("")).toBe("t.jsonl: (trace): empty: no trial was traced")
      expect(refusal("\n  \n")).toBe("t.jsonl: (trace): empty: no trial was traced")
      expect(refusal(`${lines[0]}\n{"type": "run.started",`)).toMatch(/^t\.jsonl: line 2: invalid JSON/)
      expect(refusal(`${lines[0]}\n[1, 2]`)).toMatch(/^t\.jsonl: line 2/)
      expect(refusal(lines.slice(0, 3).join("\n"))).toMatch(
        /^t\.jsonl: \(trace\): no start event: the trial did not run/
      )
      // Two trials in one trace.
      expect(refusal(`${text}\n${text}`)).toMatch(/^t\.jsonl: line \d+: a second start/)
      // A prompt that is not the live case's.
      expect(refusal(text, decodeLive(liveJson({ user: "Something else." })))).toMatch(
        /^t\.jsonl: line \d+: messages: the trace's prompt is "Add eggs to the list\.", the live case's is "Something else\."/
      )
      expect(refusal(text, decodeLive(liveJson({ files: { "list.txt": "milk" } })))).toMatch(
        /^t\.jsonl: line \d+: value: the trace's files is/
      )
      // A hostile line: a huge nesting, a line of a thousand keys' worth of garbage.
      expect(refusal(`${"[".repeat(100_000)}`)).toMatch(/^t\.jsonl: line 1/)
      expect(refusal(`${lines[0]}\n\u0000\u0001`)).toMatch(/^t\.jsonl: line 2: invalid JSON/)
    })
  )

  it.effect("a trial that ended with a model failure: no reply to replay, refused at the failure's line", () =>
    Effect.gen(function* () {
      const live = decodeLive(liveJson())
      const tracePath = path.join(temp, "failed.jsonl")
      const failing: Model.Shape = { respond: () => Effect.fail({ _tag: "Overloaded", message: "529 overloaded" }) }
      const trial = yield* LiveCase.trial(live, LIVE_FILE).pipe(
        Effect.provide(Layer.merge(Model.layer(failing), Layer.provide(Trace.jsonl(tracePath), disk))),
        Effect.orDie
      )
      expect(trial.verdict.passed).toBe(false)
      const text = fs.readFileSync(tracePath, "utf8")
      const line = text.split("\n").findIndex((l) => l.includes('"model.failed"')) + 1
      expect(line).toBeGreaterThan(0)
      const captured = Capture.trial(live, LIVE_FILE, text, { out: OUT })
      expect(Result.isFailure(captured) && captured.failure.message).toBe(
        `cases/live.json (trace): line ${line}: the model failed (529 overloaded): the run did not finish, so there is nothing to replay`
      )
      const checked = yield* Effect.flip(Capture.checkedTrial(live, LIVE_FILE, text, { out: OUT }))
      expect(checked.path).toBe(`line ${line}`)
    })
  )

  it.effect("a trial stopped at its turn cap replays to the same cap and fails the same way", () =>
    Effect.gen(function* () {
      const live = decodeLive(liveJson({ maxTurns: 2, pass: [{ stop: "end" }, { text: "done" }] }))
      const reading = [Message.toolUse("r1", "read", { path: "list.txt" })]
      const { trial, text } = yield* traced(live, [reading, [Message.toolUse("r2", "read", { path: "list.txt" })]])
      expect(trial.verdict.failures.map((f) => f.check)).toStrictEqual([0, 1])
      const checked = yield* Capture.checkedTrial(live, LIVE_FILE, text, { out: OUT, judged: trial.verdict })
      expect(checked.scenario.maxTurns).toBe(2)
      expect(checked.verdict.outcome.stop).toBe("turn_cap")
      expect(checked.verdict.failures.map((f) => f.message.split("\n")[0])).toStrictEqual([
        "pass[0]: the run stopped with 'turn_cap'",
        "pass[1]: the run ended without a final text"
      ])
    })
  )

  it.effect("a live case whose fields throw when read is refused in words, not a crash", () =>
    Effect.gen(function* () {
      const live = decodeLive(liveJson())
      const { text } = yield* traced(live, [[Message.text("done")]])
      const hostile = {
        ...live,
        get file(): ScenarioFile.LiveFile {
          throw new Error("no file here")
        }
      }
      const captured = Capture.trial(hostile, LIVE_FILE, text, { out: OUT })
      expect(Result.isFailure(captured) && captured.failure.problem).toBe("cannot be read (no file here)")
      const checked = yield* Effect.flip(Capture.checkedTrial(hostile, LIVE_FILE, text, { out: OUT }))
      expect(checked.problem).toBe("cannot be read (no file here)")
    })
  )
})

describe("paths as text", () => {
  it("a folder from another, or undefined when the text cannot say it", () => {
    expect(Paths.relative("suite", "suite/cases/project")).toBe("cases/project")
    expect(Paths.relative("suite/out", "suite/cases/project")).toBe("../cases/project")
    expect(Paths.relative("/a/b", "/a/b")).toBe("")
    expect(Paths.relative("C:\\x", "c:/x/y")).toBe("y")
    expect(Paths.relative("/a", "b")).toBeUndefined()
    expect(Paths.relative("../up", "b")).toBeUndefined()
    expect(Paths.join(Paths.dirname("cases/live.json"), "./project/")).toBe("cases/project")
    expect(Paths.join(Paths.dirname("live.json"), "project")).toBe("project")
    expect(Paths.join("/a/b", "../../../c")).toBe("/c")
    expect(Paths.dirname("/live.json")).toBe("/")
  })
})
